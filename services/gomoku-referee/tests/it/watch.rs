//! Watching a table: snapshot first, then every event once, resumable.

use std::time::Duration;

use futures::StreamExt;
use gamehub_platform::auth::Role;
use gamehub_proto::gomoku as pb;

use crate::support::*;

async fn next(stream: &mut tonic::Streaming<pb::WatchResponse>) -> pb::watch_response::Item {
    tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("a watch message within 5 s")
        .expect("the stream goes on")
        .expect("no error")
        .item
        .unwrap()
}

fn stone_event(item: pb::watch_response::Item) -> (u64, i32) {
    match item {
        pb::watch_response::Item::Event(pb::TableEvent {
            event_id,
            kind: Some(pb::table_event::Kind::StonePlaced(placed)),
            ..
        }) => (event_id, placed.stone.unwrap().ply),
        other => panic!("expected a stone event, got {other:?}"),
    }
}

#[tokio::test]
async fn a_watcher_that_resumes_misses_nothing_and_sees_nothing_twice() {
    let fx = Fixture::new().await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"])
        .await;
    let id = table.table_id.clone();
    // A spectator (a player of no seat here) watches from the start.
    let mut carol = fx.client_at(&fx.url(), "carol", Role::Player);
    let mut stream = carol
        .watch(pb::WatchRequest {
            table_id: id.clone(),
            after_event_id: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let pb::watch_response::Item::Table(snapshot) = next(&mut stream).await else {
        panic!("a fresh watch starts with the table");
    };
    assert_eq!(snapshot.your_seat, None, "carol is a spectator");
    let mut last = snapshot.last_event_id;
    let mut seen = Vec::new();
    play(&alice, &bob, &id, &["h8", "a1", "h9", "a2"]).await;
    for _ in 0..4 {
        let (event_id, ply) = stone_event(next(&mut stream).await);
        assert_eq!(event_id, last + 1, "no gap, no repeat");
        last = event_id;
        seen.push(ply);
    }
    drop(stream); // the connection drops
    play(&alice, &bob, &id, &["h10", "a3", "h11", "a4"]).await;
    let mut resumed = carol
        .watch(pb::WatchRequest {
            table_id: id.clone(),
            after_event_id: last,
        })
        .await
        .unwrap()
        .into_inner();
    for _ in 0..4 {
        let (event_id, ply) = stone_event(next(&mut resumed).await);
        assert_eq!(event_id, last + 1, "resumed right after the last event");
        last = event_id;
        seen.push(ply);
    }
    assert_eq!(seen, (1..=8).collect::<Vec<_>>());
    // Live events keep coming on the resumed stream, ending with the game over.
    alice.place(&id, "h12").await.unwrap();
    let (_, ply) = stone_event(next(&mut resumed).await);
    assert_eq!(ply, 9);
    match next(&mut resumed).await {
        pb::watch_response::Item::Event(pb::TableEvent {
            kind: Some(pb::table_event::Kind::GameOver(over)),
            ..
        }) => assert_eq!(over.result.unwrap().outcome(), pb::Outcome::BlackWins),
        other => panic!("expected game over, got {other:?}"),
    }
    // A seated player's fresh watch shows its seat.
    let mut own = alice
        .client
        .clone()
        .watch(pb::WatchRequest {
            table_id: id.clone(),
            after_event_id: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let pb::watch_response::Item::Table(mine) = next(&mut own).await else {
        panic!("a fresh watch starts with the table");
    };
    assert_eq!(mine.your_seat, Some(0));
    assert_eq!(mine.last_event_id, fx.table(&id).await.last_event_id);
    fx.stop().await;
}
