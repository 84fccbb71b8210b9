//! A bot playing one seat of a Dou Dizhu table through the public gRPC API.
//!
//! It follows the table's event stream as its seat (so it sees only what that seat may
//! see); when a turn of its own starts it reads its seat's view (`GetTable`: its hand,
//! the kitty, every turn so far, the card counts) and asks the strategy (the same bot
//! as the dealer's auto-play), whose plays come from the rule crate's legal-move
//! generator.

use std::time::Duration;

use doudizhu_rules::{Bid, BombClass, RankCounts, Reading, Seat, classify, parse_card_text};
use futures::StreamExt;
use gamehub_bots::doudizhu as strategy;
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_proto::doudizhu::{self as ddz, table_event, watch_response};

use super::{MAX_REWATCHES, pause, retry_call, transient};
use crate::api::request_id;

/// What a driver shows its observer.
#[derive(Debug)]
pub enum Update<'a> {
    /// The table as this seat sees it (first, and after a resync).
    Table(&'a ddz::Table),
    /// An event this seat may see.
    Event(&'a ddz::TableEvent),
}

/// How long a driver plays.
#[derive(Debug, Clone)]
pub struct Options {
    /// Deals to finish (redeals not counted) before leaving; 0 plays until the table closes.
    pub deals: u32,
    /// A pause before each action (so people can follow the demo).
    pub think: Duration,
}

/// How the driving ended.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Results of the deals this seat finished, in order.
    pub results: Vec<ddz::DealResult>,
    /// The ledger's settlements seen, in order.
    pub settlements: Vec<ddz::DealSettled>,
}

fn seat(number: i32) -> Option<Seat> {
    u8::try_from(number).ok().and_then(Seat::new)
}

fn hand_of(view: &ddz::Table) -> Option<RankCounts> {
    let mut cards = Vec::with_capacity(view.hand.len());
    for text in &view.hand {
        cards.extend(parse_card_text(text).ok()?);
    }
    Some(
        cards
            .into_iter()
            .collect::<doudizhu_rules::CardSet>()
            .rank_counts(),
    )
}

/// What the strategy wants for this view: a bid, a yes or no (call, rob, double,
/// show), a play (ranks, and in laizi what they stand for), or a pass.
enum Choice {
    Bid(Bid),
    Call(bool),
    Rob(bool),
    Double(bool),
    Show(bool),
    Play {
        ranks: RankCounts,
        meant: Option<RankCounts>,
    },
    Pass,
}

fn bomb_class(class: i32) -> Option<BombClass> {
    match ddz::BombClass::try_from(class).ok()? {
        ddz::BombClass::Soft => Some(BombClass::Soft),
        ddz::BombClass::Hard => Some(BombClass::Hard),
        ddz::BombClass::Wild => Some(BombClass::Wild),
        ddz::BombClass::Unspecified => None,
    }
}

/// What a turn's cards read as: their `meant` in laizi, else the cards themselves.
fn turn_ranks(turn: &ddz::Turn) -> Option<RankCounts> {
    let text = if turn.meant.is_empty() {
        &turn.ranks
    } else {
        &turn.meant
    };
    RankCounts::parse(text).ok()
}

fn choose(view: &ddz::Table, me: Seat) -> Option<Choice> {
    let hand = hand_of(view)?;
    let landlord = seat(view.landlord).filter(|_| view.landlord >= 0);
    match view.decision() {
        ddz::Decision::Bid => {
            let highest = view.bids.iter().map(|b| b.points).max().unwrap_or(0);
            let highest = match highest {
                1 => Bid::One,
                2 => Bid::Two,
                3 => Bid::Three,
                _ => Bid::Pass,
            };
            Some(Choice::Bid(strategy::bid(&hand, highest)))
        }
        ddz::Decision::Call => Some(Choice::Call(strategy::call(&hand))),
        ddz::Decision::Rob => Some(Choice::Rob(strategy::rob(&hand))),
        ddz::Decision::Double => Some(Choice::Double(strategy::double(
            &hand,
            landlord == Some(me),
            !view.wild_rank.is_empty(),
        ))),
        ddz::Decision::Show => Some(Choice::Show(strategy::show(&hand))),
        ddz::Decision::Play => {
            let landlord = landlord?;
            let trick = if view.must_lead {
                None
            } else {
                let trick = view.trick.as_ref()?;
                let reading = Reading {
                    combination: classify(&turn_ranks(trick)?)?,
                    bomb: trick.combination.as_ref().and_then(|c| bomb_class(c.bomb)),
                };
                Some((seat(trick.seat)?, reading))
            };
            let to_beat = trick.map(|(owner, reading)| (owner, reading.combination));
            let mut cards_left = [0u8; 3];
            for s in &view.seats {
                if let Ok(i) = usize::try_from(s.seat)
                    && i < 3
                {
                    cards_left[i] = u8::try_from(s.cards_left).unwrap_or(u8::MAX);
                }
            }
            let mut plays = Vec::with_capacity(view.turns.len());
            for turn in view.turns.iter().filter(|t| !t.ranks.is_empty()) {
                plays.push((seat(turn.seat)?, RankCounts::parse(&turn.ranks).ok()?));
            }
            let wild = match view.wild_rank.as_str() {
                "" => None,
                text => Some(RankCounts::parse(text).ok()?.lowest()?),
            };
            let mut kitty = Vec::with_capacity(view.kitty.len());
            for text in &view.kitty {
                kitty.extend(parse_card_text(text).ok()?);
            }
            let situation = strategy::Situation {
                seat: me,
                hand,
                landlord,
                kitty: kitty
                    .into_iter()
                    .collect::<doudizhu_rules::CardSet>()
                    .rank_counts(),
                plays,
                to_beat,
                cards_left,
            };
            let chosen = match wild {
                Some(wild) => strategy::play_wild(&situation, trick.map(|t| t.1).as_ref(), wild),
                None => strategy::play(&situation).map(doudizhu_rules::Choice::from),
            };
            Some(match chosen {
                Some(choice) => Choice::Play {
                    ranks: choice.cards,
                    meant: choice.meant,
                },
                None => Choice::Pass,
            })
        }
        ddz::Decision::Unspecified => None,
    }
}

/// Plays `table_id` for the seat the client's token holds until `options.deals` deals
/// are over (then leaves) or the table closes. A watch that fails transiently is
/// resumed after the last event seen (at most [`MAX_REWATCHES`] times), as a client
/// riding out a failover does.
pub async fn play(
    client: DoudizhuServiceClient<ServiceChannel>,
    table_id: &str,
    options: Options,
    mut observe: impl FnMut(Update<'_>),
) -> anyhow::Result<Outcome> {
    // The watch, resumed after the last event seen when it fails transiently.
    let open = |after_event_id: i64| {
        let request = ddz::WatchRequest {
            table_id: table_id.to_owned(),
            after_event_id,
            as_spectator: false,
        };
        retry_call!(client, watch, request)
    };
    let mut stream = open(0).await?;
    let (mut last_event, mut rewatches) = (0i64, 0u32);
    let mut me: Option<Seat> = None;
    let mut outcome = Outcome::default();
    let mut finished = 0u32;
    let mut leaving_after: Option<String> = None;
    let mut acted_at_event: i64 = -1;
    while let Some(item) = stream.next().await {
        let item = match item {
            Ok(item) => item,
            Err(status) if transient(&status) && rewatches < MAX_REWATCHES => {
                pause(&status, rewatches).await;
                rewatches += 1;
                stream = open(last_event).await?;
                continue;
            }
            Err(status) => return Err(status.into()),
        };
        // Whether this item may have started a turn of ours.
        let mut my_turn_maybe = false;
        match item.item {
            Some(watch_response::Item::Snapshot(view)) => {
                last_event = view.last_event_id;
                me = seat(view.viewer_seat);
                if me.is_none() {
                    anyhow::bail!("this token's player does not sit at table {table_id}");
                }
                observe(Update::Table(&view));
                my_turn_maybe = true;
            }
            Some(watch_response::Item::Event(event)) => {
                last_event = event.event_id;
                observe(Update::Event(&event));
                use table_event::Kind;
                match &event.kind {
                    Some(Kind::TurnStarted(turn)) => {
                        my_turn_maybe = me.is_some_and(|m| i32::from(m.number()) == turn.seat);
                    }
                    Some(Kind::DealEnded(ended)) => {
                        let result = ended.result.clone().unwrap_or_default();
                        if result.outcome() != ddz::Outcome::Redeal {
                            finished += 1;
                            outcome.results.push(result);
                            if options.deals > 0 && finished >= options.deals {
                                leaving_after = Some(format!("{table_id}:{}", event.deal_number));
                            } else {
                                let next = ddz::NextDealRequest {
                                    table_id: table_id.to_owned(),
                                    request_id: request_id(),
                                };
                                retry_call!(client, next_deal, next).await?;
                            }
                        }
                    }
                    Some(Kind::DealSettled(settled)) => {
                        outcome.settlements.push(settled.clone());
                        if leaving_after.as_deref() == Some(settled.game_id.as_str()) {
                            leave(&client, table_id).await?;
                            return Ok(outcome);
                        }
                    }
                    Some(Kind::TableClosed(_)) => return Ok(outcome),
                    _ => {}
                }
            }
            None => {}
        }
        let Some(me) = me else { continue };
        if !my_turn_maybe {
            continue;
        }
        let get = ddz::GetTableRequest {
            table_id: table_id.to_owned(),
            as_spectator: false,
        };
        let view = retry_call!(client, get_table, get)
            .await?
            .table
            .ok_or_else(|| anyhow::anyhow!("the dealer returned no table"))?;
        if view.to_act != i32::from(me.number()) || view.last_event_id == acted_at_event {
            continue;
        }
        let Some(choice) = choose(&view, me) else {
            continue;
        };
        acted_at_event = view.last_event_id;
        if !options.think.is_zero() {
            tokio::time::sleep(options.think).await;
        }
        if let Err(status) = send(&client, table_id, choice).await {
            if status.code() != tonic::Code::FailedPrecondition {
                return Err(status.into());
            }
            tracing::info!(%status, "action refused");
        }
    }
    Ok(outcome)
}

/// Sends the strategy's choice, retrying transient failures with the same request id.
async fn send(
    client: &DoudizhuServiceClient<ServiceChannel>,
    table_id: &str,
    choice: Choice,
) -> Result<(), tonic::Status> {
    let table_id = table_id.to_owned();
    let request_id = request_id();
    match choice {
        Choice::Bid(bid) => {
            let request = ddz::BidRequest {
                table_id,
                request_id,
                points: i32::from(bid.points()),
            };
            retry_call!(client, bid, request).await?;
        }
        Choice::Call(call) => {
            let request = ddz::CallRequest {
                table_id,
                request_id,
                call,
            };
            retry_call!(client, call, request).await?;
        }
        Choice::Rob(rob) => {
            let request = ddz::RobRequest {
                table_id,
                request_id,
                rob,
            };
            retry_call!(client, rob, request).await?;
        }
        Choice::Double(double) => {
            let request = ddz::DoubleRequest {
                table_id,
                request_id,
                double,
            };
            retry_call!(client, double, request).await?;
        }
        Choice::Show(show) => {
            let request = ddz::ShowRequest {
                table_id,
                request_id,
                show,
            };
            retry_call!(client, show, request).await?;
        }
        Choice::Play { ranks, meant } => {
            let request = ddz::PlayRequest {
                table_id,
                request_id,
                ranks: ranks.to_string().replace(' ', ""),
                cards: Vec::new(),
                meant: meant
                    .map(|m| m.to_string().replace(' ', ""))
                    .unwrap_or_default(),
            };
            retry_call!(client, play, request).await?;
        }
        Choice::Pass => {
            let request = ddz::PassRequest {
                table_id,
                request_id,
            };
            retry_call!(client, pass, request).await?;
        }
    }
    Ok(())
}

/// Leaves the table; a table another seat already closed is fine.
async fn leave(
    client: &DoudizhuServiceClient<ServiceChannel>,
    table_id: &str,
) -> Result<(), tonic::Status> {
    let request = ddz::LeaveRequest {
        player_id: String::new(),
        table_id: table_id.to_owned(),
        request_id: request_id(),
    };
    super::left(retry_call!(client, leave, request).await)
}
