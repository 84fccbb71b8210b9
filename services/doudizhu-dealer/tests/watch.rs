//! Watching and secrecy.
//!
//! The secrecy test plays many random deals through the API at several tables at once,
//! with every seat and a spectator watching, and scans every byte each of them receives
//! (views, action replies, hints, stream events, error messages) for the encoding of a
//! card it may not know at that point: another seat's unplayed card or the unrevealed
//! kitty. What each may know is rebuilt afterwards from the public record (the seed
//! revealed at the end of each deal deals every hand). A card is found as its protobuf
//! encoding (a two-byte length-delimited string, `02 'S' '3'`); the scanner is shown to
//! find a seat's own hand in what it receives, and to flag a record read too early, so
//! the test cannot pass by finding nothing. The tables play every rule set: in `rob` and
//! `laizi` a landlord that shows its hand (明牌) makes its cards knowable to all from the
//! `hand_shown` event on, and nothing else.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use doudizhu_rules::{CardSet, Seed};
use futures::StreamExt;
use gamehub_platform::auth::Role;
use gamehub_proto::doudizhu as pb;
use gamehub_testkit::resume::{Resumed, Seen, resume_repeatedly};
use prost::Message;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Who received something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Who {
    Seat(usize),
    Spectator,
}

/// One thing received: by whom, of which deal, as of which event, its bytes.
#[derive(Debug, Clone)]
struct Received {
    table: String,
    who: Who,
    deal: i32,
    /// The last event the item includes (for hints and errors: the last event the
    /// receiver had seen before asking, which only makes the check stricter).
    position: i64,
    bytes: Vec<u8>,
    what: &'static str,
}

type Log = Arc<Mutex<Vec<Received>>>;

fn log(
    log: &Log,
    table: &str,
    who: Who,
    deal: i32,
    position: i64,
    bytes: Vec<u8>,
    what: &'static str,
) {
    log.lock().unwrap().push(Received {
        table: table.to_owned(),
        who,
        deal,
        position,
        bytes,
        what,
    });
}

/// The cards whose encoding appears in `bytes`.
fn cards_in(bytes: &[u8], among: CardSet) -> CardSet {
    among
        .iter()
        .filter(|card| {
            let text = card.to_string();
            let pattern = [&[2u8][..], text.as_bytes()].concat();
            bytes.windows(3).any(|w| w == pattern.as_slice())
        })
        .collect()
}

/// What the public record says about one deal.
#[derive(Debug, Default, Clone)]
struct DealFacts {
    seed: Option<Seed>,
    landlord_chosen: Option<i64>,
    ended: Option<i64>,
    plays: Vec<(i64, CardSet)>,
    /// The landlord showed its hand (明牌): when, and the cards shown.
    shown: Option<(i64, CardSet)>,
}

impl DealFacts {
    /// What `who` may know as of event `position`.
    fn knowable(&self, who: Who, position: i64) -> CardSet {
        let dealt =
            doudizhu_rules::deal(&self.seed.expect("every deal ended with its seed revealed"));
        if self.ended.is_some_and(|e| e <= position) {
            return CardSet::DECK;
        }
        let mut known = match who {
            Who::Seat(s) => dealt.hands[s],
            Who::Spectator => CardSet::EMPTY,
        };
        if self.landlord_chosen.is_some_and(|e| e <= position) {
            known = known.union(dealt.kitty);
        }
        if let Some((id, cards)) = self.shown
            && id <= position
        {
            known = known.union(cards);
        }
        for (id, cards) in &self.plays {
            if *id <= position {
                known = known.union(*cards);
            }
        }
        known
    }
}

/// Builds each deal's facts from a spectator's complete event stream.
fn facts(events: &[pb::TableEvent]) -> HashMap<i32, DealFacts> {
    use pb::table_event::Kind as K;
    let mut deals: HashMap<i32, DealFacts> = HashMap::new();
    for event in events {
        let facts = deals.entry(event.deal_number).or_default();
        match event.kind.as_ref().unwrap() {
            K::HandDealt(_) => panic!("a spectator received a hand"),
            K::LandlordChosen(_) => facts.landlord_chosen = Some(event.event_id),
            K::HandShown(shown) => facts.shown = Some((event.event_id, cards_of(&shown.cards))),
            K::Played(played) => facts.plays.push((
                event.event_id,
                cards_of(&played.turn.as_ref().unwrap().cards),
            )),
            K::DealEnded(ended) => {
                facts.ended = Some(event.event_id);
                facts.seed = Some(Seed::from_hex(&ended.result.as_ref().unwrap().seed).unwrap());
            }
            _ => {}
        }
    }
    deals
}

/// Waits until `count` watchers have their first item (the snapshot of a fresh table),
/// so none misses an event of the play that follows.
async fn watching(received: &Log, count: usize) {
    eventually(
        "every watcher has its snapshot",
        Duration::from_secs(10),
        || async {
            let snapshots = received
                .lock()
                .unwrap()
                .iter()
                .filter(|r| r.what == "snapshot")
                .count();
            (snapshots >= count).then_some(())
        },
    )
    .await;
}

/// Waits until each of `whos` has received, at each of `tables` (table id, last event
/// id), everything up to that event.
async fn caught_up(received: &Log, tables: &[(String, i64)], whos: &[Who]) {
    eventually(
        "every watcher caught up",
        Duration::from_secs(10),
        || async {
            let received = received.lock().unwrap();
            let all = tables.iter().all(|(table, last)| {
                whos.iter().all(|who| {
                    received.iter().any(|r| {
                        (r.what == "event" || r.what == "snapshot")
                            && &r.table == table
                            && r.who == *who
                            && r.position >= *last
                    })
                })
            });
            all.then_some(())
        },
    )
    .await;
}

/// Follows a table as `client` until `done` and quiet, logging everything received.
fn spawn_watcher(
    mut client: Dz,
    table_id: String,
    who: Who,
    received: Log,
    events: Arc<Mutex<Vec<pb::TableEvent>>>,
    done: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut stream = client
            .watch(pb::WatchRequest {
                table_id: table_id.clone(),
                after_event_id: 0,
                as_spectator: false,
            })
            .await
            .unwrap()
            .into_inner();
        loop {
            match tokio::time::timeout(Duration::from_millis(700), stream.next()).await {
                Ok(Some(Ok(item))) => {
                    let bytes = item.encode_to_vec();
                    match item.item.unwrap() {
                        pb::watch_response::Item::Snapshot(view) => log(
                            &received,
                            &table_id,
                            who,
                            view.deal_number,
                            view.last_event_id,
                            bytes,
                            "snapshot",
                        ),
                        pb::watch_response::Item::Event(event) => {
                            log(
                                &received,
                                &table_id,
                                who,
                                event.deal_number,
                                event.event_id,
                                bytes,
                                "event",
                            );
                            events.lock().unwrap().push(event);
                        }
                    }
                }
                Ok(other) => panic!("watch ended: {other:?}"),
                Err(_) if done.load(Ordering::SeqCst) => return,
                Err(_) => {}
            }
        }
    })
}

/// Plays `deals` random deals at one table, logging every reply and refusal.
async fn play_randomly(world: &World, driver: &Driver, deals: i32, seed: u64, received: Log) {
    let mut rng = StdRng::seed_from_u64(seed);
    let table = driver.table_id.clone();
    let mut service = world.service();
    let mut actions = 0;
    loop {
        let view = driver.view(0).await;
        if view.phase == pb::Phase::Finished as i32 {
            if view.deal_number >= deals {
                break;
            }
            for s in 0..3 {
                let reply = driver.next_deal(s).await.unwrap();
                log(
                    &received,
                    &table,
                    Who::Seat(s),
                    reply.deal_number,
                    reply.last_event_id,
                    reply.encode_to_vec(),
                    "next_deal",
                );
            }
            continue;
        }
        let s = seat(view.to_act);
        let own = driver.view(s).await;
        if own.deal_number != view.deal_number || own.to_act != view.to_act {
            continue; // the server moved for an auto-play seat in between
        }
        let (deal, position) = (own.deal_number, own.last_event_id);
        log(
            &received,
            &table,
            Who::Seat(s),
            deal,
            position,
            own.encode_to_vec(),
            "view",
        );
        actions += 1;
        if actions % 7 == 0 {
            let spectator = service
                .get_table(pb::GetTableRequest {
                    table_id: table.clone(),
                    as_spectator: false,
                })
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap();
            log(
                &received,
                &table,
                Who::Spectator,
                spectator.deal_number,
                spectator.last_event_id,
                spectator.encode_to_vec(),
                "service view",
            );
        }
        let decision = pb::Decision::try_from(own.decision).unwrap();
        let reply = if decision == pb::Decision::Bid {
            driver.bid(s, rng.random_range(0..=3)).await
        } else if decision == pb::Decision::Call {
            driver.call(s, rng.random_bool(0.5)).await
        } else if decision == pb::Decision::Rob {
            driver.rob(s, rng.random_bool(0.3)).await
        } else if decision == pb::Decision::Double {
            driver.double(s, rng.random_bool(0.3)).await
        } else if decision == pb::Decision::Show {
            driver.show(s, rng.random_bool(0.6)).await
        } else {
            let hints = driver.hint(s).await.unwrap();
            log(
                &received,
                &table,
                Who::Seat(s),
                deal,
                position,
                hints.encode_to_vec(),
                "hint",
            );
            if rng.random_bool(0.05) {
                // A card this seat does not hold: maybe another seat's.
                let hand = cards_of(&own.hand);
                let stranger = CardSet::DECK
                    .difference(hand)
                    .iter()
                    .nth(rng.random_range(0..(54 - hand.len())))
                    .unwrap();
                driver.play_cards(s, &[&stranger.to_string()]).await
            } else if rng.random_bool(0.02) {
                driver
                    .client(s)
                    .set_auto_play(pb::SetAutoPlayRequest {
                        table_id: table.clone(),
                        request_id: rid(),
                        on: true,
                    })
                    .await
                    .map(|r| r.into_inner().table.unwrap())
            } else if hints.plays.is_empty() || (hints.can_pass && rng.random_bool(0.35)) {
                driver.pass(s).await
            } else {
                let play = &hints.plays[rng.random_range(0..hints.plays.len())];
                driver.play_meant(s, &play.ranks, &play.meant).await
            }
        };
        match reply {
            Ok(table_view) => log(
                &received,
                &table,
                Who::Seat(s),
                table_view.deal_number,
                table_view.last_event_id,
                table_view.encode_to_vec(),
                "reply",
            ),
            Err(status) => log(
                &received,
                &table,
                Who::Seat(s),
                deal,
                position,
                status.message().as_bytes().to_vec(),
                "error",
            ),
        }
    }
}

/// Card text as it would appear in an error message (a whole word).
fn cards_named(message: &[u8], among: CardSet) -> CardSet {
    let text = String::from_utf8_lossy(message);
    let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    among
        .iter()
        .filter(|card| words.contains(&card.to_string().as_str()))
        .collect()
}

#[tokio::test]
async fn random_deals_leak_no_hidden_card_to_any_seat_or_spectator() {
    const TABLES: u64 = 5;
    const DEALS: i32 = 3;
    let world = World::start().await;
    let received: Log = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let mut drivers = Vec::new();
    let mut watchers = Vec::new();
    let mut spectator_events = Vec::new();
    for t in 0..TABLES {
        let rule_set = ["", "rob", "laizi"][t as usize % 3];
        let players = world.players().await;
        let driver = world.open_rule_set(players, rule_set, &[], 0).await;
        for s in 0..3 {
            watchers.push(spawn_watcher(
                driver.client(s),
                driver.table_id.clone(),
                Who::Seat(s),
                received.clone(),
                Arc::default(),
                done.clone(),
            ));
        }
        let events: Arc<Mutex<Vec<pb::TableEvent>>> = Arc::default();
        let spectator = world.dz(&format!("spectator-{t}"), Role::Player);
        watchers.push(spawn_watcher(
            spectator,
            driver.table_id.clone(),
            Who::Spectator,
            received.clone(),
            events.clone(),
            done.clone(),
        ));
        spectator_events.push(events);
        drivers.push(driver);
    }
    watching(&received, watchers.len()).await;
    futures::future::join_all(
        drivers
            .iter()
            .enumerate()
            .map(|(t, driver)| play_randomly(&world, driver, DEALS, t as u64, received.clone())),
    )
    .await;

    // Records of finished deals (everything is revealed by then): the negative control.
    let mut records = Vec::new();
    for driver in &drivers {
        let view = driver.view(0).await;
        let record = driver
            .client(0)
            .get_deal_record(pb::GetDealRecordRequest {
                table_id: driver.table_id.clone(),
                deal_number: view.deal_number,
            })
            .await
            .unwrap()
            .into_inner();
        records.push((
            driver.table_id.clone(),
            view.deal_number,
            record.encode_to_vec(),
        ));
    }
    let mut last_events = Vec::new();
    for driver in &drivers {
        last_events.push((driver.table_id.clone(), driver.view(0).await.last_event_id));
    }
    let everyone = [Who::Seat(0), Who::Seat(1), Who::Seat(2), Who::Spectator];
    caught_up(&received, &last_events, &everyone).await;
    done.store(true, Ordering::SeqCst);
    for watcher in watchers {
        watcher.await.unwrap();
    }

    let mut facts_by_table = HashMap::new();
    for (driver, events) in drivers.iter().zip(&spectator_events) {
        facts_by_table.insert(driver.table_id.clone(), facts(&events.lock().unwrap()));
    }
    let received = received.lock().unwrap().clone();
    let mut checked_with_secrets = 0;
    let mut own_hand_found: HashMap<(String, i32, usize), bool> = HashMap::new();
    for item in &received {
        let deal = &facts_by_table[&item.table][&item.deal];
        let known = deal.knowable(item.who, item.position);
        let hidden = CardSet::DECK.difference(known);
        let leaked = if item.what == "error" {
            cards_named(&item.bytes, hidden)
        } else {
            cards_in(&item.bytes, hidden)
        };
        assert!(
            leaked.is_empty(),
            "{:?} at table {} deal {} received {} that it may not know in a {}",
            item.who,
            item.table,
            item.deal,
            leaked,
            item.what
        );
        if !hidden.is_empty() {
            checked_with_secrets += 1;
        }
        if let Who::Seat(s) = item.who {
            let hand = doudizhu_rules::deal(&deal.seed.unwrap()).hands[s];
            if cards_in(&item.bytes, hand) == hand {
                own_hand_found.insert((item.table.clone(), item.deal, s), true);
            }
        }
    }
    // Not vacuous: many items were checked while cards were hidden, every seat's own
    // dealt hand was found in what it received for every deal, and a record read before
    // the end would have been flagged.
    let deals: usize = facts_by_table.values().map(HashMap::len).sum();
    assert!(deals >= (TABLES as usize) * DEALS as usize, "{deals} deals");
    let shown = facts_by_table
        .values()
        .flat_map(HashMap::values)
        .filter(|facts| facts.shown.is_some())
        .count();
    assert!(shown > 0, "some landlord showed its hand");
    assert!(
        checked_with_secrets > 1000,
        "only {checked_with_secrets} items checked"
    );
    assert_eq!(
        own_hand_found.len(),
        deals * 3,
        "every seat's hand was found in every deal"
    );
    for (table, deal, bytes) in records {
        let facts = &facts_by_table[&table][&deal];
        let before_the_end = facts.landlord_chosen.unwrap_or(1) - 1;
        for s in 0..3 {
            let hidden = CardSet::DECK.difference(facts.knowable(Who::Seat(s), before_the_end));
            assert!(
                !cards_in(&bytes, hidden).is_empty(),
                "the scanner finds hidden cards in a record"
            );
        }
    }
    world.finish().await;
}

#[tokio::test]
async fn a_watcher_that_resumes_misses_nothing_and_sees_nothing_twice() {
    let world = World::start().await;
    let driver = world.open(&[find_seed(33, |_| true)], 0).await;
    let reference: Arc<Mutex<Vec<pb::TableEvent>>> = Arc::default();
    let spectator_events: Arc<Mutex<Vec<pb::TableEvent>>> = Arc::default();
    let received: Log = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let full = spawn_watcher(
        driver.client(1),
        driver.table_id.clone(),
        Who::Seat(1),
        received.clone(),
        reference.clone(),
        done.clone(),
    );
    let spectator = spawn_watcher(
        world.player("watcher"),
        driver.table_id.clone(),
        Who::Spectator,
        received.clone(),
        spectator_events.clone(),
        done.clone(),
    );
    watching(&received, 2).await;

    // A watcher of seat 1 that reads a few items, drops its stream and resumes.
    let mut client = driver.client(1);
    let mut stream = client
        .watch(pb::WatchRequest {
            table_id: driver.table_id.clone(),
            after_event_id: 0,
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner();
    let first = stream.next().await.unwrap().unwrap();
    let pb::watch_response::Item::Snapshot(snapshot) = first.item.unwrap() else {
        panic!("a fresh watch starts with a snapshot");
    };
    assert_eq!(snapshot.viewer_seat, 1);
    assert_eq!(snapshot.hand.len(), 17);
    let mut seen: Vec<i64> = Vec::new();
    let mut last = snapshot.last_event_id;

    let landlord = seat(snapshot.first_bidder);
    driver.make_landlord(landlord, 3).await;
    for _ in 0..3 {
        let item = stream.next().await.unwrap().unwrap();
        if let Some(pb::watch_response::Item::Event(event)) = item.item {
            seen.push(event.event_id);
            last = event.event_id;
        }
    }
    drop(stream);
    // Play on while nobody watches, then resume.
    for _ in 0..4 {
        let view = driver.view(0).await;
        let s = seat(view.to_act);
        if s == landlord {
            driver
                .play(s, &smallest(&driver.hint(s).await.unwrap()).unwrap())
                .await
                .unwrap();
        } else {
            driver.pass(s).await.unwrap();
        }
    }
    let mut stream = client
        .watch(pb::WatchRequest {
            table_id: driver.table_id.clone(),
            after_event_id: last,
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner();
    let end = driver
        .play_out(|s, _, hints| if s == landlord { smallest(hints) } else { None })
        .await;
    let final_id = driver.view(1).await.last_event_id;
    while last < final_id {
        let item = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        match item.item.unwrap() {
            pb::watch_response::Item::Event(event) => {
                seen.push(event.event_id);
                last = event.event_id;
            }
            pb::watch_response::Item::Snapshot(_) => {
                panic!("the events were still there: no snapshot expected")
            }
        }
    }
    assert_eq!(end.phase, pb::Phase::Finished as i32);
    caught_up(
        &received,
        &[(driver.table_id.clone(), final_id)],
        &[Who::Seat(1), Who::Spectator],
    )
    .await;
    done.store(true, Ordering::SeqCst);
    full.await.unwrap();
    spectator.await.unwrap();
    let reference: Vec<i64> = reference
        .lock()
        .unwrap()
        .iter()
        .map(|e| e.event_id)
        .filter(|id| *id <= final_id)
        .collect();
    assert_eq!(seen, reference, "resumed: nothing missed, nothing twice");

    // Seat 1 saw its own hand and no other; the spectator saw no hand at all.
    let own_hands: Vec<i32> = received
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.who == Who::Seat(1) && r.what == "event")
        .filter_map(
            |r| match pb::WatchResponse::decode(r.bytes.as_slice()).unwrap().item {
                Some(pb::watch_response::Item::Event(pb::TableEvent {
                    kind: Some(pb::table_event::Kind::HandDealt(hand)),
                    ..
                })) => Some(hand.seat),
                _ => None,
            },
        )
        .collect();
    assert!(own_hands.iter().all(|s| *s == 1));
    let spectated = spectator_events.lock().unwrap().clone();
    assert!(spectated.len() > 10);
    assert!(
        spectated
            .iter()
            .all(|e| !matches!(e.kind, Some(pb::table_event::Kind::HandDealt(_))))
    );
    world.finish().await;
}

/// Asks for the next deal at every seat until the table grants it (retrying what the
/// API calls retryable: UNAVAILABLE, or a refusal that carries a retry hint).
async fn next_deal_when_allowed(driver: &Driver) {
    for s in 0..3 {
        let mut tries = 0;
        loop {
            match driver.next_deal(s).await {
                Ok(_) => break,
                Err(status)
                    if tries < 200
                        && (status.code() == tonic::Code::Unavailable
                            || status.metadata().get("retry-after-ms").is_some()) =>
                {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
                Err(status) => panic!("next deal at {}: {status}", driver.table_id),
            }
        }
    }
}

/// Plays deals at a table as fast as the dealer takes them (the first bidder bids 3,
/// then every seat plays its smallest legal play) until `done`. Returns the deals.
async fn deal_hard(driver: Driver, done: Arc<AtomicBool>) -> usize {
    let mut deals = 0;
    while !done.load(Ordering::SeqCst) {
        let first = seat(driver.view(0).await.first_bidder);
        driver.make_landlord(first, 3).await;
        let end = driver.play_out(|_, _, hints| smallest(hints)).await;
        assert_eq!(end.phase, pb::Phase::Finished as i32);
        deals += 1;
        next_deal_when_allowed(&driver).await;
    }
    deals
}

/// A fresh watch: the last event id of its snapshot, and the stream.
async fn watch_fresh(
    mut client: Dz,
    table_id: String,
) -> (i64, tonic::Streaming<pb::WatchResponse>) {
    let mut stream = client
        .watch(pb::WatchRequest {
            table_id,
            after_event_id: 0,
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner();
    let item = stream.next().await.unwrap().unwrap().item.unwrap();
    let pb::watch_response::Item::Snapshot(snapshot) = item else {
        panic!("a fresh watch starts with a snapshot");
    };
    (snapshot.last_event_id, stream)
}

/// A watcher that never drops its stream: every event id it receives after `start`,
/// until it has received `until` (sent once known).
async fn follow(
    start: i64,
    mut stream: tonic::Streaming<pb::WatchResponse>,
    mut until: tokio::sync::watch::Receiver<Option<i64>>,
) -> Vec<i64> {
    let mut seen = Vec::new();
    loop {
        let last = seen.last().copied().unwrap_or(start);
        if until.borrow().is_some_and(|target| last >= target) {
            return seen;
        }
        tokio::select! {
            item = tokio::time::timeout(Duration::from_secs(10), stream.next()) => {
                let item = item.expect("an event within 10 s").unwrap().unwrap();
                match item.item.unwrap() {
                    pb::watch_response::Item::Event(event) => seen.push(event.event_id),
                    pb::watch_response::Item::Snapshot(_) => {
                        panic!("a watcher that keeps its stream gets no snapshot")
                    }
                }
            }
            _ = until.changed() => {}
        }
    }
}

/// An event id as the resume helper counts them.
fn id(event_id: i64) -> u64 {
    u64::try_from(event_id).unwrap()
}

/// Resumes a watch of `table_id` by `client` over and over (see [`resume_repeatedly`]).
async fn resume_watching(client: Dz, table_id: String, rounds: usize) -> Resumed {
    let watch = |after_event_id: u64| {
        let (mut client, table_id) = (client.clone(), table_id.clone());
        async move {
            let stream = client
                .watch(pb::WatchRequest {
                    table_id,
                    after_event_id: i64::try_from(after_event_id).unwrap(),
                    as_spectator: false,
                })
                .await
                .unwrap()
                .into_inner();
            stream.map(|item| match item.unwrap().item.unwrap() {
                pb::watch_response::Item::Event(event) => Seen::Event(id(event.event_id)),
                pb::watch_response::Item::Snapshot(table) => {
                    Seen::Snapshot(id(table.last_event_id))
                }
            })
        }
    };
    resume_repeatedly(watch, rounds).await
}

#[tokio::test]
async fn watchers_resumed_while_their_tables_are_played_hard_miss_nothing_and_get_no_snapshot() {
    const TABLES: usize = 4;
    const ROUNDS: usize = 84; // 4 tables × 3 watchers × 84 = 1,008 resumes
    let world = World::start().await;
    let done = Arc::new(AtomicBool::new(false));
    let (mut games, mut watchers) = (Vec::new(), Vec::new());
    for t in 0..TABLES {
        let driver = world.open(&[], 0).await;
        // Seats 0 and 1 (each sees its own hand) and a spectator, each followed by a
        // watcher that keeps its stream (the reference) and one that resumes.
        for client in [
            driver.client(0),
            driver.client(1),
            world.player(&format!("spectator{t}")),
        ] {
            let (until, target) = tokio::sync::watch::channel(None);
            let (start, stream) = watch_fresh(client.clone(), driver.table_id.clone()).await;
            let reference = tokio::spawn(follow(start, stream, target));
            let resumed = tokio::spawn(resume_watching(client, driver.table_id.clone(), ROUNDS));
            watchers.push((driver.table_id.clone(), start, reference, resumed, until));
        }
        games.push(tokio::spawn(deal_hard(driver, done.clone())));
    }
    let mut results = Vec::new();
    for (table, ref_start, reference, resumed, until) in watchers {
        let resumed = resumed.await.unwrap();
        until.send_replace(Some(i64::try_from(resumed.last()).unwrap()));
        let reference = reference.await.unwrap();
        results.push((table, resumed, (ref_start, reference)));
    }
    done.store(true, Ordering::SeqCst);
    let mut deals = 0;
    for game in games {
        deals += game.await.unwrap();
    }
    let (snapshots, events) = results.iter().fold((0, 0), |(s, e), (_, r, _)| {
        (s + r.snapshots, e + r.seen.len())
    });
    let resumes = results.len() * ROUNDS;
    println!(
        "doudizhu: {resumes} resumes while {deals} deals were played: \
         {snapshots} snapshots, {events} events received"
    );
    assert!(resumes >= 1_000);
    assert_eq!(snapshots, 0, "no snapshot: nothing was trimmed");
    for (i, (table, resumed, (ref_start, reference))) in results.iter().enumerate() {
        assert!(
            id(*ref_start) <= resumed.start,
            "the reference started first"
        );
        let expected: Vec<u64> = reference
            .iter()
            .map(|event_id| id(*event_id))
            .filter(|id| *id > resumed.start && *id <= resumed.last())
            .collect();
        assert_eq!(
            resumed.seen, expected,
            "watcher {i} of {table}: every event it may see, once"
        );
    }
    world.finish().await;
}

/// The next item of a watch stream, within 10 s.
async fn next_item(stream: &mut tonic::Streaming<pb::WatchResponse>) -> pb::watch_response::Item {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("an item within 10 s")
        .unwrap()
        .unwrap()
        .item
        .unwrap()
}

/// A fresh watch of `table_id` by `client`: the stream, or the refusal.
async fn watch_table(
    client: &Dz,
    table_id: &str,
    as_spectator: bool,
) -> Result<tonic::Streaming<pb::WatchResponse>, tonic::Status> {
    let mut client = client.clone();
    let response = client
        .watch(pb::WatchRequest {
            table_id: table_id.to_owned(),
            after_event_id: 0,
            as_spectator,
        })
        .await?;
    Ok(response.into_inner())
}

fn assert_exhausted(
    result: Result<tonic::Streaming<pb::WatchResponse>, tonic::Status>,
    says: &str,
) {
    let status = result.expect_err("refused");
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains(says),
        "{:?} lacks {says:?}",
        status.message()
    );
}

#[tokio::test]
async fn strangers_cannot_take_the_seated_players_watch_places_and_each_caller_is_capped() {
    let world = World::start_with(Options {
        env: [
            // 3 seats keep 1 place each; spectators share the other 2.
            ("GAMEHUB_DOUDIZHU_MAX_WATCHERS_PER_TABLE", "5"),
            ("GAMEHUB_DOUDIZHU_MAX_WATCHERS_PER_SEAT", "1"),
            ("GAMEHUB_DOUDIZHU_MAX_WATCHERS_PER_CALLER", "3"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .to_vec(),
        ..Options::default()
    })
    .await;
    let driver = world.open(&[], 0).await;
    let id = driver.table_id.clone();
    // Strangers take every spectator place; the next one is refused.
    let mut held = Vec::new();
    for i in 0..2 {
        held.push(
            watch_table(&world.player(&format!("stranger{i}")), &id, false)
                .await
                .unwrap(),
        );
    }
    assert_exhausted(
        watch_table(&world.player("stranger2"), &id, false).await,
        "already has 2 watchers besides its seated players",
    );
    // The seated players still watch their table, in places kept for their seats (seat
    // 2 even as a spectator: the place is its seat's, the view a spectator's).
    for s in 0..3 {
        let mut stream = watch_table(&driver.client(s), &id, s == 2).await.unwrap();
        let pb::watch_response::Item::Snapshot(view) = next_item(&mut stream).await else {
            panic!("a fresh watch starts with a snapshot");
        };
        if s < 2 {
            assert_eq!(seat(view.viewer_seat), s);
            assert_eq!(view.hand.len(), 17, "a seat sees its own hand");
        } else {
            assert!(view.hand.is_empty(), "a spectator sees no hand");
        }
        held.push(stream);
    }
    assert_exhausted(
        watch_table(&driver.client(1), &id, true).await,
        &format!("seat 1 of table {id} has 1 watchers already"),
    );
    // One caller holds at most 3 streams, across tables.
    let greedy = world.player("greedy");
    for t in 0..4 {
        let other = world.open(&[], 0).await.table_id;
        if t < 3 {
            held.push(watch_table(&greedy, &other, false).await.unwrap());
        } else {
            assert_exhausted(
                watch_table(&greedy, &other, false).await,
                "you hold 3 watch streams on this server already",
            );
            held.push(
                watch_table(&world.player("someone-else"), &other, false)
                    .await
                    .unwrap(),
            );
        }
    }
    drop(held);
    world.finish().await;
}
