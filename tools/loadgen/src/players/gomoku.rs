//! A random Gomoku player for every seat of one table, as a load generator plays it: a
//! random legal stone near the others (`gamehub_bots::gomoku::random_move_near`), and the
//! swap room's decisions as the bots crate's random player takes them.
//!
//! The player keeps a copy of the table's current game (`gomoku_rules::Game`) and plays
//! on it each action the server accepted, so the rules (Renju's forbidden points for
//! black, the swap room's opening limits) are the rule crate's. When the copy and the
//! server's view part (an answer lost on the way, a clock that ran out), the copy is
//! rebuilt from the view's stones; a swap-room game that has begun cannot be rebuilt
//! that way (the view does not say who swapped), and is sat out.

use gamehub_bots::gomoku as strategy;
use gamehub_drive::gomoku::{api_point, rule_set};
use gamehub_gomoku_referee::view::phase;
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::gomoku as pb;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gomoku_rules::{Action, Color, Game, GameConfig, Point, RuleSet, Seat, TimeControl};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// How far from the stones on the board a random stone may fall (the referee's load:
/// two points; the whole path's: next to a stone).
pub type Reach = u8;

/// Every seat of one table, playing at random.
#[derive(Debug)]
pub struct RandomGomoku {
    rule_set: RuleSet,
    reach: Reach,
    /// The table's current game as this player knows it, and its number.
    copy: Option<(i32, Game)>,
    rng: StdRng,
}

/// A choice of the player: which seat does what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// The seat to act.
    pub seat: Seat,
    /// What it does.
    pub action: Action,
}

impl RandomGomoku {
    /// A player of a table with `rule_set`, stones within `reach` of the others, its
    /// choices drawn from `seed`.
    pub fn new(rule_set: pb::RuleSet, reach: Reach, seed: u64) -> Option<Self> {
        Some(Self {
            rule_set: self::rule_set(rule_set)?,
            reach,
            copy: None,
            rng: StdRng::seed_from_u64(seed),
        })
    }

    /// What the seat to act in `view` (the table's current game as the server last
    /// showed it) does next; None when nobody is to act or the copy cannot follow.
    pub fn next(&mut self, view: &pb::Game) -> Option<Turn> {
        self.follow(view);
        let (_, game) = self.copy.as_ref()?;
        let seat = game.to_act()?;
        let action = strategy::random_move_near(game, seat, self.reach, &mut self.rng)?;
        Some(Turn { seat, action })
    }

    /// The server accepted `turn`: the copy plays it too.
    pub fn accepted(&mut self, turn: Turn) {
        if let Some((_, game)) = self.copy.as_mut()
            && game.act(turn.seat, turn.action, 0).is_err()
        {
            self.copy = None;
        }
    }

    /// Brings the copy in step with `view`: kept when it shows the same game, stones,
    /// phase and seat to act; otherwise rebuilt from the view.
    fn follow(&mut self, view: &pb::Game) {
        let in_step = self.copy.as_ref().is_some_and(|(number, game)| {
            *number == view.number
                && game.moves().len() == view.stones.len()
                && phase(game.phase()) == view.phase()
                && game.to_act().map(|s| i32::from(s.number())) == view.to_act_seat
        });
        if !in_step {
            self.copy = rebuild(self.rule_set, view).map(|game| (view.number, game));
        }
    }
}

/// The game of `view` replayed from its stones, each by the seat holding its color;
/// None when that cannot be right (a swap-room game with stones: who swapped is not in
/// the view) or the rules refuse a stone.
fn rebuild(rule_set: RuleSet, view: &pb::Game) -> Option<Game> {
    if rule_set == RuleSet::RenjuSwap && !view.stones.is_empty() {
        return None;
    }
    let black_seat = Seat::new(u8::try_from(view.black_seat).ok()?)?;
    let config = GameConfig {
        rule_set,
        time_control: TimeControl {
            per_move_ms: 0,
            total_ms: 0,
        },
        black_seat,
    };
    let mut game = Game::new(config, 0);
    for stone in &view.stones {
        let p = stone.point.as_ref()?;
        let point = Point::from_xy(i64::from(p.x), i64::from(p.y)).ok()?;
        let color = match stone.color() {
            pb::Color::Black => Color::Black,
            pb::Color::White => Color::White,
            pb::Color::Unspecified => return None,
        };
        game.act(game.seat_of(color), Action::Place(point), 0)
            .ok()?;
    }
    Some(game)
}

/// The table an answer stands for: when it left out the game's first stones
/// (`stones_omitted`), those of `held` (the same game) put back before its own.
pub fn whole(held: Option<&pb::Table>, mut answer: pb::Table) -> pb::Table {
    let (Some(game), Some(old)) = (answer.game.as_mut(), held.and_then(|t| t.game.as_ref())) else {
        return answer;
    };
    let omitted = usize::try_from(game.stones_omitted).unwrap_or(usize::MAX);
    if omitted == 0 || old.number != game.number || old.stones.len() < omitted {
        return answer;
    }
    let mut stones = old.stones[..omitted].to_vec();
    stones.append(&mut game.stones);
    game.stones = stones;
    game.stones_omitted = 0;
    answer
}

/// Sends `turn` for its seat with `client` (holding that seat's player's token) under
/// `request_id`; the table after it. With `held` (the table the player holds), a stone
/// says how many stones of the game the player has (`known_stones`), so the answer
/// leaves them out, and the table returned is whole again ([`whole`]); without it, the
/// answer is whole as sent.
pub async fn send(
    client: &mut GomokuServiceClient<ServiceChannel>,
    table_id: &str,
    request_id: String,
    turn: Turn,
    held: Option<&pb::Table>,
) -> Result<Option<pb::Table>, tonic::Status> {
    let table_id = table_id.to_owned();
    match turn.action {
        Action::Place(p) => {
            let game = held.and_then(|t| t.game.as_ref());
            let answer = client
                .place_stone(pb::PlaceStoneRequest {
                    table_id,
                    request_id,
                    point: Some(api_point(p)),
                    known_game: game.map_or(0, |g| g.number),
                    known_stones: game.map_or(0, |g| {
                        u32::try_from(g.stones.len()).unwrap_or(0) + g.stones_omitted
                    }),
                })
                .await?
                .into_inner()
                .table;
            Ok(answer.map(|answer| whole(held, answer)))
        }
        Action::ProposeFifth(a, b) => client
            .propose_fifth_moves(pb::ProposeFifthMovesRequest {
                table_id,
                request_id,
                points: vec![api_point(a), api_point(b)],
            })
            .await
            .map(|r| r.into_inner().table),
        Action::ChooseFifth(p) => client
            .choose_fifth_move(pb::ChooseFifthMoveRequest {
                table_id,
                request_id,
                point: Some(api_point(p)),
            })
            .await
            .map(|r| r.into_inner().table),
        Action::Swap => client
            .swap(pb::SwapRequest {
                table_id,
                request_id,
            })
            .await
            .map(|r| r.into_inner().table),
        other => Err(tonic::Status::unimplemented(format!(
            "the random player does not {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use gamehub_gomoku_referee::view::stones;

    use super::*;

    /// A table whose game `number` lists `stones` after `omitted` left out.
    fn table_of(number: i32, plies: std::ops::Range<i32>, omitted: u32) -> pb::Table {
        pb::Table {
            game: Some(pb::Game {
                number,
                stones: plies
                    .map(|ply| pb::Stone {
                        ply,
                        ..pb::Stone::default()
                    })
                    .collect(),
                stones_omitted: omitted,
                ..pb::Game::default()
            }),
            ..pb::Table::default()
        }
    }

    fn plies(table: &pb::Table) -> Vec<i32> {
        table
            .game
            .as_ref()
            .unwrap()
            .stones
            .iter()
            .map(|s| s.ply)
            .collect()
    }

    #[test]
    fn a_brief_answer_is_made_whole_from_the_held_stones_of_the_same_game() {
        let held = table_of(1, 1..5, 0);
        let whole_again = whole(Some(&held), table_of(1, 5..6, 4));
        assert_eq!(plies(&whole_again), [1, 2, 3, 4, 5]);
        assert_eq!(whole_again.game.as_ref().unwrap().stones_omitted, 0);
        // A whole answer, another game, or fewer stones held than left out: as sent.
        assert_eq!(
            plies(&whole(Some(&held), table_of(1, 1..6, 0))),
            [1, 2, 3, 4, 5]
        );
        assert_eq!(plies(&whole(Some(&held), table_of(2, 5..6, 4))), [5]);
        assert_eq!(plies(&whole(Some(&held), table_of(1, 7..8, 6))), [7]);
        assert_eq!(plies(&whole(None, table_of(1, 5..6, 4))), [5]);
    }

    /// The server's view of `game`, game number `number`, as far as the player reads it.
    fn view(number: i32, game: &Game) -> pb::Game {
        pb::Game {
            number,
            phase: phase(game.phase()) as i32,
            stones: stones(game),
            black_seat: i32::from(game.seat_of(Color::Black).number()),
            to_act_seat: game.to_act().map(|s| i32::from(s.number())),
            ..pb::Game::default()
        }
    }

    fn server_game(rule_set: RuleSet, black_seat: u8) -> Game {
        Game::new(
            GameConfig {
                rule_set,
                time_control: TimeControl {
                    per_move_ms: 0,
                    total_ms: 0,
                },
                black_seat: Seat::new(black_seat).unwrap(),
            },
            0,
        )
    }

    #[test]
    fn it_plays_whole_games_the_rules_accept_in_every_rule_set() {
        for proto in [
            pb::RuleSet::Freestyle,
            pb::RuleSet::RenjuLose,
            pb::RuleSet::RenjuRefuse,
            pb::RuleSet::RenjuClaim,
            pb::RuleSet::RenjuSwap,
        ] {
            for seed in 0..6u64 {
                let mut player = RandomGomoku::new(proto, 2, seed).unwrap();
                let mut server = server_game(self::rule_set(proto).unwrap(), (seed % 2) as u8);
                let mut actions = 0;
                while !server.is_over() {
                    let turn = player
                        .next(&view(1, &server))
                        .unwrap_or_else(|| panic!("{proto:?}: no move after {actions}"));
                    server
                        .act(turn.seat, turn.action, 0)
                        .unwrap_or_else(|e| panic!("{proto:?}: {turn:?} refused: {e}"));
                    player.accepted(turn);
                    actions += 1;
                    assert!(actions < 300, "{proto:?}: the game does not end");
                }
                assert!(
                    player.next(&view(1, &server)).is_none(),
                    "nobody acts after the end"
                );
            }
        }
    }

    #[test]
    fn a_move_it_did_not_see_accepted_is_read_from_the_view() {
        let mut player = RandomGomoku::new(pb::RuleSet::RenjuLose, 2, 7).unwrap();
        let mut server = server_game(RuleSet::Renju(gomoku_rules::ForbiddenPolicy::Lose), 0);
        for _ in 0..6 {
            let turn = player.next(&view(1, &server)).unwrap();
            server.act(turn.seat, turn.action, 0).unwrap();
            // The answer is lost: the player is not told.
        }
        let turn = player.next(&view(1, &server)).unwrap();
        assert!(server.act(turn.seat, turn.action, 0).is_ok(), "{turn:?}");
    }

    #[test]
    fn a_new_game_starts_a_new_copy() {
        let mut player = RandomGomoku::new(pb::RuleSet::Freestyle, 1, 3).unwrap();
        let first = server_game(RuleSet::Freestyle, 0);
        let turn = player.next(&view(1, &first)).unwrap();
        assert_eq!(turn.seat, Seat::new(0).unwrap());
        player.accepted(turn);
        // Game 2 has black on seat 1 and an empty board.
        let second = server_game(RuleSet::Freestyle, 1);
        let turn = player.next(&view(2, &second)).unwrap();
        assert_eq!(
            turn,
            Turn {
                seat: Seat::new(1).unwrap(),
                action: Action::Place(Point::CENTER),
            }
        );
    }

    #[test]
    fn a_swap_room_game_it_did_not_follow_is_sat_out() {
        let mut server = server_game(RuleSet::RenjuSwap, 0);
        let mut other = RandomGomoku::new(pb::RuleSet::RenjuSwap, 2, 1).unwrap();
        for _ in 0..2 {
            let turn = other.next(&view(1, &server)).unwrap();
            server.act(turn.seat, turn.action, 0).unwrap();
            other.accepted(turn);
        }
        let mut late = RandomGomoku::new(pb::RuleSet::RenjuSwap, 2, 1).unwrap();
        assert_eq!(late.next(&view(1, &server)), None);
    }
}
