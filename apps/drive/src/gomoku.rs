//! A bot playing one seat of a Gomoku table through the public gRPC API.
//!
//! It follows the table's event stream from the table's first event and replays every
//! event on a local copy of the game (`gomoku_rules::Game`), so the strategy sees the
//! whole game, swap-room opening included, and the rules are only ever the rule
//! crate's. When the copy says it is this seat's turn, it asks the strategy and sends
//! the action; the server's answer arrives as the next events.

use std::time::Duration;

use futures::StreamExt;
use gamehub_bots::gomoku as strategy;
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gamehub_proto::gomoku::{self as gm, table_event, watch_response};
use gomoku_rules::{Action, Game, GameConfig, Point, RuleSet, Seat, TimeControl};
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::retry_call;
use crate::api::request_id;

/// What a driver shows its observer.
#[derive(Debug)]
pub enum Update<'a> {
    /// The table as first seen.
    Table(&'a gm::Table),
    /// An event of the table.
    Event(&'a gm::TableEvent),
}

/// How long a driver plays.
#[derive(Debug, Clone)]
pub struct Options {
    /// Games to play before leaving the table; 0 plays until the table closes.
    pub games: u32,
    /// A pause before each move (so people can follow the demo).
    pub think: Duration,
    /// Seed of the strategy's tie-breaks.
    pub seed: u64,
}

/// How the driving ended.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Results of the games this seat finished, in order.
    pub results: Vec<gm::GameResult>,
    /// The ledger's settlements seen, in order.
    pub settlements: Vec<gm::GameSettled>,
}

/// Maps the API's rule set to the rule crate's.
pub fn rule_set(proto: gm::RuleSet) -> Option<RuleSet> {
    gamehub_terms::rule_sets::gomoku_from_proto(proto as i32)
}

fn point(p: Option<&gm::Point>) -> Option<Point> {
    let p = p?;
    if p.text.is_empty() {
        Point::from_xy(i64::from(p.x), i64::from(p.y)).ok()
    } else {
        Point::parse(&p.text).ok()
    }
}

fn seat(number: i32) -> Option<Seat> {
    u8::try_from(number).ok().and_then(Seat::new)
}

/// A point as the API takes it.
pub fn api_point(p: Point) -> gm::Point {
    gm::Point {
        text: p.to_string(),
        x: i32::from(p.x()),
        y: i32::from(p.y()),
    }
}

/// The local copy of the current game.
struct Mirror {
    rule_set: RuleSet,
    game: Option<Game>,
}

impl Mirror {
    fn start(&mut self, black_seat: i32) {
        self.game = seat(black_seat).map(|black_seat| {
            Game::new(
                GameConfig {
                    rule_set: self.rule_set,
                    time_control: TimeControl {
                        per_move_ms: 0,
                        total_ms: 0,
                    },
                    black_seat,
                },
                0,
            )
        });
    }

    /// Replays one event; a copy that cannot follow is dropped (the seat then sits out
    /// the game rather than guess).
    fn apply(&mut self, event: &gm::TableEvent) {
        use table_event::Kind;
        let Some(kind) = &event.kind else { return };
        if let Kind::GameStarted(started) = kind {
            self.start(started.black_seat);
            return;
        }
        let Some(game) = self.game.as_mut() else {
            return;
        };
        let action = match kind {
            Kind::StonePlaced(placed) => {
                let Some(p) = point(placed.stone.as_ref().and_then(|s| s.point.as_ref())) else {
                    return;
                };
                if !game.board().is_empty(p) {
                    return; // the chosen fifth move, already placed by FifthChosen
                }
                seat(placed.seat).map(|s| (s, Action::Place(p)))
            }
            Kind::ForbiddenClaimUpheld(c) => seat(c.seat).map(|s| (s, Action::ClaimForbidden)),
            Kind::ForbiddenClaimRejected(c) => seat(c.seat).map(|s| (s, Action::ClaimForbidden)),
            Kind::DrawOffered(d) => seat(d.seat).map(|s| (s, Action::OfferDraw)),
            Kind::DrawDeclined(d) => seat(d.seat).map(|s| (s, Action::DeclineDraw)),
            Kind::Swapped(s) => seat(s.seat).map(|s| (s, Action::Swap)),
            Kind::FifthProposed(f) => match (
                seat(f.seat),
                point(f.points.first()),
                point(f.points.get(1)),
            ) {
                (Some(s), Some(a), Some(b)) => Some((s, Action::ProposeFifth(a, b))),
                _ => None,
            },
            Kind::FifthChosen(f) => match (seat(f.seat), point(f.point.as_ref())) {
                (Some(s), Some(p)) => Some((s, Action::ChooseFifth(p))),
                _ => None,
            },
            Kind::GameOver(_) | Kind::PlayerLeft(_) | Kind::TableClosed(_) => {
                self.game = None;
                return;
            }
            _ => return,
        };
        let Some((by, action)) = action else { return };
        if let Err(e) = game.act(by, action, 0) {
            tracing::warn!(error = %e, "local copy of the game diverged; sitting this game out");
            self.game = None;
        }
    }
}

/// Plays `table_id` for the seat the client's token holds until `options.games` games
/// are over (then leaves) or the table closes.
pub async fn play(
    client: GomokuServiceClient<ServiceChannel>,
    table_id: &str,
    options: Options,
    mut observe: impl FnMut(Update<'_>),
) -> anyhow::Result<Outcome> {
    let get = gm::GetTableRequest {
        table_id: table_id.to_owned(),
    };
    let table = retry_call!(client, get_table, get)
        .await?
        .table
        .ok_or_else(|| anyhow::anyhow!("the referee returned no table"))?;
    let me = table
        .your_seat
        .and_then(seat)
        .ok_or_else(|| anyhow::anyhow!("this token's player does not sit at table {table_id}"))?;
    let rules = rule_set(table.rule_set())
        .ok_or_else(|| anyhow::anyhow!("table {table_id} has no rule set"))?;
    observe(Update::Table(&table));

    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut mirror = Mirror {
        rule_set: rules,
        game: None,
    };
    let mut outcome = Outcome::default();
    let mut finished_games = 0u32;
    let mut leaving_after: Option<i32> = None;
    // Replay the table from its first event (id 1, the opening) so the copy has the
    // whole game; if those events were trimmed the server sends a snapshot instead.
    // A watch that fails transiently is resumed after the last event seen.
    let open = |after_event_id: u64| {
        let request = gm::WatchRequest {
            table_id: table_id.to_owned(),
            after_event_id,
        };
        retry_call!(client, watch, request)
    };
    let mut stream = open(1).await?;
    let (mut last_event, mut rewatches) = (1u64, 0u32);
    let mut applied = 0u64;
    let mut acted_at = u64::MAX;
    while let Some(item) = stream.next().await {
        let item = match item {
            Ok(item) => item,
            Err(status) if super::transient(&status) && rewatches < super::MAX_REWATCHES => {
                super::pause(&status, rewatches).await;
                rewatches += 1;
                stream = open(last_event).await?;
                continue;
            }
            Err(status) => return Err(status.into()),
        };
        match item.item {
            Some(watch_response::Item::Table(snapshot)) => {
                last_event = snapshot.last_event_id;
                let game = snapshot.game.clone().unwrap_or_default();
                if game.stones.is_empty() && game.phase() == gm::Phase::Play {
                    mirror.start(game.black_seat);
                } else {
                    tracing::warn!(
                        table_id,
                        "joined mid-game without its history; waiting for the next game"
                    );
                    mirror.game = None;
                }
                observe(Update::Table(&snapshot));
            }
            Some(watch_response::Item::Event(event)) => {
                last_event = event.event_id;
                mirror.apply(&event);
                applied += 1;
                observe(Update::Event(&event));
                match &event.kind {
                    Some(table_event::Kind::GameOver(over)) => {
                        finished_games += 1;
                        if let Some(result) = &over.result {
                            outcome.results.push(result.clone());
                        }
                        if options.games > 0 && finished_games >= options.games {
                            leaving_after = Some(event.game_number);
                        } else {
                            let next = gm::NextGameRequest {
                                table_id: table_id.to_owned(),
                                request_id: request_id(),
                            };
                            retry_call!(client, next_game, next).await?;
                        }
                    }
                    Some(table_event::Kind::GameSettled(settled)) => {
                        outcome.settlements.push(settled.clone());
                        if leaving_after == Some(settled.number) {
                            leave(&client, table_id).await?;
                            return Ok(outcome);
                        }
                    }
                    Some(table_event::Kind::TableClosed(_)) => return Ok(outcome),
                    _ => {}
                }
            }
            None => {}
        }
        let Some(game) = mirror.game.as_ref() else {
            continue;
        };
        if game.to_act() != Some(me) || acted_at == applied {
            continue;
        }
        let Some(action) = strategy::decide(game, me, &mut rng) else {
            continue;
        };
        acted_at = applied;
        if !options.think.is_zero() {
            tokio::time::sleep(options.think).await;
        }
        if let Err(status) = send(&client, table_id, action).await {
            // The server refused (e.g. the clock ran out first): the events say what
            // happened; anything else is a real failure.
            if status.code() != tonic::Code::FailedPrecondition {
                return Err(status.into());
            }
            tracing::info!(table_id, %status, "move refused");
        }
    }
    Ok(outcome)
}

/// Sends the strategy's action, retrying transient failures with the same request id.
async fn send(
    client: &GomokuServiceClient<ServiceChannel>,
    table_id: &str,
    action: Action,
) -> Result<(), tonic::Status> {
    let table_id = table_id.to_owned();
    let request_id = request_id();
    match action {
        Action::Place(p) => {
            let request = gm::PlaceStoneRequest {
                table_id,
                request_id,
                point: Some(api_point(p)),
                known_stones: 0,
                known_game: 0,
            };
            retry_call!(client, place_stone, request).await?;
        }
        Action::ClaimForbidden => {
            let request = gm::ClaimForbiddenRequest {
                table_id,
                request_id,
            };
            retry_call!(client, claim_forbidden, request).await?;
        }
        Action::Swap => {
            let request = gm::SwapRequest {
                table_id,
                request_id,
            };
            retry_call!(client, swap, request).await?;
        }
        Action::ProposeFifth(a, b) => {
            let request = gm::ProposeFifthMovesRequest {
                table_id,
                request_id,
                points: vec![api_point(a), api_point(b)],
            };
            retry_call!(client, propose_fifth_moves, request).await?;
        }
        Action::ChooseFifth(p) => {
            let request = gm::ChooseFifthMoveRequest {
                table_id,
                request_id,
                point: Some(api_point(p)),
            };
            retry_call!(client, choose_fifth_move, request).await?;
        }
        Action::AcceptDraw | Action::DeclineDraw => {
            let request = gm::AnswerDrawRequest {
                table_id,
                request_id,
                accept: action == Action::AcceptDraw,
            };
            retry_call!(client, answer_draw, request).await?;
        }
        Action::OfferDraw => {
            let request = gm::OfferDrawRequest {
                table_id,
                request_id,
            };
            retry_call!(client, offer_draw, request).await?;
        }
        Action::Resign => {
            let request = gm::ResignRequest {
                table_id,
                request_id,
            };
            retry_call!(client, resign, request).await?;
        }
        Action::Escape | Action::Timeout => {}
    }
    Ok(())
}

/// Leaves the table; a table another seat already closed is fine.
async fn leave(
    client: &GomokuServiceClient<ServiceChannel>,
    table_id: &str,
) -> Result<(), tonic::Status> {
    let request = gm::LeaveRequest {
        player_id: String::new(),
        table_id: table_id.to_owned(),
        request_id: request_id(),
    };
    super::left(retry_call!(client, leave, request).await)
}
