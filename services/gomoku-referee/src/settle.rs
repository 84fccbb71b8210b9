//! Settlement with the ledger: the `SettleGameRequest` of the game a step ended (written
//! to the settlement outbox in that very step, which the platform's settler delivers to
//! the ledger), and the ledger's acknowledgement read back into the table's words
//! ([`seats_settled`], which [`crate::table::TableState::settled`] notes and announces).

use gamehub_platform::tables::OutboxEntry;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger::{
    GameRecord, PlayerOutcome, PlayerResult, Role, SettleGameRequest, SettleGameResponse,
};
use gomoku_rules::{EndReason, Seat};

use crate::record::{self, RECORD_FORMAT};
use crate::table::{SeatSettled, Step, TableState};
use crate::view;

/// The settlement's `reason` words for the ledger.
pub fn settle_reason(reason: &EndReason) -> &'static str {
    match reason {
        EndReason::Five => "five",
        EndReason::ForbiddenMove { .. } => "forbidden_move",
        EndReason::ForbiddenClaimed { .. } => "forbidden_claimed",
        EndReason::Resignation { .. } => "resign",
        EndReason::Timeout { .. } => "timeout",
        EndReason::DrawAgreed { .. } => "draw_agreed",
        EndReason::NaturalDraw => "natural_draw",
        EndReason::Escape { .. } => "escape",
    }
}

/// The ledger request for the game `step` ended (the table's current game, now among its
/// finished ones), with its record; None when the step ended no game.
pub fn request(state: &TableState, step: &Step) -> Option<SettleGameRequest> {
    let number = step.ended?;
    debug_assert_eq!(number, state.number, "a step ends the table's current game");
    let result = state.finished_game(number).ok()?.result;
    let game = &state.game;
    let started_ms = game.started_ms();
    let ended_ms = started_ms.saturating_add(game.log().last().map_or(0, |e| e.at_ms));
    let points = result.points(state.room.stakes.points_base);
    let players = Seat::BOTH
        .into_iter()
        .map(|seat| {
            let outcome = match (result.reason, result.winner) {
                (EndReason::Escape { seat: escaper }, _) if escaper == seat => {
                    PlayerOutcome::Escape
                }
                (_, None) => PlayerOutcome::Draw,
                (_, Some(winner)) if winner == seat => PlayerOutcome::Win,
                (_, Some(_)) => PlayerOutcome::Loss,
            };
            PlayerResult {
                player_id: state.players[seat.index()].clone(),
                role: if seat == result.black_seat {
                    Role::Black as i32
                } else {
                    Role::White as i32
                },
                outcome: outcome as i32,
                points: points.seats[seat.index()],
                offered_draw: matches!(
                    result.reason,
                    EndReason::DrawAgreed { offered_by } if offered_by == seat
                ),
            }
        })
        .collect();
    Some(SettleGameRequest {
        friends_table: state.friends_table,
        game_id: state.game_id(number),
        game_type: GameType::Gomoku as i32,
        stakes: Some(view::stakes(&state.room)),
        players,
        reason: settle_reason(&result.reason).to_owned(),
        table_id: state.table_id.clone(),
        started_at_unix_ms: view::unix_ms(Some(started_ms)),
        ended_at_unix_ms: view::unix_ms(Some(ended_ms)),
        record: Some(GameRecord {
            format: RECORD_FORMAT.to_owned(),
            content: record::text(state),
        }),
    })
}

/// The outbox entry of `request`, stamped with the step's time.
pub fn outbox_entry(request: &SettleGameRequest, now_ms: u64) -> OutboxEntry {
    OutboxEntry::new(request, now_ms)
}

/// What the ledger's answer did for each of `state`'s seats (nothing for a seat the
/// answer does not name).
pub fn seats_settled(state: &TableState, response: &SettleGameResponse) -> Vec<SeatSettled> {
    state
        .players
        .iter()
        .map(|player| {
            let found = response.players.iter().find(|p| &p.player_id == player);
            SeatSettled {
                player_id: player.clone(),
                points_delta: found.map_or(0, |p| p.points_delta),
                points_after: found.map_or(0, |p| p.points_after),
                silver_delta: found.map_or(0, |p| p.silver_delta),
                balance_silver: found.map_or(0, |p| p.balance_silver),
                clamped_by: found.map(|p| p.clamped_by.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use gomoku_rules::{ForbiddenPolicy, RuleSet};

    use super::*;
    use crate::error::RefereeError;
    use crate::table::fixtures::*;
    use crate::table::{CloseReason, PlayerAction};

    #[test]
    fn a_five_settles_the_game_with_its_record() {
        let (mut state, _) = open(RuleSet::Freestyle);
        let step = black_wins_game_one(&mut state);
        let settle = request(&state, &step).expect("the five settles the game");
        assert_eq!(settle.record.as_ref().unwrap().format, RECORD_FORMAT);
        assert_eq!(settle.game_id, "gt-1:1");
        assert_eq!(settle.players[0].points, 10);
        assert_eq!(settle.players[1].points, -10);
        assert_eq!(settle.players[0].role, Role::Black as i32);
        assert_eq!(settle.reason, "five");
        let record = &settle.record.as_ref().unwrap().content;
        assert!(record.contains("[Black \"alice\"]"), "{record}");
    }

    #[test]
    fn a_game_at_a_friends_table_is_settled_and_recorded_as_one() {
        let mut state = open_with_bot(RuleSet::Freestyle);
        let step = state
            .act(
                Seat::ZERO,
                PlayerAction::Game(gomoku_rules::Action::Resign),
                1_100,
                60_000,
            )
            .unwrap()
            .0;
        let settle = request(&state, &step).expect("the resignation settles the game");
        assert!(settle.friends_table);
        let record = &settle.record.as_ref().unwrap().content;
        assert!(record.contains("[FriendsTable \"yes\"]"), "{record}");
        let (mut plain, _) = open(RuleSet::Freestyle);
        let step = black_wins_game_one(&mut plain);
        assert!(!request(&plain, &step).unwrap().friends_table);
    }

    #[test]
    fn leaving_mid_game_is_an_escape_and_closes_the_table() {
        let (mut state, _) = open(RuleSet::Renju(ForbiddenPolicy::Lose));
        place(&mut state, 0, "h8", 1_100);
        let (step, outcome) = state
            .act(Seat::ONE, PlayerAction::Leave, 1_200, 60_000)
            .unwrap();
        assert!(outcome.escaped);
        let settle = request(&state, &step).unwrap();
        assert_eq!(settle.players[1].outcome, PlayerOutcome::Escape as i32);
        assert_eq!(settle.players[1].points, -20);
        assert_eq!(settle.players[0].points, 0);
        assert!(state.is_closed());
        assert_eq!(state.deadline_ms(), None);
        assert!(matches!(
            state.act(Seat::ZERO, PlayerAction::NextGame, 1_300, 60_000),
            Err(RefereeError::TableClosed { .. })
        ));
    }

    #[test]
    fn leaving_between_the_two_games_of_a_pair_is_an_escape_from_the_second() {
        let mut state = paired_after_game_one();
        let (step, outcome) = state
            .act(Seat::ZERO, PlayerAction::Leave, 2_000, 60_000)
            .unwrap();
        assert!(outcome.escaped);
        let settle = request(&state, &step).expect("the second game is settled");
        assert_eq!(settle.game_id, "gt-1:2");
        assert_eq!(settle.reason, "escape");
        // Seat 0 holds white in game 2: an escaping white scores −10 × the base of 2.
        assert_eq!(settle.players[0].role, Role::White as i32);
        assert_eq!(settle.players[0].outcome, PlayerOutcome::Escape as i32);
        assert_eq!(
            (settle.players[0].points, settle.players[1].points),
            (-20, 0)
        );
        assert_eq!(player_left(&step), [(0, true)], "announced once");
        assert!(state.is_closed());
        assert_eq!(state.close_reason, Some(CloseReason::Escape));
        assert_eq!(state.number, 2);
        assert_eq!(state.finished.len(), 2);
        assert!(!state.leaving_escapes());
    }

    #[test]
    fn staying_away_from_the_second_game_of_a_pair_is_an_escape_when_the_other_came_back() {
        let mut state = paired_after_game_one();
        state
            .act(Seat::ONE, PlayerAction::NextGame, 1_300, 60_000)
            .unwrap();
        let step = state.on_clock(61_200, 60_000).expect("due");
        let settle = request(&state, &step).expect("the second game is settled");
        assert_eq!(settle.game_id, "gt-1:2");
        assert_eq!(settle.players[0].outcome, PlayerOutcome::Escape as i32);
        assert_eq!(player_left(&step), [(0, true)]);
        assert_eq!(state.close_reason, Some(CloseReason::Escape));
        assert!(
            state.closed_reason.contains("alice"),
            "{}",
            state.closed_reason
        );

        // Nobody came back: the table closes as any idle one, costing nobody anything.
        let mut state = paired_after_game_one();
        let step = state.on_clock(61_200, 60_000).expect("due");
        assert!(request(&state, &step).is_none());
        assert_eq!(state.close_reason, Some(CloseReason::Abandoned));
    }

    #[test]
    fn a_loss_on_time_settles_as_a_timeout() {
        let (mut state, _) = open(RuleSet::Freestyle);
        let step = state.on_clock(2_000, 500).unwrap();
        assert_eq!(request(&state, &step).unwrap().reason, "timeout");
        let step = state.on_clock(2_500, 500).unwrap();
        assert!(request(&state, &step).is_none(), "closing settles nothing");
    }

    #[test]
    fn the_ledgers_answer_is_read_seat_by_seat() {
        let (state, _) = open(RuleSet::Freestyle);
        let response = SettleGameResponse {
            game_id: "gt-1:1".into(),
            players: vec![gamehub_proto::ledger::PlayerSettlement {
                player_id: "bob".into(),
                points_delta: -10,
                silver_delta: -100,
                ..Default::default()
            }],
            ..Default::default()
        };
        let seats = seats_settled(&state, &response);
        assert_eq!(seats[0].player_id, "alice");
        assert_eq!((seats[0].points_delta, seats[0].silver_delta), (0, 0));
        assert_eq!((seats[1].points_delta, seats[1].silver_delta), (-10, -100));
    }
}
