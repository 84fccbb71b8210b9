//! The Redis table store against a real Redis (127.0.0.1:6379 or `REDIS_URL`): the
//! atomic step, races, idempotency, watching, deadlines and the settlement outbox.
#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt;
use gamehub_platform::ApiError;
use gamehub_platform::Clock;
use gamehub_platform::server::Shutdown;
use gamehub_platform::tables::hub::{EventHub, WatchItem, WatchLimits, Watcher};
use gamehub_platform::tables::sweeper::{DeadlineHandler, SweepConfig, run_sweeper};
use gamehub_platform::tables::{
    Audience, Change, CommitOutcome, NewEvent, StoreLimits, TableStore, Updated,
};
use gamehub_testkit::clock::{ManualClock, eventually};
use gamehub_testkit::resume::{Resumed, Seen, resume_repeatedly};
use serde::{Deserialize, Serialize};

/// A store under a namespace of its own, so tests never see each other's keys.
async fn store(limits: StoreLimits) -> TableStore {
    store_with_clock(limits, Clock::system()).await
}

/// [`store`] telling the time by `clock`.
async fn store_with_clock(limits: StoreLimits, clock: Clock) -> TableStore {
    let game: &'static str =
        Box::leak(format!("test{}", uuid::Uuid::new_v4().simple()).into_boxed_str());
    let conn = gamehub_testkit::redis::connect().await;
    TableStore::new(conn, "gh", game, limits, clock)
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Counter {
    count: u64,
}

fn change(events: Vec<NewEvent>, deadline_ms: Option<u64>) -> Change<()> {
    Change::new(events, deadline_ms, ())
}

#[tokio::test]
async fn a_step_applies_once_and_a_stale_version_conflicts() {
    let store = store(StoreLimits::default()).await;
    let created = store
        .create(
            "t1",
            &Counter { count: 0 },
            change(vec![NewEvent::public(b"open".to_vec())], None),
            None,
        )
        .await
        .unwrap();
    assert!(matches!(
        created,
        Updated::Applied {
            version: 1,
            last_seq: 1,
            ..
        }
    ));

    let state = serde_json::to_vec(&Counter { count: 1 }).unwrap();
    let first = store
        .commit(
            "t1",
            1,
            &state,
            &change(vec![NewEvent::public(b"one".to_vec())], Some(123)),
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        first,
        CommitOutcome::Applied {
            version: 2,
            last_seq: 2
        }
    );
    let stale = store
        .commit(
            "t1",
            1,
            &state,
            &change(vec![NewEvent::public(b"again".to_vec())], None),
            None,
        )
        .await
        .unwrap();
    assert_eq!(stale, CommitOutcome::Conflict { current_version: 2 });

    let loaded = store.load::<Counter>("t1").await.unwrap().unwrap();
    assert_eq!(loaded.state, Counter { count: 1 });
    assert_eq!(loaded.version, 2);
    assert_eq!(loaded.last_seq, 2);
    assert_eq!(store.deadline_of("t1").await.unwrap(), Some(123));
    let events = store.events_after("t1", 0, 10).await.unwrap();
    let payloads: Vec<_> = events.iter().map(|e| e.payload.clone()).collect();
    assert_eq!(
        payloads,
        vec![b"open".to_vec(), b"one".to_vec()],
        "the losing step appended nothing"
    );
}

#[tokio::test]
async fn creating_an_existing_table_is_refused() {
    let store = store(StoreLimits::default()).await;
    store
        .create("t", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    let again = store
        .create("t", &Counter { count: 5 }, change(vec![], None), None)
        .await;
    assert!(matches!(again, Err(ApiError::AlreadyExists(_))));
    // The same create retried with its request key is a duplicate, not an error.
    store
        .create(
            "u",
            &Counter { count: 0 },
            change(vec![], None),
            Some("open-u"),
        )
        .await
        .unwrap();
    let retried = store
        .create(
            "u",
            &Counter { count: 0 },
            change(vec![], None),
            Some("open-u"),
        )
        .await
        .unwrap();
    assert!(matches!(retried, Updated::Duplicate { .. }));
}

#[tokio::test]
async fn racing_updates_all_apply_exactly_once() {
    let store = store(StoreLimits::default()).await;
    store
        .create("race", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for i in 0..24 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            // A client told ABORTED retries the same request (same key).
            let key = format!("req-{i}");
            for _attempt in 0..1_000 {
                let result = store
                    .update::<Counter, _, _>("race", Some(&key), |c, _| {
                        c.count += 1;
                        Ok(Change::new(
                            vec![NewEvent::public(c.count.to_string().into_bytes())],
                            None,
                            c.count,
                        ))
                    })
                    .await;
                match result {
                    Err(ApiError::Aborted(_)) => continue,
                    other => return other,
                }
            }
            panic!("request {key} still aborted after 1,000 retries");
        }));
    }
    let mut applied = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(Updated::Applied { .. }) => applied += 1,
            Ok(Updated::Duplicate { .. }) => panic!("a retried request was applied before"),
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    assert_eq!(applied, 24, "every racer applies once");
    let loaded = store.load::<Counter>("race").await.unwrap().unwrap();
    assert_eq!(loaded.state.count, 24, "every applied update counted once");
    let events = store.events_after("race", 0, 100).await.unwrap();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=applied).collect::<Vec<_>>(),
        "event sequence has no gap or repeat"
    );
}

#[tokio::test]
async fn a_retried_request_is_not_applied_twice() {
    let store = store(StoreLimits::default()).await;
    store
        .create("idem", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    for _ in 0..3 {
        store
            .update::<Counter, _, _>("idem", Some("alice:move-1"), |c, _| {
                c.count += 1;
                Ok(Change::new(
                    vec![NewEvent::public(b"moved".to_vec())],
                    None,
                    (),
                ))
            })
            .await
            .unwrap();
    }
    assert_eq!(
        store
            .load::<Counter>("idem")
            .await
            .unwrap()
            .unwrap()
            .state
            .count,
        1
    );
}

#[tokio::test]
async fn a_refused_update_changes_nothing() {
    let store = store(StoreLimits::default()).await;
    store
        .create("r", &Counter { count: 7 }, change(vec![], Some(99)), None)
        .await
        .unwrap();
    let result = store
        .update::<Counter, (), _>("r", None, |c, _| {
            c.count = 1000;
            Err(ApiError::FailedPrecondition("not your turn".into()))
        })
        .await;
    assert!(matches!(result, Err(ApiError::FailedPrecondition(_))));
    let loaded = store.load::<Counter>("r").await.unwrap().unwrap();
    assert_eq!((loaded.state.count, loaded.version), (7, 1));
    assert!(matches!(
        store
            .update::<Counter, (), _>("missing", None, |_, _| unreachable!())
            .await,
        Err(ApiError::NotFound(_))
    ));
}

#[tokio::test]
async fn streams_are_trimmed_to_their_bound() {
    let limits = StoreLimits {
        max_events_per_table: 50,
        ..StoreLimits::default()
    };
    let store = store(limits).await;
    store
        .create("long", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    for _ in 0..600 {
        store
            .update::<Counter, _, _>("long", None, |c, _| {
                c.count += 1;
                Ok(Change::new(vec![NewEvent::public(vec![1])], None, ()))
            })
            .await
            .unwrap();
    }
    let kept = store.events_after("long", 0, 10_000).await.unwrap();
    assert!(kept.len() < 300, "kept {} events", kept.len());
    assert_eq!(kept.last().unwrap().seq, 600);
}

/// A watcher sitting at `seat` (None: a spectator), one caller per seat.
fn watcher(seat: Option<u8>) -> Watcher {
    Watcher {
        caller: format!("caller at {seat:?}"),
        seated: seat,
        sees_as: seat,
    }
}

async fn next_item(
    stream: &mut (impl futures::Stream<Item = Result<WatchItem, ApiError>> + Unpin),
) -> WatchItem {
    tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("an item within 5 s")
        .expect("the stream goes on")
        .expect("no error")
}

#[tokio::test]
async fn a_watcher_gets_a_snapshot_then_its_events_and_resumes_without_gaps() {
    let store = store(StoreLimits::default()).await;
    let shutdown = Shutdown::new();
    let hub = EventHub::new(
        store.clone(),
        WatchLimits {
            poll_interval: Duration::from_millis(200),
            ..WatchLimits::default()
        },
    );
    tokio::spawn(
        hub.clone()
            .run(gamehub_testkit::redis::redis_target(), shutdown.listener()),
    );
    store
        .create(
            "w",
            &Counter { count: 0 },
            change(vec![NewEvent::public(b"e1".to_vec())], None),
            None,
        )
        .await
        .unwrap();

    let mut stream = Box::pin(
        hub.watch("w".into(), &watcher(Some(0)), None, shutdown.listener())
            .unwrap(),
    );
    match next_item(&mut stream).await {
        WatchItem::Snapshot { seq, .. } => assert_eq!(seq, 1),
        other => panic!("expected a snapshot, got {other:?}"),
    }
    for i in 2..=4u8 {
        let audience = if i == 3 {
            Audience::Seat(1)
        } else {
            Audience::All
        };
        store
            .update::<Counter, _, _>("w", None, move |c, _| {
                c.count += 1;
                Ok(Change::new(
                    vec![NewEvent {
                        audience,
                        payload: vec![i],
                    }],
                    None,
                    (),
                ))
            })
            .await
            .unwrap();
    }
    let mut seen = Vec::new();
    for _ in 0..2 {
        match next_item(&mut stream).await {
            WatchItem::Event(e) => seen.push(e.seq),
            other => panic!("expected an event, got {other:?}"),
        }
    }
    assert_eq!(seen, vec![2, 4], "seat 0 never sees seat 1's private event");
    drop(stream);

    // Resume after event 2: exactly the later events seat 1 may see, no snapshot.
    let mut resumed = Box::pin(
        hub.watch("w".into(), &watcher(Some(1)), Some(2), shutdown.listener())
            .unwrap(),
    );
    let mut seqs = Vec::new();
    for _ in 0..2 {
        match next_item(&mut resumed).await {
            WatchItem::Event(e) => seqs.push(e.seq),
            other => panic!("expected an event, got {other:?}"),
        }
    }
    assert_eq!(seqs, vec![3, 4]);
    shutdown.trigger();
}

/// A watcher is woken by the step's own notification (a sharded `SPUBLISH` on a
/// cluster, `PUBLISH` on a single Redis) and not by its poll, which is set to a minute
/// here: with notifications broken, nothing arrives in time.
#[tokio::test]
async fn a_watcher_is_woken_by_the_steps_notification_not_by_its_poll() {
    let store = store(StoreLimits::default()).await;
    let shutdown = Shutdown::new();
    let hub = EventHub::new(
        store.clone(),
        WatchLimits {
            poll_interval: Duration::from_secs(60),
            ..WatchLimits::default()
        },
    );
    tokio::spawn(
        hub.clone()
            .run(gamehub_testkit::redis::redis_target(), shutdown.listener()),
    );
    // Tables on several shards, so several channels (and, on a cluster, nodes) are used.
    let tables: Vec<String> = (0..6).map(|i| format!("woken-{i}")).collect();
    for table in &tables {
        store
            .create(table, &Counter { count: 0 }, change(vec![], None), None)
            .await
            .unwrap();
    }
    for table in &tables {
        // The watcher runs in a task of its own, so it reads, finds nothing and parks
        // in its wait before the step comes (a stream polled only after the step would
        // find the event by reading, notification or not).
        let mut stream = Box::pin(
            hub.watch(table.clone(), &watcher(None), None, shutdown.listener())
                .unwrap(),
        );
        let (tx, mut items) = tokio::sync::mpsc::channel(16);
        tokio::spawn(async move {
            while let Some(item) = stream.next().await {
                if tx.send(item).await.is_err() {
                    break;
                }
            }
        });
        let first = tokio::time::timeout(Duration::from_secs(5), items.recv()).await;
        assert!(matches!(first, Ok(Some(Ok(WatchItem::Snapshot { .. })))));
        // The subscription may still be starting: a step per second until one wakes
        // the watcher, at most ten (the poll would take sixty). Each step waits a moment
        // first, for the watcher to park.
        let mut woken = None;
        for _ in 0..10 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            append(&store, table, 1).await;
            if let Ok(item) = tokio::time::timeout(Duration::from_secs(1), items.recv()).await {
                woken = item;
                break;
            }
        }
        match woken {
            Some(Ok(WatchItem::Event(_))) => {}
            other => panic!("table {table}: no event within 10 s of its steps: {other:?}"),
        }
    }
    shutdown.trigger();
}

/// Appends `steps` public events to a counter table, one step each.
async fn append(store: &TableStore, table: &str, steps: usize) {
    for _ in 0..steps {
        store
            .update::<Counter, _, _>(table, None, |c, _| {
                c.count += 1;
                Ok(Change::new(vec![NewEvent::public(vec![0])], None, ()))
            })
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn resuming_past_trimmed_events_starts_with_a_snapshot() {
    let store = store(StoreLimits {
        max_events_per_table: 10,
        ..StoreLimits::default()
    })
    .await;
    let shutdown = Shutdown::new();
    let hub = EventHub::new(store.clone(), WatchLimits::default());
    store
        .create("g", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    append(&store, "g", 500).await;
    let mut stream = Box::pin(
        hub.watch("g".into(), &watcher(None), Some(3), shutdown.listener())
            .unwrap(),
    );
    match next_item(&mut stream).await {
        WatchItem::Snapshot { seq, .. } => assert_eq!(seq, 500),
        other => panic!("expected a snapshot after a gap, got {other:?}"),
    }
    shutdown.trigger();
}

#[tokio::test]
async fn watchers_per_table_are_bounded() {
    let store = store(StoreLimits::default()).await;
    let hub = EventHub::new(
        store,
        WatchLimits {
            // Two seats keep 4 places each: spectators share the other 2.
            max_watchers_per_table: 10,
            ..WatchLimits::default()
        },
    );
    assert_eq!(hub.limits().spectator_places(), 2);
    let a = hub.subscribe("t", "a", None).unwrap();
    let _b = hub.subscribe("t", "b", None).unwrap();
    assert!(matches!(
        hub.subscribe("t", "c", None),
        Err(ApiError::ResourceExhausted { .. })
    ));
    // The seated players still get their 4 streams each.
    let mut seated = Vec::new();
    for seat in [0, 1] {
        for _ in 0..4 {
            seated.push(hub.subscribe("t", "player", Some(seat)).unwrap());
        }
    }
    assert!(matches!(
        hub.subscribe("t", "player", Some(0)),
        Err(ApiError::ResourceExhausted { .. })
    ));
    drop(a);
    assert!(
        hub.subscribe("t", "c", None).is_ok(),
        "a freed place can be taken again"
    );
}

/// Applies a "timeout" by bumping the counter when the table's stored deadline passed.
struct Timeouts {
    store: TableStore,
    applied: AtomicUsize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Clocked {
    deadline_ms: Option<u64>,
    timeouts: u64,
}

impl DeadlineHandler for Timeouts {
    async fn on_deadline(&self, table_id: String, now_ms: u64) {
        let result = self
            .store
            .update::<Clocked, bool, _>(&table_id, None, |t, _| {
                if t.deadline_ms.is_some_and(|d| d <= now_ms) {
                    t.timeouts += 1;
                    t.deadline_ms = None;
                    Ok(Change::new(
                        vec![NewEvent::public(b"timeout".to_vec())],
                        None,
                        true,
                    ))
                } else {
                    Ok(Change::new(vec![], t.deadline_ms, false))
                }
            })
            .await;
        if let Ok(Updated::Applied { output: true, .. }) = result {
            self.applied.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[tokio::test]
async fn a_deadline_is_applied_once_by_racing_sweepers() {
    let clock = ManualClock::new();
    let store = store_with_clock(StoreLimits::default(), clock.clock()).await;
    let shutdown = Shutdown::new();
    let handler = Arc::new(Timeouts {
        store: store.clone(),
        applied: AtomicUsize::new(0),
    });
    let deadline = clock.now_ms() + 300;
    for i in 0..10 {
        store
            .create(
                &format!("c{i}"),
                &Clocked {
                    deadline_ms: Some(deadline),
                    timeouts: 0,
                },
                change(vec![], Some(deadline)),
                None,
            )
            .await
            .unwrap();
    }
    let config = SweepConfig {
        interval: Duration::from_millis(20),
        ..SweepConfig::default()
    };
    let sweepers: Vec<_> = (0..3)
        .map(|_| {
            tokio::spawn(run_sweeper(
                store.clone(),
                handler.clone(),
                config.clone(),
                shutdown.listener(),
            ))
        })
        .collect();
    // Until the clock reaches the deadline, the sweepers leave the tables alone.
    for _ in 0..2 {
        let due = store.due_tables(clock.now_ms(), 100).await.unwrap();
        assert!(due.is_empty(), "nothing is due before the deadline");
    }
    assert_eq!(handler.applied.load(Ordering::SeqCst), 0);
    clock.advance_to(deadline);
    eventually(
        "all ten timeouts applied",
        Duration::from_secs(10),
        || async { (handler.applied.load(Ordering::SeqCst) >= 10).then_some(()) },
    )
    .await;
    // Stop the sweepers and wait for them: no sweep is still in flight when counting.
    shutdown.trigger();
    for sweeper in sweepers {
        tokio::time::timeout(Duration::from_secs(10), sweeper)
            .await
            .expect("the sweepers stop")
            .unwrap();
    }
    for i in 0..10 {
        let t = store
            .load::<Clocked>(&format!("c{i}"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(t.state.timeouts, 1, "table c{i} timed out exactly once");
        assert_eq!(store.deadline_of(&format!("c{i}")).await.unwrap(), None);
    }
    assert_eq!(handler.applied.load(Ordering::SeqCst), 10);
}

#[tokio::test]
async fn request_keys_are_bounded_and_the_recent_ones_still_deduplicate() {
    let limits = StoreLimits {
        max_request_keys: 20,
        ..StoreLimits::default()
    };
    let store = store(limits).await;
    store
        .create("keys", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    for i in 0..300 {
        store
            .update::<Counter, _, _>("keys", Some(&format!("p:{i}")), |c, _| {
                c.count += 1;
                Ok(Change::new(vec![NewEvent::public(vec![1])], None, ()))
            })
            .await
            .unwrap();
    }
    let mut conn = store.redis();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("gh:{{{}:*:t:keys:rq", store.game()))
        .query_async(&mut conn)
        .await
        .unwrap();
    let held: u64 = redis::cmd("ZCARD")
        .arg(&keys[0])
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(held <= 20 + 16, "request keys held: {held}");
    // The newest request is still recognised; the table is unchanged by its retry.
    let retried = store
        .update::<Counter, (), _>("keys", Some("p:299"), |_, _| unreachable!())
        .await
        .unwrap();
    assert!(matches!(retried, Updated::Duplicate { last_seq: 300 }));
    assert_eq!(
        store
            .load::<Counter>("keys")
            .await
            .unwrap()
            .unwrap()
            .state
            .count,
        300
    );
}

#[tokio::test]
async fn keys_made_after_the_opening_step_expire_too() {
    let store = store(StoreLimits::default()).await;
    store
        .create("late", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    // The second step makes the first event and the first request key.
    store
        .update::<Counter, _, _>("late", Some("p:1"), |c, _| {
            c.count += 1;
            Ok(Change::new(vec![NewEvent::public(vec![1])], None, ()))
        })
        .await
        .unwrap();
    let mut conn = store.redis();
    for suffix in ["ev", "rq"] {
        let key = store.companion_key("late", suffix);
        let ttl: i64 = redis::cmd("TTL")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(ttl > 0, "{key} has no lifetime (TTL {ttl})");
    }
}

/// An event whose audience cannot be read (a corrupt or foreign write) is an error, never
/// shown to everybody: a private event such as a dealt hand fails closed.
#[tokio::test]
async fn an_event_with_an_unreadable_audience_is_refused_not_shown_to_everyone() {
    let store = store(StoreLimits::default()).await;
    store
        .create(
            "leaky",
            &Counter { count: 0 },
            change(vec![NewEvent::private(1, b"hand".to_vec())], None),
            None,
        )
        .await
        .unwrap();
    let events = store.events_after("leaky", 0, 10).await.unwrap();
    assert_eq!(events[0].audience, Audience::Seat(1));

    let mut conn = store.redis();
    let stream = store.companion_key("leaky", "ev");
    for (id, fields) in [
        ("0-2", vec![("a", "everyone"), ("p", "secret")]),
        ("0-3", vec![("p", "no audience")]),
    ] {
        let _: String = redis::cmd("XADD")
            .arg(&stream)
            .arg(id)
            .arg(fields)
            .query_async(&mut conn)
            .await
            .unwrap();
        let after = id.strip_prefix("0-").unwrap().parse::<u64>().unwrap() - 1;
        let refused = store.events_after("leaky", after, 10).await.unwrap_err();
        assert!(matches!(refused, ApiError::Internal(_)), "{refused:?}");
    }
}

/// Resumes a watch of `table` as `seat` over and over (see [`resume_repeatedly`]).
async fn resume_watching(
    hub: EventHub,
    table: String,
    seat: Option<u8>,
    rounds: usize,
    shutdown: Shutdown,
) -> Resumed {
    let watch = |after: u64| {
        let stream = hub
            .watch(
                table.clone(),
                &watcher(seat),
                (after > 0).then_some(after),
                shutdown.listener(),
            )
            .unwrap();
        let seen = Box::pin(stream).map(move |item| match item.unwrap() {
            WatchItem::Event(event) => {
                assert!(event.audience.admits(seat), "only its own events");
                Seen::Event(event.seq)
            }
            WatchItem::Snapshot { seq, .. } => Seen::Snapshot(seq),
        });
        std::future::ready(seen)
    };
    resume_repeatedly(watch, rounds).await
}

#[tokio::test]
async fn watchers_resumed_while_their_tables_are_written_miss_nothing_and_get_no_snapshot() {
    // Every event stays in the stream (no trimming), so the stream is the reference.
    let store = store(StoreLimits {
        max_events_per_table: 1_000_000,
        ..StoreLimits::default()
    })
    .await;
    let shutdown = Shutdown::new();
    let hub = EventHub::new(store.clone(), WatchLimits::default());
    tokio::spawn(
        hub.clone()
            .run(gamehub_testkit::redis::redis_target(), shutdown.listener()),
    );
    const TABLES: usize = 4;
    const ROUNDS: usize = 84; // 4 tables × 3 watchers × 84 = 1,008 resumes
    let tables: Vec<String> = (0..TABLES).map(|i| format!("busy{i}")).collect();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut writers = Vec::new();
    for table in &tables {
        store
            .create(
                table,
                &Counter { count: 0 },
                change(vec![NewEvent::public(b"open".to_vec())], None),
                None,
            )
            .await
            .unwrap();
        // Steps of one to three events, some private to seat 0 or 1, until told to stop.
        let (store, table, done) = (store.clone(), table.clone(), done.clone());
        writers.push(tokio::spawn(async move {
            let mut steps = 0u64;
            while !done.load(Ordering::SeqCst) {
                steps += 1;
                store
                    .update::<Counter, _, _>(&table, None, |c, _| {
                        c.count += 1;
                        let events = (0..=steps % 3)
                            .map(|i| match (steps + i) % 4 {
                                0 => NewEvent::private(0, vec![1]),
                                1 => NewEvent::private(1, vec![1]),
                                _ => NewEvent::public(vec![0]),
                            })
                            .collect();
                        Ok(Change::new(events, None, ()))
                    })
                    .await
                    .unwrap();
            }
        }));
    }
    let mut watchers = Vec::new();
    for table in &tables {
        for seat in [Some(0), Some(1), None] {
            watchers.push((
                table.clone(),
                seat,
                tokio::spawn(resume_watching(
                    hub.clone(),
                    table.clone(),
                    seat,
                    ROUNDS,
                    shutdown.clone(),
                )),
            ));
        }
    }
    let mut results = Vec::new();
    for (table, seat, watcher) in watchers {
        results.push((table, seat, watcher.await.unwrap()));
    }
    done.store(true, Ordering::SeqCst);
    for writer in writers {
        writer.await.unwrap();
    }
    let resumes = results.len() * ROUNDS;
    let (snapshots, events) = results.iter().fold((0, 0), |(s, e), (_, _, r)| {
        (s + r.snapshots, e + r.seen.len())
    });
    println!("{resumes} resumes under load: {snapshots} snapshots, {events} events received");
    assert!(resumes >= 1_000);
    assert_eq!(snapshots, 0, "no snapshot: nothing was trimmed");
    for (table, seat, resumed) in results {
        // Exactly the events after its snapshot, up to where it stopped, that it may see.
        let expected: Vec<u64> = store
            .events_after(&table, resumed.start, 1_000_000)
            .await
            .unwrap()
            .into_iter()
            .filter(|e| e.seq <= resumed.last() && e.audience.admits(seat))
            .map(|e| e.seq)
            .collect();
        let seen = resumed.seen;
        assert_eq!(seen, expected, "{table} as {seat:?}: every event once");
    }
    shutdown.trigger();
}

#[tokio::test]
async fn a_watcher_that_falls_behind_the_kept_events_gets_a_snapshot_not_a_gap() {
    let store = store(StoreLimits {
        max_events_per_table: 10,
        ..StoreLimits::default()
    })
    .await;
    let shutdown = Shutdown::new();
    let hub = EventHub::new(store.clone(), WatchLimits::default());
    store
        .create("slow", &Counter { count: 0 }, change(vec![], None), None)
        .await
        .unwrap();
    let mut stream = Box::pin(
        hub.watch("slow".into(), &watcher(None), None, shutdown.listener())
            .unwrap(),
    );
    match next_item(&mut stream).await {
        WatchItem::Snapshot { seq, .. } => assert_eq!(seq, 0),
        other => panic!("expected a snapshot, got {other:?}"),
    }
    // The watcher reads nothing while 300 events are appended (most then trimmed).
    append(&store, "slow", 300).await;
    match next_item(&mut stream).await {
        WatchItem::Snapshot { seq, .. } => assert_eq!(seq, 300),
        other => panic!("expected a snapshot over the trimmed events, got {other:?}"),
    }
    shutdown.trigger();
}

#[tokio::test]
async fn a_resume_from_beyond_the_table_gets_a_snapshot_and_an_unknown_table_is_not_found() {
    let store = store(StoreLimits::default()).await;
    let shutdown = Shutdown::new();
    let hub = EventHub::new(store.clone(), WatchLimits::default());
    store
        .create(
            "ahead",
            &Counter { count: 0 },
            change(vec![NewEvent::public(vec![0])], None),
            None,
        )
        .await
        .unwrap();
    let mut stream = Box::pin(
        hub.watch("ahead".into(), &watcher(None), Some(7), shutdown.listener())
            .unwrap(),
    );
    match next_item(&mut stream).await {
        WatchItem::Snapshot { seq, .. } => assert_eq!(seq, 1),
        other => panic!("expected a snapshot, got {other:?}"),
    }
    let mut unknown = Box::pin(
        hub.watch(
            "nowhere".into(),
            &watcher(None),
            Some(3),
            shutdown.listener(),
        )
        .unwrap(),
    );
    let refused = tokio::time::timeout(Duration::from_secs(5), unknown.next())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(refused, Err(ApiError::NotFound(_))), "{refused:?}");
    shutdown.trigger();
}
