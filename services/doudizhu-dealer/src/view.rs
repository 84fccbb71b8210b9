//! What the API shows, built from the table: the table as a viewer sees it, the
//! table's events as the API's `TableEvent`s, deal results and records. The only place
//! that turns the table's state and events into protobuf; pure functions, no I/O.
//!
//! Every view goes through [`table_view`], which starts from the crate's [`SeatView`]
//! (exactly what a seat may know) and drops the hand for a spectator: nothing else about
//! any hand is ever read here. An event's audience is the table's
//! ([`crate::table::TableEvent::audience`]); the store keeps a seat's events to it.

use doudizhu_rules::{
    Actor, AuctionCall, BombClass, Card, CardSet, Combination, Decision, EventBody, Kind, Outcome,
    Phase, PlayView, Rank, RankCounts, RuleSet, Seat, SeatCall, SeatDouble, SeatView, Settlement,
};
use gamehub_proto::common::{PlayerProfile, RoomStakes};
use gamehub_proto::doudizhu as pb;

use crate::record::RecordDoc;
use crate::table::{CloseReason, EventKind, SeatSettled, Stage, Stakes, Table, TableEvent};

/// Milliseconds as the API's `int64`.
pub fn unix_ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// A small count as the API's `int32`.
pub fn int(n: impl Into<u64>) -> i32 {
    i32::try_from(n.into()).unwrap_or(i32::MAX)
}

pub fn seat(seat: Seat) -> i32 {
    i32::from(seat.number())
}

fn seat_or_none(seat: Option<Seat>) -> i32 {
    seat.map_or(-1, self::seat)
}

/// Card text, one string per card, lowest first.
pub fn cards(cards: &[Card]) -> Vec<String> {
    cards.iter().map(Card::to_string).collect()
}

pub fn card_set(set: CardSet) -> Vec<String> {
    set.iter().map(|c| c.to_string()).collect()
}

/// Rank text without separators, lowest first: `334455`, `XD`.
pub fn rank_text(ranks: &RankCounts) -> String {
    ranks.iter().map(|r| r.symbol()).collect()
}

fn ranks_of(cards: &[Card]) -> String {
    let set: CardSet = cards.iter().copied().collect();
    rank_text(&set.rank_counts())
}

pub fn stakes(stakes: &Stakes) -> RoomStakes {
    stakes.to_proto()
}

/// How a seat's player is shown; `bot` for a seat the platform's bot plays.
pub fn profile(profile: &crate::table::Profile, bot: bool) -> PlayerProfile {
    PlayerProfile {
        name: profile.name.clone(),
        title: profile.title.clone(),
        rating: profile.rating,
        rank_name: profile.rank_name.clone(),
        bot,
    }
}

pub fn close_reason(reason: CloseReason) -> pb::CloseReason {
    match reason {
        CloseReason::Escape => pb::CloseReason::Escape,
        CloseReason::Left => pb::CloseReason::Left,
        CloseReason::Abandoned => pb::CloseReason::Abandoned,
        CloseReason::Operator => pb::CloseReason::Operator,
    }
}

pub fn actor(actor: Actor) -> i32 {
    (match actor {
        Actor::Seat => pb::Actor::Seat,
        Actor::Timeout => pb::Actor::Timeout,
        Actor::AutoPlay => pb::Actor::AutoPlay,
    }) as i32
}

pub fn phase(phase: Phase) -> i32 {
    (match phase {
        Phase::Bidding => pb::Phase::Bidding,
        Phase::Doubling => pb::Phase::Doubling,
        Phase::Showing => pb::Phase::Showing,
        Phase::Playing => pb::Phase::Playing,
        Phase::Finished => pb::Phase::Finished,
    }) as i32
}

pub fn decision(decision: Option<Decision>) -> i32 {
    (match decision {
        None => pb::Decision::Unspecified,
        Some(Decision::Bid) => pb::Decision::Bid,
        Some(Decision::Call) => pb::Decision::Call,
        Some(Decision::Rob) => pb::Decision::Rob,
        Some(Decision::Double) => pb::Decision::Double,
        Some(Decision::Show) => pb::Decision::Show,
        Some(Decision::Play) => pb::Decision::Play,
    }) as i32
}

fn bomb_class(bomb: Option<BombClass>) -> i32 {
    (match bomb {
        None => pb::BombClass::Unspecified,
        Some(BombClass::Soft) => pb::BombClass::Soft,
        Some(BombClass::Hard) => pb::BombClass::Hard,
        Some(BombClass::Wild) => pb::BombClass::Wild,
    }) as i32
}

fn call_kind(call: AuctionCall) -> i32 {
    (match call {
        AuctionCall::Call => pb::CallKind::Call,
        AuctionCall::Decline => pb::CallKind::Decline,
        AuctionCall::Rob => pb::CallKind::Rob,
        AuctionCall::NoRob => pb::CallKind::NoRob,
    }) as i32
}

/// The calls and robs, each with who chose it (`by(i)` for the i-th).
fn seat_calls(calls: &[SeatCall], by: impl Fn(usize) -> Actor) -> Vec<pb::SeatCall> {
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| pb::SeatCall {
            seat: seat(c.seat),
            call: call_kind(c.call),
            by: actor(by(i)),
        })
        .collect()
}

fn seat_doubles(doubles: &[SeatDouble]) -> Vec<pb::SeatDouble> {
    doubles
        .iter()
        .map(|d| pb::SeatDouble {
            seat: seat(d.seat),
            double: d.double,
            by: actor(d.by),
        })
        .collect()
}

/// A rank as rank text ("3" … "2"); empty for none.
fn rank_or_empty(rank: Option<Rank>) -> String {
    rank.map(|r| r.symbol().to_string()).unwrap_or_default()
}

/// The rule set's name; empty never (classic is named).
pub fn rule_set(rule_set: RuleSet) -> String {
    rule_set.name().to_owned()
}

pub fn kind(kind: Kind) -> pb::Kind {
    match kind {
        Kind::Single => pb::Kind::Single,
        Kind::Pair => pb::Kind::Pair,
        Kind::Triple => pb::Kind::Triple,
        Kind::TripleWithSingle => pb::Kind::TripleWithSingle,
        Kind::TripleWithPair => pb::Kind::TripleWithPair,
        Kind::Straight => pb::Kind::Straight,
        Kind::PairStraight => pb::Kind::PairStraight,
        Kind::TripleStraight => pb::Kind::TripleStraight,
        Kind::AirplaneWithSingles => pb::Kind::AirplaneWithSingles,
        Kind::AirplaneWithPairs => pb::Kind::AirplaneWithPairs,
        Kind::FourWithTwoSingles => pb::Kind::FourWithTwoSingles,
        Kind::FourWithTwoPairs => pb::Kind::FourWithTwoPairs,
        Kind::Bomb => pb::Kind::Bomb,
        Kind::Rocket => pb::Kind::Rocket,
    }
}

/// A combination, with its bomb class in a laizi deal.
pub fn combination(c: &Combination, bomb: Option<BombClass>) -> pb::Combination {
    pb::Combination {
        kind: kind(c.kind) as i32,
        rank: c.rank.symbol().to_string(),
        length: i32::from(c.length),
        bomb: bomb_class(bomb),
    }
}

/// What a laizi play's cards stood for, as rank text; empty otherwise.
fn meant_text(meant: Option<&RankCounts>) -> String {
    meant.map(rank_text).unwrap_or_default()
}

pub fn turn(play: &PlayView) -> pb::Turn {
    pb::Turn {
        seat: seat(play.seat),
        cards: cards(&play.cards),
        ranks: ranks_of(&play.cards),
        combination: play.combination.as_ref().map(|c| combination(c, play.bomb)),
        by: actor(play.by),
        meant: meant_text(play.meant.as_ref()),
    }
}

fn outcome(outcome: Outcome) -> (pb::Outcome, Option<Seat>) {
    match outcome {
        Outcome::LandlordWon => (pb::Outcome::LandlordWon, None),
        Outcome::FarmersWon { seat } => (pb::Outcome::FarmersWon, Some(seat)),
        Outcome::Redeal => (pb::Outcome::Redeal, None),
        Outcome::Escaped { seat } => (pb::Outcome::Escaped, Some(seat)),
    }
}

/// A deal's result. `seed_hex` is the revealed seed; `settled` the ledger's answer.
pub fn result(
    settlement: &Settlement,
    seed_hex: String,
    settled: Option<Vec<pb::SeatSettlement>>,
    hands_left: &[Vec<Card>],
) -> pb::DealResult {
    let (outcome, seat) = outcome(settlement.outcome);
    let seat = match settlement.outcome {
        Outcome::LandlordWon => settlement.landlord,
        _ => seat,
    };
    pb::DealResult {
        outcome: outcome as i32,
        seat: seat_or_none(seat),
        points: settlement.points.to_vec(),
        bid: i32::from(settlement.bid),
        bombs: i32::from(settlement.bombs),
        rockets: i32::from(settlement.rockets),
        spring: settlement.spring,
        anti_spring: settlement.anti_spring,
        multiplier: i64::try_from(settlement.multiplier).unwrap_or(i64::MAX),
        seed: seed_hex,
        settlement: settled.unwrap_or_default(),
        settlement_adopted: false,
        hands_left: hands_left
            .iter()
            .map(|h| pb::Hand { cards: cards(h) })
            .collect(),
        rule_set: rule_set(settlement.rule_set),
        robs: i32::from(settlement.robs),
        doubled: if settlement.rule_set.calls_and_robs() {
            settlement.doubled.to_vec()
        } else {
            Vec::new()
        },
        shown: settlement.shown,
        soft_bombs: i32::from(settlement.soft_bombs),
        wild_bombs: i32::from(settlement.wild_bombs),
    }
}

pub fn seat_settlement(table: &Table, s: Seat, settled: &SeatSettled) -> pb::SeatSettlement {
    pb::SeatSettlement {
        seat: seat(s),
        player_id: table.players[s.index()].clone(),
        points_delta: settled.points_delta,
        silver_delta: settled.silver_delta,
    }
}

/// One of the table's events as the API's `TableEvent` (its `event_id` is the store's,
/// set as it is read back).
pub fn event(table: &Table, event: &TableEvent) -> pb::TableEvent {
    use pb::table_event::Kind as K;
    let kind = match &event.kind {
        EventKind::TableOpened {
            players,
            stakes: s,
            turn_ms,
        } => K::TableOpened(pb::TableOpened {
            player_ids: players.to_vec(),
            stakes: Some(stakes(s)),
            turn_time_ms: unix_ms(*turn_ms),
        }),
        EventKind::Deal(body) => event_kind(body),
        EventKind::ReadyForNextDeal { seat: s } => {
            K::ReadyForNextDeal(pb::ReadyForNextDeal { seat: seat(*s) })
        }
        EventKind::TableClosed { reason, note } => K::TableClosed(pb::TableClosed {
            reason: close_reason(*reason) as i32,
            note: note.clone(),
        }),
        EventKind::DealSettled {
            game_id,
            seats,
            adopted,
        } => K::DealSettled(pb::DealSettled {
            game_id: game_id.clone(),
            seats: Seat::ALL
                .into_iter()
                .map(|s| seat_settlement(table, s, &seats[s.index()]))
                .collect(),
            adopted: *adopted,
        }),
    };
    pb::TableEvent {
        event_id: 0,
        at_unix_ms: unix_ms(event.at_ms),
        deal_number: int(event.deal_number),
        kind: Some(kind),
    }
}

/// The API event for one of the crate's events.
pub fn event_kind(body: &EventBody) -> pb::table_event::Kind {
    use pb::table_event::Kind as K;
    match body {
        EventBody::DealStarted {
            deal_id,
            commitment,
            first_bidder,
            points_base,
        } => K::DealStarted(pb::DealStarted {
            deal_id: deal_id.clone(),
            commitment: commitment.to_hex(),
            first_bidder: seat(*first_bidder),
            points_base: i64::from(*points_base),
        }),
        EventBody::HandDealt { seat: s, cards: c } => K::HandDealt(pb::HandDealt {
            seat: seat(*s),
            cards: cards(c),
        }),
        EventBody::TurnStarted {
            seat: s,
            phase: p,
            deadline_ms,
            lead,
        } => K::TurnStarted(pb::TurnStarted {
            seat: seat(*s),
            phase: phase(*p),
            deadline_unix_ms: unix_ms(*deadline_ms),
            lead: *lead,
        }),
        EventBody::BidMade { seat: s, bid, by } => K::BidMade(pb::BidMade {
            bid: Some(pb::SeatBid {
                seat: seat(*s),
                points: i32::from(bid.points()),
                by: actor(*by),
            }),
        }),
        EventBody::Called { seat: s, call, by } => K::Called(pb::Called {
            seat: seat(*s),
            call: *call,
            by: actor(*by),
        }),
        EventBody::Robbed { seat: s, rob, by } => K::Robbed(pb::Robbed {
            seat: seat(*s),
            rob: *rob,
            by: actor(*by),
        }),
        EventBody::LandlordChosen {
            seat: s,
            bid,
            kitty,
            robs,
        } => K::LandlordChosen(pb::LandlordChosen {
            seat: seat(*s),
            points: i32::from(bid.points()),
            kitty: cards(kitty),
            robs: i32::from(*robs),
        }),
        EventBody::WildRankDrawn { rank } => K::WildRankDrawn(pb::WildRankDrawn {
            rank: rank.symbol().to_string(),
        }),
        EventBody::Doubled {
            seat: s,
            double,
            by,
        } => K::Doubled(pb::Doubled {
            seat: seat(*s),
            double: *double,
            by: actor(*by),
        }),
        EventBody::Showed { seat: s, show, by } => K::Showed(pb::Showed {
            seat: seat(*s),
            show: *show,
            by: actor(*by),
        }),
        EventBody::HandShown { seat: s, cards: c } => K::HandShown(pb::HandShown {
            seat: seat(*s),
            cards: cards(c),
        }),
        EventBody::Played {
            seat: s,
            cards: c,
            combination: comb,
            by,
            cards_left,
            meant,
            bomb,
        } => K::Played(pb::Played {
            turn: Some(pb::Turn {
                seat: seat(*s),
                cards: cards(c),
                ranks: ranks_of(c),
                combination: Some(combination(comb, *bomb)),
                by: actor(*by),
                meant: meant_text(meant.as_ref()),
            }),
            cards_left: i32::from(*cards_left),
        }),
        EventBody::Passed { seat: s, by } => K::Passed(pb::Passed {
            seat: seat(*s),
            by: actor(*by),
        }),
        EventBody::MultiplierChanged { multiplier } => {
            K::MultiplierChanged(pb::MultiplierChanged {
                multiplier: i64::try_from(*multiplier).unwrap_or(i64::MAX),
            })
        }
        EventBody::AutoPlayChanged { seat: s, on } => K::AutoPlayChanged(pb::AutoPlayChanged {
            seat: seat(*s),
            on: *on,
        }),
        EventBody::Escaped { seat: s } => K::Escaped(pb::Escaped { seat: seat(*s) }),
        EventBody::DealEnded {
            settlement,
            seed,
            hands_left,
        } => K::DealEnded(pb::DealEnded {
            result: Some(result(settlement, seed.to_hex(), None, hands_left)),
        }),
    }
}

/// The table as the table list shows it (ListTables): only public facts (players,
/// phase, deal number, how many plays; it reads seat 0's view for the phase and the
/// plays, never a card); the store adds the ids, the opening time and the spectators. None once
/// the table is closed: it leaves the list.
pub fn summary(table: &Table) -> Option<gamehub_proto::common::TableSummary> {
    use gamehub_proto::common::{SeatedPlayer, TableSummary};
    if matches!(table.stage, Stage::Closed { .. }) {
        return None;
    }
    let view: SeatView = table.deal.view(Seat::ALL[0]);
    let phase = pb::Phase::try_from(phase(view.phase)).unwrap_or(pb::Phase::Unspecified);
    Some(TableSummary {
        players: Seat::ALL
            .into_iter()
            .map(|s| SeatedPlayer {
                player_id: table.players[s.index()].clone(),
                seat: seat(s),
                profile: Some(profile(&table.profiles[s.index()], table.is_bot(s))),
            })
            .collect(),
        in_progress: table.stage == Stage::Dealing,
        game_number: i32::try_from(table.deal_number).unwrap_or(i32::MAX),
        move_number: i32::try_from(view.turns.len()).unwrap_or(i32::MAX),
        phase: phase.as_str_name().to_owned(),
        ..TableSummary::default()
    })
}

/// The table as `viewer` sees it (`None`: a spectator), as of event `last_event_id`.
pub fn table_view(table: &Table, viewer: Option<Seat>, last_event_id: u64) -> pb::Table {
    view_of(table, viewer, last_event_id, true)
}

fn view_of(table: &Table, viewer: Option<Seat>, last_event_id: u64, with_turns: bool) -> pb::Table {
    // The crate's view is exactly what one seat may know; a spectator gets seat 0's
    // view without its hand (the only private part of a view).
    let view: SeatView = table.deal.view(viewer.unwrap_or(Seat::ALL[0]));
    let hand = match viewer {
        Some(_) => cards(&view.hand),
        None => Vec::new(),
    };
    let ready = match table.stage {
        Stage::BetweenDeals { ready, .. } => ready,
        Stage::NextDealDue { .. } => [true; 3],
        Stage::Dealing | Stage::Closed { .. } => [false; 3],
    };
    let landlord = view.landlord.map(|l| l.seat);
    let seats = Seat::ALL
        .into_iter()
        .map(|s| pb::Seat {
            profile: Some(profile(&table.profiles[s.index()], table.is_bot(s))),
            left: table.left == Some(s.index()),
            seat: seat(s),
            player_id: table.players[s.index()].clone(),
            cards_left: i32::from(view.cards_left[s.index()]),
            auto_play: view.auto_play[s.index()],
            landlord: landlord == Some(s),
            ready: ready[s.index()],
        })
        .collect();
    let (status, close) = match table.stage {
        Stage::Dealing => (pb::TableStatus::Dealing, pb::CloseReason::Unspecified),
        Stage::BetweenDeals { .. } => (pb::TableStatus::BetweenDeals, pb::CloseReason::Unspecified),
        Stage::NextDealDue { .. } => (
            pb::TableStatus::NextDealPending,
            pb::CloseReason::Unspecified,
        ),
        Stage::Closed { reason, .. } => (pb::TableStatus::Closed, close_reason(reason)),
    };
    let next_deal_deadline = match table.stage {
        Stage::BetweenDeals { until_ms, .. } => unix_ms(until_ms),
        Stage::NextDealDue { at_ms } => unix_ms(at_ms),
        Stage::Dealing | Stage::Closed { .. } => 0,
    };
    let bids = view
        .bids
        .iter()
        .enumerate()
        .map(|(i, b)| pb::SeatBid {
            seat: seat(b.seat),
            points: i32::from(b.bid.points()),
            by: actor(table.bid_actors.get(i).copied().unwrap_or_default()),
        })
        .collect();
    let result = view.settlement.as_ref().map(|s| {
        let settled = table.settled.as_ref().map(|by_seat| {
            Seat::ALL
                .into_iter()
                .map(|st| seat_settlement(table, st, &by_seat[st.index()]))
                .collect()
        });
        pb::DealResult {
            settlement_adopted: table.settled_adopted,
            ..result(
                s,
                view.seed.map(|seed| seed.to_hex()).unwrap_or_default(),
                settled,
                &table.deal.hands_left(),
            )
        }
    });
    let must_lead = view.phase == Phase::Playing && view.to_act.is_some() && view.trick.is_none();
    pb::Table {
        friends_table: table.friends_table,
        table_id: table.id.clone(),
        stakes: Some(stakes(&table.stakes)),
        turn_time_ms: unix_ms(table.time.turn_ms),
        seats,
        viewer_seat: seat_or_none(viewer),
        status: status as i32,
        close_reason: close as i32,
        deal_number: int(table.deal_number),
        deal_id: view.deal_id.clone(),
        commitment: view.commitment.to_hex(),
        phase: phase(view.phase),
        hand,
        first_bidder: seat(view.first_bidder),
        bids,
        landlord: seat_or_none(landlord),
        winning_bid: view.landlord.map_or(0, |l| i32::from(l.bid.points())),
        kitty: view.kitty.as_deref().map(cards).unwrap_or_default(),
        to_act: seat_or_none(view.to_act),
        turn_deadline_unix_ms: view.deadline_ms.map_or(0, unix_ms),
        must_lead,
        trick: view.trick.as_ref().map(turn),
        turns: if with_turns {
            view.turns.iter().map(turn).collect()
        } else {
            Vec::new()
        },
        multiplier: i64::try_from(view.multiplier).unwrap_or(i64::MAX),
        result,
        next_deal_deadline_unix_ms: next_deal_deadline,
        last_event_id: unix_ms(last_event_id),
        closed_note: table.closed_note.clone(),
        rule_set: rule_set(view.rule_set),
        decision: decision(view.decision),
        calls: seat_calls(&view.calls, |i| {
            table.bid_actors.get(i).copied().unwrap_or_default()
        }),
        robs: int(table.deal.robs()),
        doubles: seat_doubles(&view.doubles),
        shown: view.shown == Some(true),
        landlord_hand: view.landlord_hand.as_deref().map(cards).unwrap_or_default(),
        wild_rank: rank_or_empty(view.wild_rank),
    }
}

/// The view an action replies with: the actor's view without `turns` (the play
/// history, which GetTable and Watch carry), so replies stay small however long the
/// deal; `last_event_id` is set once the step is committed.
pub fn reply_view(table: &Table, seat: Seat) -> pb::Table {
    view_of(table, Some(seat), 0, false)
}

/// A finished deal's record for the API.
pub fn record(doc: &RecordDoc, json: String) -> pb::DealRecord {
    let r = &doc.record;
    let by = |i: usize| doc.bid_actors.get(i).copied().unwrap_or_default();
    pb::DealRecord {
        friends_table: doc.friends_table,
        table_id: doc.table_id.clone(),
        deal_number: int(doc.deal_number),
        deal_id: r.deal_id.clone(),
        player_ids: doc.players.to_vec(),
        seed: r.seed.to_hex(),
        commitment: r.commitment.to_hex(),
        first_bidder: seat(r.first_bidder),
        hands: r
            .hands
            .iter()
            .map(|h| pb::Hand { cards: cards(h) })
            .collect(),
        kitty: cards(&r.kitty),
        bids: r
            .bids
            .iter()
            .enumerate()
            .map(|(i, b)| pb::SeatBid {
                seat: seat(b.seat),
                points: i32::from(b.bid.points()),
                by: actor(by(i)),
            })
            .collect(),
        landlord: seat_or_none(r.landlord.map(|l| l.seat)),
        turns: r.turns.iter().map(turn).collect(),
        result: Some(result(
            &r.settlement,
            r.seed.to_hex(),
            None,
            &r.hands_left(),
        )),
        started_at_unix_ms: unix_ms(doc.started_ms),
        ended_at_unix_ms: unix_ms(doc.ended_ms),
        record_json: json,
        rule_set: rule_set(r.rules.rule_set),
        calls: seat_calls(&r.calls, by),
        doubles: seat_doubles(&r.doubles),
        shown: r.shown == Some(true),
        wild_rank: rank_or_empty(r.wild_rank),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::*;

    #[test]
    fn every_table_event_becomes_the_apis_stamped_with_its_time_and_deal() {
        let (mut table, opened) = open();
        let first = event(&table, &opened.events[0]);
        assert_eq!((first.at_unix_ms, first.deal_number), (1_000, 1));
        assert!(matches!(
            first.kind,
            Some(pb::table_event::Kind::TableOpened(ref o)) if o.player_ids == table.players && o.turn_time_ms == 20_000
        ));
        let (left, _) = table.leave(Seat::ALL[1], 2_000, TIMING).unwrap();
        let closed = event(&table, left.events.last().unwrap());
        assert!(matches!(
            closed.kind,
            Some(pb::table_event::Kind::TableClosed(ref c)) if c.reason == pb::CloseReason::Escape as i32
        ));
        let settled = table.settled(
            1,
            "dt-1:1",
            std::array::from_fn(|_| SeatSettled {
                points_delta: 0,
                silver_delta: 0,
            }),
            true,
            3_000,
        );
        let settled = event(&table, &settled.events[0]);
        let Some(pb::table_event::Kind::DealSettled(d)) = settled.kind else {
            panic!("a deal_settled event");
        };
        assert!(d.adopted);
        let names: Vec<&str> = d.seats.iter().map(|s| s.player_id.as_str()).collect();
        assert_eq!(names, ["alice", "bob", "carol"]);
    }

    #[test]
    fn every_viewer_sees_each_seats_profile_and_the_bots() {
        let (table, _) = open_with_bots(TIMING);
        for viewer in [None, Some(Seat::ALL[0]), Some(Seat::ALL[2])] {
            let view = table_view(&table, viewer, 1);
            assert!(view.friends_table);
            let shown: Vec<(String, String, bool)> = view
                .seats
                .iter()
                .map(|s| {
                    let p = s.profile.clone().unwrap();
                    (p.name, p.title, p.bot)
                })
                .collect();
            assert_eq!(
                shown,
                [
                    ("阿丽".into(), "新手".into(), false),
                    (String::new(), String::new(), true),
                    (String::new(), String::new(), true),
                ]
            );
            assert!(view.seats[1].auto_play && view.seats[2].auto_play);
        }
        let (plain, _) = open();
        let view = table_view(&plain, None, 1);
        assert!(!view.friends_table);
        assert!(
            view.seats
                .iter()
                .all(|s| s.profile == Some(PlayerProfile::default()))
        );
    }
}
