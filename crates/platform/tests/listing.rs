//! The table list against a real Redis (127.0.0.1:6379 or `REDIS_URL`): rooms' tables
//! newest first across shards, page by page; unlisted, closed and vanished tables not
//! shown; spectators counted while their watch streams live.
#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

use std::time::Duration;

use futures::StreamExt;
use gamehub_platform::Clock;
use gamehub_platform::server::Shutdown;
use gamehub_platform::tables::hub::{EventHub, WatchLimits, Watcher};
use gamehub_platform::tables::listing::{
    ListPage, Listing, PageRequest, SPECTATOR_TTL_MS, SpectatorCounted,
};
use gamehub_platform::tables::{Change, NewEvent, StoreLimits, TableStore, Updated};
use gamehub_proto::common::TableSummary;
use gamehub_testkit::clock::{ManualClock, eventually};
use serde::{Deserialize, Serialize};

/// A store under a namespace of its own, telling the time by `clock`.
async fn store(clock: Clock) -> TableStore {
    let game: &'static str =
        Box::leak(format!("test{}", uuid::Uuid::new_v4().simple()).into_boxed_str());
    let conn = gamehub_testkit::redis::connect().await;
    TableStore::new(conn, "gh", game, StoreLimits::default(), clock)
}

/// A table's state: its game number, and whether it is over.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Game {
    number: i32,
    over: bool,
}

fn summarize(listed: gamehub_platform::tables::listing::ListedTable<Game>) -> Option<TableSummary> {
    (!listed.state.over).then(|| TableSummary {
        game_number: listed.state.number,
        in_progress: true,
        ..TableSummary::default()
    })
}

async fn open(store: &TableStore, table_id: &str, room: &str, listed: bool) {
    let created = store
        .create_listed(
            table_id,
            &Game {
                number: 1,
                over: false,
            },
            Change::new(vec![NewEvent::public(b"opened".to_vec())], None, ()),
            None,
            Some(Listing::new(room, listed)),
        )
        .await
        .unwrap();
    assert!(matches!(created, Updated::Applied { .. }));
}

async fn page(store: &TableStore, room: &str, size: i32, token: &str) -> ListPage {
    let request = PageRequest::parse(room, size, token).unwrap();
    store.list_tables(&request, summarize).await.unwrap()
}

fn ids(page: &ListPage) -> Vec<&str> {
    page.tables.iter().map(|t| t.table_id.as_str()).collect()
}

#[tokio::test]
async fn a_rooms_tables_come_newest_first_page_by_page_without_unlisted_ones() {
    let clock = ManualClock::at(1_700_000_000_000);
    let store = store(clock.clock()).await;
    // Seven listed tables a millisecond apart (two at the same millisecond, so the id
    // breaks the tie), one friends' table, and one of another room.
    for i in 0..7 {
        if i != 4 {
            clock.advance(Duration::from_millis(1));
        }
        open(&store, &format!("t-{i}"), "gomoku-free", true).await;
    }
    open(&store, "friends", "gomoku-free", false).await;
    open(&store, "elsewhere", "gomoku-free-2", true).await;

    let first = page(&store, "gomoku-free", 3, "").await;
    assert_eq!(ids(&first), ["t-6", "t-5", "t-4"]);
    assert!(!first.next_page_token.is_empty());
    let summary = &first.tables[0];
    assert_eq!(summary.room_id, "gomoku-free");
    assert_eq!(summary.game_number, 1, "the service's part");
    assert_eq!(summary.opened_at_unix_ms, 1_700_000_000_006);
    assert_eq!(summary.spectators, 0);
    let second = page(&store, "gomoku-free", 3, &first.next_page_token).await;
    assert_eq!(ids(&second), ["t-3", "t-2", "t-1"]);
    let last = page(&store, "gomoku-free", 3, &second.next_page_token).await;
    assert_eq!(ids(&last), ["t-0"]);
    assert_eq!(last.next_page_token, "", "the last page");

    let whole = page(&store, "gomoku-free", 0, "").await;
    assert_eq!(whole.tables.len(), 7, "friends' tables are not listed");
    assert_eq!(whole.next_page_token, "");
    assert_eq!(
        ids(&page(&store, "gomoku-free-2", 0, "").await),
        ["elsewhere"]
    );
    assert!(page(&store, "gomoku-none", 0, "").await.tables.is_empty());
}

#[tokio::test]
async fn closed_and_vanished_tables_leave_the_list() {
    let store = store(Clock::system()).await;
    for id in ["a", "b", "c", "d"] {
        open(&store, id, "room-x", true).await;
    }
    // "a" closes by a step; "b" vanishes without one (its keys expired); "c" is over
    // by its state though still indexed (the service's summary says so).
    store
        .update("a", None, |_: &mut Game, _| {
            Ok(Change {
                close: true,
                ..Change::new(Vec::new(), None, ())
            })
        })
        .await
        .unwrap();
    let mut conn = store.redis();
    let state_key = store.companion_key("b", "x");
    let state_key = state_key.strip_suffix(":x").unwrap();
    let _: () = redis::cmd("DEL")
        .arg(state_key)
        .query_async(&mut conn)
        .await
        .unwrap();
    store
        .update("c", None, |game: &mut Game, _| {
            game.over = true;
            Ok(Change::new(Vec::new(), None, ()))
        })
        .await
        .unwrap();

    // A page of one meets the vanished entries first and reads on to fill itself.
    let first = page(&store, "room-x", 1, "").await;
    assert_eq!(ids(&first), ["d"]);
    assert_eq!(ids(&page(&store, "room-x", 0, "").await), ["d"]);
    // The entries of "b" and "c" were dropped as met: the index holds "d" alone.
    let mut indexed = 0;
    for shard in 0..gamehub_platform::tables::SHARDS {
        let count: u64 = redis::cmd("ZCARD")
            .arg(format!("gh:{{{}:{shard:02}}}:listed", store.game()))
            .query_async(&mut conn)
            .await
            .unwrap();
        indexed += count;
    }
    assert_eq!(indexed, 1);
}

#[tokio::test]
async fn bad_page_requests_are_refused_naming_the_field() {
    for (room, size, token, field) in [
        ("", 0, "", "room_id"),
        ("Room!", 0, "", "room_id"),
        ("room-x", -1, "", "page_size"),
        ("room-x", 0, "garbage", "page_token"),
        ("room-x", 0, &"p1.".repeat(50), "page_token"),
    ] {
        let error = PageRequest::parse(room, size, token).unwrap_err();
        assert_eq!(error.code(), tonic::Code::InvalidArgument);
        assert!(
            error.to_string().starts_with(&format!("{field}: ")),
            "{error}"
        );
    }
}

fn watcher(seat: Option<u8>) -> Watcher {
    Watcher {
        caller: format!("caller-{seat:?}"),
        seated: seat,
        sees_as: seat,
    }
}

async fn spectators_listed(store: &TableStore, room: &str) -> i32 {
    page(store, room, 0, "").await.tables[0].spectators
}

#[tokio::test]
async fn spectators_count_while_their_streams_live_and_seats_do_not() {
    let store = store(Clock::system()).await;
    let shutdown = Shutdown::new();
    let hub = EventHub::new(store.clone(), WatchLimits::default());
    tokio::spawn(
        hub.clone()
            .run(gamehub_testkit::redis::redis_target(), shutdown.listener()),
    );
    open(&store, "watched", "room-w", true).await;

    let mut seated = Box::pin(
        hub.watch(
            "watched".into(),
            &watcher(Some(0)),
            None,
            shutdown.listener(),
        )
        .unwrap(),
    );
    seated.next().await.unwrap().unwrap();
    let mut spectator = Box::pin(
        hub.watch("watched".into(), &watcher(None), None, shutdown.listener())
            .unwrap(),
    );
    spectator.next().await.unwrap().unwrap();
    eventually("one spectator listed", Duration::from_secs(5), || async {
        (spectators_listed(&store, "room-w").await == 1).then_some(())
    })
    .await;
    assert_eq!(
        store.spectators("watched").await.unwrap(),
        1,
        "the seat is not a spectator"
    );

    drop(spectator);
    eventually("no spectator listed", Duration::from_secs(5), || async {
        (spectators_listed(&store, "room-w").await == 0).then_some(())
    })
    .await;
    drop(seated);
    shutdown.trigger();
}

#[tokio::test]
async fn a_spectator_whose_process_stops_refreshing_it_stops_counting_within_a_minute() {
    let clock = ManualClock::at(1_700_000_000_000);
    let store = store(clock.clock()).await;
    open(&store, "quiet", "room-q", true).await;
    let counted: SpectatorCounted = store.count_spectator("quiet");
    eventually("the spectator counted", Duration::from_secs(5), || async {
        (store.spectators("quiet").await.unwrap() == 1).then_some(())
    })
    .await;
    // No refresh comes within the test (every 20 s of real time): as for a dead
    // process, the entry lapses once its minute has passed.
    clock.advance(Duration::from_millis(SPECTATOR_TTL_MS - 1));
    assert_eq!(store.spectators("quiet").await.unwrap(), 1);
    clock.advance(Duration::from_millis(2));
    assert_eq!(store.spectators("quiet").await.unwrap(), 0);
    drop(counted);
}
