//! What the API shows, built from the table: the table as a viewer sees it, the
//! table's events as the API's `TableEvent`s, results, openings and records. The only
//! place that turns the table's state and events into protobuf; pure functions, no I/O.

use gamehub_proto::common::{PlayerProfile, RoomStakes, SeatedPlayer, TableSummary};
use gamehub_proto::gomoku as pb;
use gomoku_rules::{
    Action, Color, EndReason, Event, ForbiddenKind, ForbiddenPolicy, Game, GameResult, LogEntry,
    Opening, Outcome, Phase, Point, Record, RuleSet, Seat,
};

use crate::table::{
    CloseReason, EventKind, FinishedGame, Room, SeatSettled, Status, TableEvent, TableState,
};

/// Unix ms as the proto carries them (0 for none).
pub fn unix_ms(ms: Option<u64>) -> i64 {
    ms.map_or(0, |ms| i64::try_from(ms).unwrap_or(i64::MAX))
}

fn seat(seat: Seat) -> i32 {
    i32::from(seat.number())
}

/// The room's stakes, as the API and the ledger read them.
pub fn stakes(room: &Room) -> RoomStakes {
    room.stakes.to_proto()
}

/// A point with all three fields filled.
pub fn point(p: Point) -> pb::Point {
    pb::Point {
        text: p.name().to_owned(),
        x: i32::from(p.x()),
        y: i32::from(p.y()),
    }
}

/// A color.
pub fn color(c: Color) -> pb::Color {
    match c {
        Color::Black => pb::Color::Black,
        Color::White => pb::Color::White,
    }
}

/// A rule set.
pub fn rule_set(r: RuleSet) -> pb::RuleSet {
    gamehub_terms::rule_sets::gomoku_to_proto(r)
}

/// A forbidden kind.
pub fn forbidden_kind(k: ForbiddenKind) -> pb::ForbiddenKind {
    match k {
        ForbiddenKind::Overline => pb::ForbiddenKind::Overline,
        ForbiddenKind::DoubleFour => pb::ForbiddenKind::DoubleFour,
        ForbiddenKind::DoubleThree => pb::ForbiddenKind::DoubleThree,
    }
}

/// A game result with its points (the winning line is `game_result`'s, from the game).
pub fn result(r: &GameResult, points_base: i64) -> pb::GameResult {
    let (reason, kind, by) = match r.reason {
        EndReason::Five => (pb::EndReason::Five, None, None),
        EndReason::ForbiddenMove { kind } => (pb::EndReason::ForbiddenMove, Some(kind), None),
        EndReason::ForbiddenClaimed { kind } => (pb::EndReason::ForbiddenClaimed, Some(kind), None),
        EndReason::Resignation { seat } => (pb::EndReason::Resignation, None, Some(seat)),
        EndReason::Timeout { seat } => (pb::EndReason::Timeout, None, Some(seat)),
        EndReason::DrawAgreed { offered_by } => (pb::EndReason::DrawAgreed, None, Some(offered_by)),
        EndReason::NaturalDraw => (pb::EndReason::NaturalDraw, None, None),
        EndReason::Escape { seat } => (pb::EndReason::Escape, None, Some(seat)),
    };
    let outcome = match r.outcome {
        Outcome::BlackWins => pb::Outcome::BlackWins,
        Outcome::WhiteWins => pb::Outcome::WhiteWins,
        Outcome::Draw => pb::Outcome::Draw,
    };
    pb::GameResult {
        outcome: outcome as i32,
        reason: reason as i32,
        forbidden_kind: kind.map_or(0, |k| forbidden_kind(k) as i32),
        seat: by.map(seat),
        winner_seat: r.winner.map(seat),
        black_seat: seat(r.black_seat),
        points: r.points(points_base).seats.to_vec(),
        description: r.describe(),
        winning_line: Vec::new(),
    }
}

/// A game's result as `result` gives it, with the winning line of a five.
fn game_result(game: &Game, points_base: i64) -> Option<pb::GameResult> {
    game.result().map(|r| pb::GameResult {
        winning_line: game.winning_line().into_iter().map(point).collect(),
        ..result(r, points_base)
    })
}

/// One of the table's events as the API's `TableEvent` (its `event_id` is the store's,
/// set as it is read back); results count points by the table's base.
pub fn event(state: &TableState, event: &TableEvent) -> pb::TableEvent {
    use pb::table_event::Kind;
    let kind = match &event.kind {
        EventKind::TableOpened { players } => Kind::TableOpened(pb::TableOpened {
            player_ids: players.to_vec(),
        }),
        EventKind::GameStarted {
            black_seat,
            turn_deadline_ms,
            opening: o,
        } => Kind::GameStarted(pb::GameStarted {
            black_seat: seat(*black_seat),
            turn_deadline_unix_ms: unix_ms(*turn_deadline_ms),
            opening: o.map(opening),
        }),
        EventKind::Rules {
            event,
            turn_deadline_ms,
        } => game_event(event, unix_ms(*turn_deadline_ms)),
        EventKind::GameOver {
            result: r,
            closes_at_ms,
        } => Kind::GameOver(pb::GameOver {
            result: Some(result(r, state.room.stakes.points_base)),
            closes_at_unix_ms: unix_ms(Some(*closes_at_ms)),
        }),
        EventKind::NextGameRequested { seat: s } => {
            Kind::NextGameRequested(pb::NextGameRequested { seat: seat(*s) })
        }
        EventKind::PlayerLeft { seat: s, escaped } => Kind::PlayerLeft(pb::PlayerLeft {
            seat: seat(*s),
            escaped: *escaped,
        }),
        EventKind::TableClosed { reason, code } => Kind::TableClosed(pb::TableClosed {
            reason: reason.clone(),
            close_reason: close_reason(Some(*code)) as i32,
        }),
        EventKind::GameSettled {
            game_id,
            number,
            seats,
            adopted,
        } => Kind::GameSettled(pb::GameSettled {
            game_id: game_id.clone(),
            number: i32::try_from(*number).unwrap_or(i32::MAX),
            settlement: Some(settlement(seats, *adopted)),
        }),
    };
    pb::TableEvent {
        event_id: 0,
        at_unix_ms: i64::try_from(event.at_ms).unwrap_or(i64::MAX),
        game_number: i32::try_from(event.game_number).unwrap_or(i32::MAX),
        kind: Some(kind),
    }
}

/// A rule-crate event other than `GameOver` (which the table turns into its own
/// event); `deadline` is the next turn's deadline after the action.
fn game_event(event: &Event, deadline: i64) -> pb::table_event::Kind {
    use pb::table_event::Kind;
    match *event {
        Event::StonePlaced {
            ply,
            seat: s,
            color: c,
            point: p,
        } => Kind::StonePlaced(pb::StonePlaced {
            stone: Some(pb::Stone {
                ply: i32::from(ply),
                point: Some(point(p)),
                color: color(c) as i32,
            }),
            seat: seat(s),
            turn_deadline_unix_ms: deadline,
        }),
        Event::ForbiddenClaimUpheld { seat: s, kind } => {
            Kind::ForbiddenClaimUpheld(pb::ForbiddenClaimUpheld {
                seat: seat(s),
                kind: forbidden_kind(kind) as i32,
            })
        }
        Event::ForbiddenClaimRejected { seat: s } => {
            Kind::ForbiddenClaimRejected(pb::ForbiddenClaimRejected {
                seat: seat(s),
                turn_deadline_unix_ms: deadline,
            })
        }
        Event::DrawOffered { seat: s } => Kind::DrawOffered(pb::DrawOffered { seat: seat(s) }),
        Event::DrawDeclined { seat: s } => Kind::DrawDeclined(pb::DrawDeclined { seat: seat(s) }),
        Event::DrawLapsed { offered_by } => Kind::DrawLapsed(pb::DrawLapsed {
            offered_by_seat: seat(offered_by),
        }),
        Event::Swapped {
            seat: s,
            black_seat,
        } => Kind::Swapped(pb::Swapped {
            seat: seat(s),
            black_seat: seat(black_seat),
            turn_deadline_unix_ms: deadline,
        }),
        Event::FifthProposed { seat: s, proposals } => Kind::FifthProposed(pb::FifthProposed {
            seat: seat(s),
            points: proposals.iter().map(|&p| point(p)).collect(),
            turn_deadline_unix_ms: deadline,
        }),
        Event::FifthChosen {
            seat: s,
            point: p,
            rejected,
        } => Kind::FifthChosen(pb::FifthChosen {
            seat: seat(s),
            point: Some(point(p)),
            rejected: Some(point(rejected)),
        }),
        Event::GameOver { result: r } => Kind::GameOver(pb::GameOver {
            result: Some(result(&r, 1)),
            closes_at_unix_ms: 0,
        }),
    }
}

/// The ledger's answer for both seats.
pub fn settlement(seats: &[SeatSettled], adopted: bool) -> pb::Settlement {
    pb::Settlement {
        adopted,
        seats: seats
            .iter()
            .map(|s| pb::SeatSettlement {
                player_id: s.player_id.clone(),
                points_delta: s.points_delta,
                points_after: s.points_after,
                silver_delta: s.silver_delta,
                balance_silver: s.balance_silver,
                clamped_by: s.clamped_by.clone(),
            })
            .collect(),
    }
}

/// The API's phase of a game in phase `p`.
pub fn phase(p: Phase) -> pb::Phase {
    match p {
        Phase::Play => pb::Phase::Play,
        Phase::SwapDecision => pb::Phase::SwapDecision,
        Phase::ProposeFifth => pb::Phase::ProposeFifth,
        Phase::ChooseFifth { .. } => pb::Phase::ChooseFifth,
        Phase::Over => pb::Phase::Over,
    }
}

/// The stones of a game in order.
pub fn stones(game: &Game) -> Vec<pb::Stone> {
    stones_after(game, 0)
}

/// The stones of a game after its first `held` (plies stay absolute).
fn stones_after(game: &Game, held: usize) -> Vec<pb::Stone> {
    game.moves()
        .iter()
        .enumerate()
        .skip(held)
        .map(|(i, &(p, c))| stone(i, p, c))
        .collect()
}

/// The stone placed `index`-th (ply `index + 1`).
fn stone(index: usize, p: Point, c: Color) -> pb::Stone {
    pb::Stone {
        ply: i32::try_from(index + 1).unwrap_or(i32::MAX),
        point: Some(point(p)),
        color: color(c) as i32,
    }
}

/// What a caller says it already holds of the table's current game
/// (`PlaceStoneRequest.known_game` and `known_stones`): its answer leaves those stones
/// out. [`Known::NOTHING`] everywhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Known {
    /// The game number the count is of.
    pub game: i32,
    /// Stones held, from the first.
    pub stones: u32,
}

impl Known {
    /// The caller holds nothing: every stone is answered.
    pub const NOTHING: Known = Known { game: 0, stones: 0 };

    /// How many of `state`'s current game's first stones to leave out: all that are
    /// held when the game is the one meant and has at least that many; else none.
    fn held(self, state: &TableState) -> usize {
        let count = state.game.moves().len();
        let held = usize::try_from(self.stones).unwrap_or(usize::MAX);
        let same_game = i64::from(self.game) == i64::from(state.number);
        if same_game && held <= count { held } else { 0 }
    }
}

/// Whether `viewer` is shown black's forbidden points: in the renju rooms while a game
/// runs; under the claim policy only black itself, since spotting a forbidden stone is
/// white's part of the game (a list that white or a spectator could read would answer
/// every claim).
fn sees_forbidden_points(game: &Game, viewer: Option<Seat>) -> bool {
    match game.rule_set().policy() {
        None => false,
        Some(_) if game.is_over() => false,
        Some(ForbiddenPolicy::Claim) => viewer == Some(game.seat_of(Color::Black)),
        Some(ForbiddenPolicy::Lose | ForbiddenPolicy::Refuse) => true,
    }
}

/// A game as `viewer` (a seat, or None for a spectator) sees it at `now_ms`, without
/// the stones the viewer said it holds.
pub fn game(state: &TableState, viewer: Option<Seat>, now_ms: u64, known: Known) -> pb::Game {
    let g = &state.game;
    let held = known.held(state);
    let stones = stones_after(g, held);
    let last_move = g
        .moves()
        .len()
        .checked_sub(1)
        .map(|i| stone(i, g.moves()[i].0, g.moves()[i].1));
    let to_act = g.to_act();
    let tc = g.config().time_control;
    let clocks = Seat::BOTH
        .into_iter()
        .map(|s| {
            let running = to_act == Some(s);
            let mut remaining = g.remaining_ms(s).unwrap_or(0);
            if running && tc.total_ms > 0 {
                remaining = remaining.saturating_sub(now_ms.saturating_sub(g.turn_started_ms()));
            }
            pb::Clock {
                seat: seat(s),
                remaining_ms: unix_ms(Some(remaining)),
                running,
            }
        })
        .collect();
    let fifth_proposals = match g.phase() {
        Phase::ChooseFifth { proposals } => proposals.iter().map(|&p| point(p)).collect(),
        _ => Vec::new(),
    };
    let forbidden_points = if sees_forbidden_points(g, viewer) {
        g.board()
            .forbidden_points()
            .into_iter()
            .map(|(p, k)| pb::ForbiddenPoint {
                point: Some(point(p)),
                kind: forbidden_kind(k) as i32,
            })
            .collect()
    } else {
        Vec::new()
    };
    pb::Game {
        number: i32::try_from(state.number).unwrap_or(i32::MAX),
        game_id: state.game_id(state.number),
        phase: phase(g.phase()) as i32,
        last_move,
        stones,
        stones_omitted: u32::try_from(held).unwrap_or(0),
        to_move: g.to_move().map_or(0, |c| color(c) as i32),
        to_act_seat: to_act.map(seat),
        black_seat: seat(g.seat_of(Color::Black)),
        clocks,
        turn_deadline_unix_ms: unix_ms(g.deadline_ms()),
        draw_offered_by_seat: g.draw_offer().map(seat),
        fifth_proposals,
        forbidden_points,
        result: game_result(g, state.room.stakes.points_base),
        started_at_unix_ms: unix_ms(Some(g.started_ms())),
        opening: g.opening().map(opening),
    }
}

/// A designated opening as the API shows it.
pub fn opening(opening: Opening) -> pb::Opening {
    pb::Opening {
        id: opening.id().to_owned(),
        number: i32::from(opening.number()),
        code: opening.code().to_owned(),
        name: opening.name().to_owned(),
        name_zh: opening.name_zh().to_owned(),
        stones: opening.stones().into_iter().map(point).collect(),
    }
}

fn finished_game(f: &FinishedGame, points_base: i64) -> pb::FinishedGame {
    pb::FinishedGame {
        number: i32::try_from(f.number).unwrap_or(i32::MAX),
        game_id: f.game_id.clone(),
        result: Some(result(&f.result, points_base)),
        settlement: f
            .settlement
            .as_deref()
            .map(|seats| settlement(seats, f.adopted)),
    }
}

/// The table as `viewer` (a seat, or None for a spectator) sees it at `now_ms`, as of
/// event `last_event_id`.
pub fn table(
    state: &TableState,
    viewer: Option<Seat>,
    last_event_id: u64,
    now_ms: u64,
) -> pb::Table {
    table_for(state, viewer, last_event_id, now_ms, Known::NOTHING)
}

/// [`table`] without the stones the viewer said it holds ([`Known`]).
pub fn table_for(
    state: &TableState,
    viewer: Option<Seat>,
    last_event_id: u64,
    now_ms: u64,
    known: Known,
) -> pb::Table {
    let game_colors = |s: Seat| color(state.game.color_of(s)) as i32;
    let status = match state.status {
        Status::Playing => pb::TableStatus::Playing,
        Status::BetweenGames { .. } => pb::TableStatus::BetweenGames,
        Status::Closed => pb::TableStatus::Closed,
    };
    let closes_at = match state.status {
        Status::BetweenGames { closes_at_ms } => Some(closes_at_ms),
        _ => None,
    };
    pb::Table {
        friends_table: state.friends_table,
        table_id: state.table_id.clone(),
        room_id: state.room.stakes.room_id.to_string(),
        rule_set: rule_set(state.room.rule_set) as i32,
        time_control: Some(pb::TimeControl {
            per_move_ms: unix_ms(Some(state.room.time_control.per_move_ms)),
            total_ms: unix_ms(Some(state.room.time_control.total_ms)),
        }),
        stakes: Some(stakes(&state.room)),
        players: Seat::BOTH
            .into_iter()
            .map(|s| pb::Player {
                player_id: state.players[s.index()].clone(),
                seat: seat(s),
                color: game_colors(s),
                wants_next_game: state.wants_next[s.index()],
                left: state.left[s.index()],
                profile: Some(profile(state, s)),
            })
            .collect(),
        your_seat: viewer.map(seat),
        status: status as i32,
        game: Some(game(state, viewer, now_ms, known)),
        last_event_id,
        server_time_unix_ms: unix_ms(Some(now_ms)),
        closes_at_unix_ms: unix_ms(closes_at),
        finished_games: state
            .finished
            .iter()
            .map(|f| finished_game(f, state.room.stakes.points_base))
            .collect(),
        closed_reason: state.closed_reason.clone(),
        designated_opening: state
            .room
            .designated_opening
            .map(|choice| choice.name().to_owned())
            .unwrap_or_default(),
        close_reason: close_reason(state.close_reason) as i32,
        paired_games: state.room.paired_games,
        leaving_escapes: state.leaving_escapes(),
    }
}

/// How the player of `seat` is shown: its profile as the table opened with it (empty:
/// shown by id), and whether the referee's bot plays it.
pub fn profile(state: &TableState, seat: Seat) -> PlayerProfile {
    let shown = state
        .profiles
        .as_ref()
        .map(|profiles| profiles[seat.index()].clone())
        .unwrap_or_default();
    PlayerProfile {
        name: shown.name,
        title: shown.title,
        rating: shown.rating,
        rank_name: shown.rank_name,
        bot: state.is_bot(seat),
    }
}

/// The table as the table list shows it (ListTables); the store adds the ids, the
/// opening time and the spectators. None once the table is closed: it leaves the list.
pub fn summary(state: &TableState) -> Option<TableSummary> {
    if state.is_closed() {
        return None;
    }
    let game = &state.game;
    Some(TableSummary {
        players: Seat::BOTH
            .into_iter()
            .map(|s| SeatedPlayer {
                player_id: state.players[s.index()].clone(),
                seat: seat(s),
                profile: Some(profile(state, s)),
            })
            .collect(),
        in_progress: state.status == Status::Playing,
        game_number: i32::try_from(state.number).unwrap_or(i32::MAX),
        move_number: i32::try_from(game.board().stone_count()).unwrap_or(i32::MAX),
        phase: phase(game.phase()).as_str_name().to_owned(),
        ..TableSummary::default()
    })
}

/// Why a table closed, as the API's code.
pub fn close_reason(reason: Option<CloseReason>) -> pb::CloseReason {
    match reason {
        None => pb::CloseReason::Unspecified,
        Some(CloseReason::Escape) => pb::CloseReason::Escape,
        Some(CloseReason::Left) => pb::CloseReason::Left,
        Some(CloseReason::Abandoned) => pb::CloseReason::Abandoned,
        Some(CloseReason::Operator) => pb::CloseReason::Operator,
    }
}

/// A game's log as record entries, with each actor's color at the time.
pub fn record_entries(game: &Game) -> Vec<pb::RecordEntry> {
    let mut black_seat = game.config().black_seat;
    game.log()
        .iter()
        .map(|entry: &LogEntry| {
            let actor_color = if entry.seat == black_seat {
                Color::Black
            } else {
                Color::White
            };
            let (action, p, proposals) = match entry.action {
                Action::Place(p) => (pb::RecordAction::Place, Some(point(p)), Vec::new()),
                Action::ClaimForbidden => (pb::RecordAction::ClaimForbidden, None, Vec::new()),
                Action::Swap => {
                    black_seat = entry.seat;
                    (pb::RecordAction::Swap, None, Vec::new())
                }
                Action::ProposeFifth(a, b) => (
                    pb::RecordAction::ProposeFifth,
                    None,
                    vec![point(a), point(b)],
                ),
                Action::ChooseFifth(p) => {
                    (pb::RecordAction::ChooseFifth, Some(point(p)), Vec::new())
                }
                Action::OfferDraw => (pb::RecordAction::OfferDraw, None, Vec::new()),
                Action::AcceptDraw => (pb::RecordAction::AcceptDraw, None, Vec::new()),
                Action::DeclineDraw => (pb::RecordAction::DeclineDraw, None, Vec::new()),
                Action::Resign => (pb::RecordAction::Resign, None, Vec::new()),
                Action::Escape => (pb::RecordAction::Escape, None, Vec::new()),
                Action::Timeout => (pb::RecordAction::Timeout, None, Vec::new()),
            };
            pb::RecordEntry {
                action: action as i32,
                seat: seat(entry.seat),
                color: color(actor_color) as i32,
                point: p,
                proposals,
                at_ms: unix_ms(Some(entry.at_ms)),
            }
        })
        .collect()
}

/// A finished game's record kept at the table, as GetRecord returns it.
pub fn game_record(
    state: &TableState,
    finished: &FinishedGame,
    record: &Record,
) -> pb::GetRecordResponse {
    let game = &record.game;
    pb::GetRecordResponse {
        friends_table: state.friends_table || record.info.friends_table,
        game_id: finished.game_id.clone(),
        game_number: i32::try_from(finished.number).unwrap_or(i32::MAX),
        black_player_id: record.info.black.clone(),
        white_player_id: record.info.white.clone(),
        rule_set: rule_set(game.rule_set()) as i32,
        entries: record_entries(game),
        result: Some(pb::GameResult {
            winning_line: game.winning_line().into_iter().map(point).collect(),
            ..result(&finished.result, state.room.stakes.points_base)
        }),
        started_at_unix_ms: unix_ms(Some(game.started_ms())),
        opening: game.opening().map(opening),
    }
}

/// A record read from a file, as LoadRecord returns it (points at base 1).
pub fn loaded_record(record: &Record) -> pb::LoadRecordResponse {
    let game = &record.game;
    pb::LoadRecordResponse {
        rule_set: rule_set(game.rule_set()) as i32,
        black_player_id: record.info.black.clone(),
        white_player_id: record.info.white.clone(),
        entries: record_entries(game),
        stones: stones(game),
        result: game_result(game, 1),
        opening: game.opening().map(opening),
    }
}

#[cfg(test)]
mod tests {
    use gomoku_rules::RuleSet;

    use super::*;
    use crate::table::fixtures::open;
    use crate::table::{PlayerAction, Step};

    #[test]
    fn every_way_a_table_closes_has_its_code() {
        let closed_with = |state: &TableState, step: &Step| {
            step.events
                .iter()
                .find_map(|e| match event(state, e).kind {
                    Some(pb::table_event::Kind::TableClosed(c)) => Some(c.close_reason()),
                    _ => None,
                })
                .expect("a TableClosed event")
        };
        let (mut state, _) = open(RuleSet::Freestyle);
        let (step, _) = state
            .act(Seat::ONE, PlayerAction::Leave, 1_100, 60_000)
            .unwrap();
        assert_eq!(closed_with(&state, &step), pb::CloseReason::Escape);
        let view = table(&state, None, 0, 1_200);
        assert_eq!(view.close_reason(), pb::CloseReason::Escape);
        assert!(!view.leaving_escapes);

        let (mut state, _) = open(RuleSet::Freestyle);
        let (step, _) = state.close_by_operator("closed by operator ops: stuck", 1_100);
        assert_eq!(closed_with(&state, &step), pb::CloseReason::Operator);

        let (mut state, _) = open(RuleSet::Freestyle);
        state.on_clock(2_000, 500).unwrap();
        let step = state.on_clock(2_500, 500).unwrap();
        assert_eq!(closed_with(&state, &step), pb::CloseReason::Abandoned);

        let (state, _) = open(RuleSet::Freestyle);
        let view = table(&state, None, 0, 1_000);
        assert_eq!(view.close_reason(), pb::CloseReason::Unspecified);
        assert!(view.leaving_escapes && !view.paired_games);
    }
}
