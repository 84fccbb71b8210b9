//! Watching a table: snapshot first, then every event once, resumable.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt;
use gamehub_platform::auth::Role;
use gamehub_proto::gomoku as pb;
use gamehub_testkit::resume::{Resumed, Seen, resume_repeatedly};

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

/// Both colors' points of a board on which neither color can ever make five: a point is
/// black when `x / 2 + y` is even (runs of at most two along every line). Black's list
/// starts at h8 (the first move's point); 113 black points, 112 white ones.
fn points_without_five() -> [Vec<String>; 2] {
    let mut colors: [Vec<String>; 2] = [vec!["h8".to_owned()], Vec::new()];
    for y in 0..15u8 {
        for x in 0..15u8 {
            let text = format!("{}{}", char::from(b'a' + x), y + 1);
            if text != "h8" {
                colors[usize::from((x / 2 + y) % 2)].push(text);
            }
        }
    }
    colors
}

/// Asks for the next game until the table grants it (retrying what the API calls
/// retryable: UNAVAILABLE, or a refusal that carries a retry hint).
async fn next_game_when_allowed(player: &Player, table_id: &str) -> pb::NextGameResponse {
    for _ in 0..200 {
        match player.next_game(table_id).await {
            Ok(response) => return response,
            Err(status)
                if status.code() == tonic::Code::Unavailable
                    || status.metadata().get("retry-after-ms").is_some() =>
            {
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            Err(status) => panic!("next game at {table_id}: {status}"),
        }
    }
    panic!("no next game at {table_id} after 200 tries");
}

/// Plays games at a table as fast as the referee takes them (each on the no-five
/// board, then the next game) until `done`.
async fn play_hard(players: [Player; 2], table_id: String, done: Arc<AtomicBool>) -> usize {
    let points = points_without_five();
    let mut black = 0usize;
    let mut moves = 0;
    while !done.load(Ordering::SeqCst) {
        for ply in 0..225 {
            if done.load(Ordering::SeqCst) {
                return moves;
            }
            let color = ply % 2;
            let player = &players[if color == 0 { black } else { 1 - black }];
            let table = player
                .place(&table_id, &points[color][ply / 2])
                .await
                .unwrap_or_else(|e| panic!("move {} at {table_id}: {e}", ply + 1));
            moves += 1;
            if game(&table).result.is_some() {
                break;
            }
        }
        next_game_when_allowed(&players[0], &table_id).await;
        let table = next_game_when_allowed(&players[1], &table_id).await;
        assert!(table.started, "both asked: the next game starts");
        black = usize::try_from(game(table.table.as_ref().unwrap()).black_seat).unwrap();
    }
    moves
}

/// Resumes a watch of `table_id` by `client` over and over (see [`resume_repeatedly`]).
async fn resume_watching(client: Gomoku, table_id: String, rounds: usize) -> Resumed {
    let watch = |after_event_id| {
        let (mut client, table_id) = (client.clone(), table_id.clone());
        async move {
            let stream = client
                .watch(pb::WatchRequest {
                    table_id,
                    after_event_id,
                })
                .await
                .unwrap()
                .into_inner();
            stream.map(|item| match item.unwrap().item.unwrap() {
                pb::watch_response::Item::Event(event) => Seen::Event(event.event_id),
                pb::watch_response::Item::Table(table) => Seen::Snapshot(table.last_event_id),
            })
        }
    };
    resume_repeatedly(watch, rounds).await
}

#[tokio::test]
async fn watchers_resumed_while_their_tables_are_played_hard_miss_nothing_and_get_no_snapshot() {
    const TABLES: usize = 4;
    const ROUNDS: usize = 84; // 4 tables × 3 watchers × 84 = 1,008 resumes
    let fx = Fixture::new().await;
    let done = Arc::new(AtomicBool::new(false));
    let (mut tables, mut games, mut watchers) = (Vec::new(), Vec::new(), Vec::new());
    for t in 0..TABLES {
        let names = [format!("black{t}"), format!("white{t}")];
        fx.grant(&[&names[0], &names[1]]).await;
        let table = fx
            .open(pb::RuleSet::Freestyle, (60_000, 0), [&names[0], &names[1]])
            .await;
        let players = names.clone().map(|name| fx.player(&name));
        // Both seated players and a spectator, each resuming over and over.
        for client in [
            players[0].client.clone(),
            players[1].client.clone(),
            fx.client_at(&fx.url(), &format!("spectator{t}"), Role::Player),
        ] {
            watchers.push(tokio::spawn(resume_watching(
                client,
                table.table_id.clone(),
                ROUNDS,
            )));
        }
        games.push(tokio::spawn(play_hard(
            players,
            table.table_id.clone(),
            done.clone(),
        )));
        tables.push(table.table_id);
    }
    let mut results = Vec::new();
    for watcher in watchers {
        results.push(watcher.await.unwrap());
    }
    done.store(true, Ordering::SeqCst);
    let mut moves = 0;
    for game in games {
        moves += game.await.unwrap();
    }
    let (snapshots, events) = results
        .iter()
        .fold((0, 0), |(s, e), r| (s + r.snapshots, e + r.seen.len()));
    let resumes = results.len() * ROUNDS;
    println!(
        "gomoku: {resumes} resumes while {moves} moves were played: \
         {snapshots} snapshots, {events} events received"
    );
    assert!(resumes >= 1_000);
    assert_eq!(snapshots, 0, "no snapshot: nothing was trimmed");
    for (i, resumed) in results.iter().enumerate() {
        // Every Gomoku event is public: each watcher saw every id after its snapshot.
        let expected: Vec<u64> = (resumed.start + 1..=resumed.last()).collect();
        let table = &tables[i / 3];
        assert_eq!(
            resumed.seen, expected,
            "watcher {i} of {table}: every event once"
        );
    }
    fx.stop().await;
}

/// A fresh watch of `table_id` by `client`: the stream, or the refusal.
async fn watch_table(
    client: &Gomoku,
    table_id: &str,
) -> Result<tonic::Streaming<pb::WatchResponse>, tonic::Status> {
    let mut client = client.clone();
    let response = client
        .watch(pb::WatchRequest {
            table_id: table_id.to_owned(),
            after_event_id: 0,
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
    let fx = Fixture::with(|env| {
        for (name, value) in [
            // 2 seats keep 1 place each; spectators share the other 3.
            ("GAMEHUB_GOMOKU_MAX_WATCHERS_PER_TABLE", "5"),
            ("GAMEHUB_GOMOKU_MAX_WATCHERS_PER_SEAT", "1"),
            ("GAMEHUB_GOMOKU_MAX_WATCHERS_PER_CALLER", "3"),
        ] {
            env.push((name.to_owned(), value.to_owned()));
        }
    })
    .await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let id = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"])
        .await
        .table_id;
    let stranger = |name: &str| fx.client_at(&fx.url(), name, Role::Player);
    // Strangers take every spectator place; the next one is refused.
    let mut held = Vec::new();
    for i in 0..3 {
        held.push(
            watch_table(&stranger(&format!("stranger{i}")), &id)
                .await
                .unwrap(),
        );
    }
    assert_exhausted(
        watch_table(&stranger("stranger3"), &id).await,
        "already has 3 watchers besides its seated players",
    );
    // The seated players still watch their table, each in a place kept for its seat.
    for (player, seat) in [(&alice, 0), (&bob, 1)] {
        let mut stream = watch_table(&player.client, &id).await.unwrap();
        let pb::watch_response::Item::Table(view) = next(&mut stream).await else {
            panic!("a fresh watch starts with the table");
        };
        assert_eq!(view.your_seat, Some(seat));
        held.push(stream);
    }
    assert_exhausted(
        watch_table(&alice.client, &id).await,
        &format!("seat 0 of table {id} has 1 watchers already"),
    );
    // One caller holds at most 3 streams, across tables.
    let greedy = stranger("greedy");
    for t in 0..4 {
        let names = [format!("left{t}"), format!("right{t}")];
        let other = fx
            .open(pb::RuleSet::Freestyle, (60_000, 0), [&names[0], &names[1]])
            .await
            .table_id;
        if t < 3 {
            held.push(watch_table(&greedy, &other).await.unwrap());
        } else {
            assert_exhausted(
                watch_table(&greedy, &other).await,
                "you hold 3 watch streams on this server already",
            );
            held.push(
                watch_table(&stranger("someone-else"), &other)
                    .await
                    .unwrap(),
            );
        }
    }
    drop(held);
    fx.stop().await;
}
