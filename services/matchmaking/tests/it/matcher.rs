//! The matcher and the reaper, driven round by round against the real Redis with fake
//! peers: refusals, crash recovery between "claimed" and "seated", lost answers,
//! refused tables, cancellation while matching, rating windows.

use std::sync::Arc;
use std::time::Duration;

use gamehub_matchmaking::MatchmakingConfig;
use gamehub_matchmaking::matcher::{Matcher, MatcherSettings};
use gamehub_matchmaking::pairing::RatingWindow;
use gamehub_matchmaking::peers::TableOpener;
use gamehub_matchmaking::rooms::Room;
use gamehub_matchmaking::store::{Cancelled, ClaimGroup, Opening, Reservation, TicketStore};
use gamehub_matchmaking::tickets::{Ticket, TicketId, TicketState};
use gamehub_testkit::clock::ManualClock;

use crate::support::{FakeLedger, FakeTables};

struct Rig {
    store: TicketStore,
    matcher: Matcher,
    ledger: Arc<FakeLedger>,
    tables: Arc<FakeTables>,
    config: MatchmakingConfig,
    /// The store's clock: claims and tickets run out only when a test advances it.
    clock: ManualClock,
}

async fn rig(adjust: impl FnOnce(&mut MatchmakingConfig)) -> Rig {
    let mut config = MatchmakingConfig::for_tests();
    config.store.claim_timeout = Duration::from_millis(200);
    config.matcher = MatcherSettings {
        window: RatingWindow {
            base: 100,
            growth_per_second: 1000,
        },
        ..MatcherSettings::default()
    };
    config.common.redis = gamehub_testkit::redis::redis_target();
    adjust(&mut config);
    let redis = gamehub_testkit::redis::connect().await;
    let clock = ManualClock::new();
    let store = TicketStore::new(
        redis,
        &config.common.redis_prefix,
        config.store.clone(),
        clock.clock(),
    );
    let ledger = Arc::new(FakeLedger::default());
    let tables = Arc::new(FakeTables::default());
    let matcher = Matcher::new(
        store.clone(),
        config.rooms.clone(),
        ledger.clone(),
        tables.clone(),
        config.matcher.clone(),
    );
    Rig {
        store,
        matcher,
        ledger,
        tables,
        config,
        clock,
    }
}

impl Rig {
    fn room(&self, id: &str) -> Arc<Room> {
        self.config.rooms.get(id).unwrap().clone()
    }

    /// Queues `player` as Enqueue does (reservation, then the room's queue).
    async fn put(&self, room: &str, player: &str, rating: i64) -> TicketId {
        let id = TicketId::new(room);
        let request = format!("rq-{player}");
        assert_eq!(
            self.store.reserve(player, &request, &id).await.unwrap(),
            Reservation::Reserved
        );
        self.store
            .create(&id, player, &request, rating, self.clock.now_ms())
            .await
            .unwrap();
        id
    }

    async fn get(&self, id: &TicketId) -> Ticket {
        self.store.read(id).await.unwrap().unwrap()
    }

    /// Claims these tickets as a replica would, then "crashes".
    async fn claim(&self, room: &str, match_id: &str, tickets: &[&TicketId]) -> String {
        let owner = format!("owner-{match_id}");
        let claimed = self
            .store
            .claim(
                room,
                &[ClaimGroup {
                    match_id: match_id.into(),
                    owner: owner.clone(),
                    tickets: tickets.iter().map(|t| t.to_string()).collect(),
                }],
                self.clock.now_ms(),
            )
            .await
            .unwrap();
        assert_eq!(claimed, vec![match_id.to_owned()]);
        owner
    }
}

#[tokio::test]
async fn a_refused_player_ends_with_the_reason_and_the_others_keep_their_place() {
    let rig = rig(|_| {}).await;
    let room = rig.room("gomoku-free");
    rig.ledger.refuse(
        "xena",
        1,
        "balance 10 silver is below the room's minimum of 1000 silver",
    );
    let amy = rig.put("gomoku-free", "amy", 0).await;
    let xena = rig.put("gomoku-free", "xena", 0).await;
    let bo = rig.put("gomoku-free", "bo", 0).await;

    let report = rig.matcher.round(&room).await.unwrap();
    assert_eq!((report.claimed, report.seated, report.refused), (1, 0, 1));
    let refused = rig.get(&xena).await;
    assert_eq!(refused.state, TicketState::Refused);
    assert_eq!(refused.refusal, 1);
    assert!(refused.message.contains("below the room's minimum"));
    let amy_t = rig.get(&amy).await;
    assert_eq!((amy_t.state, amy_t.position), (TicketState::Waiting, 1));
    assert_eq!(rig.get(&bo).await.position, 2);

    let report = rig.matcher.round(&room).await.unwrap();
    assert_eq!(report.seated, 1);
    for id in [&amy, &bo] {
        assert_eq!(rig.get(id).await.state, TicketState::Seated);
    }
    // xena's live slot still names her refused ticket; her next Enqueue frees it
    // (slots are freed lazily, see the tickets tests).
    let id = TicketId::new("gomoku-free");
    assert_eq!(
        rig.store.reserve("xena", "again", &id).await.unwrap(),
        Reservation::Live(xena.to_string())
    );
}

#[tokio::test]
async fn a_silent_ledger_sends_the_table_back_unharmed() {
    let rig = rig(|_| {}).await;
    let room = rig.room("doudizhu-free");
    let ids = [
        rig.put("doudizhu-free", "d1", 0).await,
        rig.put("doudizhu-free", "d2", 0).await,
        rig.put("doudizhu-free", "d3", 0).await,
    ];
    rig.ledger
        .down
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let report = rig.matcher.round(&room).await.unwrap();
    assert_eq!((report.claimed, report.released, report.refused), (1, 1, 0));
    for (i, id) in ids.iter().enumerate() {
        let t = rig.get(id).await;
        assert_eq!((t.state, t.position), (TicketState::Waiting, i as u64 + 1));
    }
    rig.ledger
        .down
        .store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(rig.matcher.round(&room).await.unwrap().seated, 1);
}

#[tokio::test]
async fn a_crash_between_claimed_and_seated_returns_the_tickets_to_their_place() {
    let rig = rig(|_| {}).await;
    let room = rig.room("gomoku-free");
    let a = rig.put("gomoku-free", "ann", 0).await;
    let b = rig.put("gomoku-free", "ben", 0).await;
    let c = rig.put("gomoku-free", "cy", 0).await;
    rig.claim("gomoku-free", "crashed-1", &[&a, &b]).await;
    assert_eq!(rig.get(&a).await.state, TicketState::Matching);
    assert_eq!(rig.get(&c).await.position, 1);

    // Before the claim's deadline the reaper leaves it alone.
    assert_eq!(rig.matcher.reap(&room).await.unwrap().taken_over, 0);
    rig.clock.advance(Duration::from_millis(250));
    let reaped = rig.matcher.reap(&room).await.unwrap();
    assert_eq!((reaped.taken_over, reaped.seated), (1, 0));
    for (id, place) in [(&a, 1), (&b, 2), (&c, 3)] {
        let t = rig.get(id).await;
        assert_eq!((t.state, t.position), (TicketState::Waiting, place));
    }
    assert!(rig.tables.calls().is_empty(), "no table was opened");
    rig.matcher.round(&room).await.unwrap();
    let call = &rig.tables.calls()[0];
    let mut players = call.players.clone();
    players.sort();
    assert_eq!(players, ["ann", "ben"], "the oldest two sit first");
}

#[tokio::test]
async fn a_crash_after_opening_seats_the_players_at_the_table_already_opened() {
    let rig = rig(|_| {}).await;
    let room = rig.room("gomoku-free");
    let a = rig.put("gomoku-free", "alf", 0).await;
    let b = rig.put("gomoku-free", "bea", 0).await;
    let owner = rig.claim("gomoku-free", "crashed-2", &[&a, &b]).await;
    let players = vec!["bea".to_owned(), "alf".to_owned()];
    let owned = rig
        .store
        .mark_opening(
            "gomoku-free",
            &[Opening {
                match_id: "crashed-2".into(),
                owner,
                players: players.clone(),
                tickets: vec![b.to_string(), a.to_string()],
            }],
            rig.clock.now_ms(),
        )
        .await
        .unwrap();
    assert_eq!(owned.len(), 1);
    // The table was opened, then the replica died before seating anyone.
    let opened = rig
        .tables
        .open(&room, "crashed-2", &players, Default::default())
        .await
        .unwrap();

    rig.clock.advance(Duration::from_millis(250));
    let reaped = rig.matcher.reap(&room).await.unwrap();
    assert_eq!((reaped.taken_over, reaped.seated), (1, 1));
    let calls = rig.tables.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].match_id, "crashed-2", "re-opened with the same id");
    assert_eq!(calls[1].players, players, "and the same seats");
    for (id, seat) in [(&b, 0), (&a, 1)] {
        let t = rig.get(id).await;
        assert_eq!(t.state, TicketState::Seated);
        let at = t.seat.unwrap();
        assert_eq!(
            (at.table_id.as_str(), at.seat),
            (opened.table_id.as_str(), seat)
        );
    }
}

#[tokio::test]
async fn a_lost_open_table_answer_is_retried_with_the_same_match_id() {
    let rig = rig(|_| {}).await;
    let room = rig.room("gomoku-free");
    let a = rig.put("gomoku-free", "ada", 0).await;
    let b = rig.put("gomoku-free", "bob", 0).await;
    rig.tables
        .lose_answers
        .store(1, std::sync::atomic::Ordering::SeqCst);
    let report = rig.matcher.round(&room).await.unwrap();
    assert_eq!((report.claimed, report.seated), (1, 0));
    assert_eq!(rig.get(&a).await.state, TicketState::Matching);
    rig.clock.advance(Duration::from_millis(250));
    assert_eq!(rig.matcher.reap(&room).await.unwrap().seated, 1);
    let calls = rig.tables.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].match_id, calls[1].match_id);
    assert_eq!(calls[0].players, calls[1].players);
    let seat_a = rig.get(&a).await.seat.unwrap();
    let seat_b = rig.get(&b).await.seat.unwrap();
    assert_eq!(seat_a.table_id, FakeTables::table_of(&calls[0].match_id));
    assert_eq!(seat_a.table_id, seat_b.table_id);
}

#[tokio::test]
async fn a_table_refused_again_and_again_ends_the_tickets_failed() {
    let rig = rig(|c| c.store.max_open_failures = 2).await;
    let room = rig.room("gomoku-free");
    let a = rig.put("gomoku-free", "fa", 0).await;
    let b = rig.put("gomoku-free", "fb", 0).await;
    rig.tables
        .refuse
        .store(5, std::sync::atomic::Ordering::SeqCst);
    rig.matcher.round(&room).await.unwrap();
    assert_eq!(
        rig.get(&a).await.state,
        TicketState::Waiting,
        "one failure: back in line"
    );
    rig.matcher.round(&room).await.unwrap();
    for id in [&a, &b] {
        let t = rig.get(id).await;
        assert_eq!(t.state, TicketState::Failed);
        assert!(
            t.message.contains("no table could be opened"),
            "{}",
            t.message
        );
    }
}

#[tokio::test]
async fn cancelling_while_matching_ends_cancelled_instead_of_going_back() {
    let rig = rig(|_| {}).await;
    let room = rig.room("gomoku-free");
    let a = rig.put("gomoku-free", "ca", 0).await;
    let b = rig.put("gomoku-free", "cb", 0).await;
    rig.claim("gomoku-free", "crashed-3", &[&a, &b]).await;
    assert_eq!(
        rig.store.cancel(&a, rig.clock.now_ms()).await.unwrap(),
        Cancelled::Requested
    );
    assert!(rig.get(&a).await.cancel_requested);
    rig.clock.advance(Duration::from_millis(250));
    rig.matcher.reap(&room).await.unwrap();
    assert_eq!(rig.get(&a).await.state, TicketState::Cancelled);
    let t = rig.get(&b).await;
    assert_eq!((t.state, t.position), (TicketState::Waiting, 1));
}

#[tokio::test]
async fn rated_rooms_pair_close_ratings_and_widen_the_window_with_waiting() {
    let rig = rig(|_| {}).await;
    let room = rig.room("gomoku-freestyle");
    assert!(room.stakes.rated);
    let a = rig.put("gomoku-freestyle", "r2000", 2000).await;
    let b = rig.put("gomoku-freestyle", "r2600", 2600).await;
    let c = rig.put("gomoku-freestyle", "r2050", 2050).await;
    rig.matcher.round(&room).await.unwrap();
    assert_eq!(rig.get(&a).await.state, TicketState::Seated);
    assert_eq!(rig.get(&c).await.state, TicketState::Seated);
    assert_eq!(
        rig.get(&a).await.seat.unwrap().table_id,
        rig.get(&c).await.seat.unwrap().table_id
    );
    let waiting = rig.get(&b).await;
    assert_eq!(
        (waiting.state, waiting.rating),
        (TicketState::Waiting, 2600)
    );

    // 300 apart: too far for a fresh ticket (±100), fine once 2600 waited 0.2 s+.
    let e = rig.put("gomoku-freestyle", "r2900", 2900).await;
    // The clock stands still until advanced: 2600 has not waited at all yet.
    let waited = rig.clock.now_ms() - waiting.created_ms;
    assert_eq!(waited, 0);
    rig.matcher.round(&room).await.unwrap();
    assert_eq!(rig.get(&b).await.state, TicketState::Waiting);
    rig.clock.advance(Duration::from_millis(300));
    rig.matcher.round(&room).await.unwrap();
    assert_eq!(rig.get(&b).await.state, TicketState::Seated);
    assert_eq!(rig.get(&e).await.state, TicketState::Seated);
    let _ = rig.ledger.checks.load(std::sync::atomic::Ordering::SeqCst);
}

#[tokio::test]
async fn expired_tickets_leave_the_queue() {
    let rig = rig(|c| c.store.ticket_ttl = Duration::from_millis(400)).await;
    let room = rig.room("gomoku-free");
    let a = rig.put("gomoku-free", "old", 0).await;
    rig.clock.advance(Duration::from_millis(450));
    let b = rig.put("gomoku-free", "new", 0).await;
    // The expired ticket is never seated, even before the reaper ran.
    rig.matcher.round(&room).await.unwrap();
    assert_eq!(rig.get(&b).await.state, TicketState::Waiting);
    assert_eq!(rig.matcher.reap(&room).await.unwrap().expired, 1);
    assert_eq!(rig.get(&a).await.state, TicketState::Expired);
    assert_eq!(rig.get(&b).await.position, 1);
}
