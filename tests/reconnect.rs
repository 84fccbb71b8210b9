//! Back to my table (断线重连 after an app restart), through the public API of the whole
//! platform: a player's client is killed mid-game; a new client of the same player
//! finds the table with one call (`LocatePlayer`), resumes watching it and finishes
//! the game; once the table closes the call reports no seat; nobody else may read
//! another player's seat. Both games.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use futures::StreamExt;
use futures::future::join_all;
use gamehub_drive as drive;
use gamehub_drive::api::{Clients, request_id};
use gamehub_platform::auth::Role;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::matchmaking as mm;
use gamehub_testkit_services::platform::TestPlatform;
use tokio::sync::mpsc;
use tonic::Code;

/// Queues every player at once and returns their seats, in the players' order.
async fn seat_all(tp: &TestPlatform, room_id: &str, players: &[&str]) -> Vec<mm::Seat> {
    join_all(players.iter().map(|p| {
        let mut clients = tp.clients(p, Role::Player);
        let room_id = room_id.to_owned();
        async move {
            drive::matchmaking::seat(&mut clients.matchmaking, &room_id, "", |_| {})
                .await
                .unwrap()
        }
    }))
    .await
}

/// `LocatePlayer` for `player_id` (empty: the caller itself).
async fn locate(clients: &mut Clients, player_id: &str) -> mm::LocatePlayerResponse {
    clients
        .matchmaking
        .locate_player(mm::LocatePlayerRequest {
            player_id: player_id.into(),
        })
        .await
        .unwrap()
        .into_inner()
}

/// Checks that `player` sits nowhere and queues for nothing, as a fresh client sees it.
async fn seated_nowhere(tp: &TestPlatform, player: &str) {
    let place = locate(&mut tp.clients(player, Role::Player), "").await;
    assert!(place.ticket.is_none(), "{player} queues for nothing");
    assert!(
        place.seat.is_none(),
        "{player} sits nowhere: {:?}",
        place.seat
    );
}

/// Waits until the doomed client signals that it has seen enough of the game, then
/// kills it (its task, its stream and its connection go).
async fn kill_when_signalled<T>(
    mut killed: mpsc::UnboundedReceiver<()>,
    client: tokio::task::JoinHandle<T>,
) {
    tokio::time::timeout(Duration::from_secs(30), killed.recv())
        .await
        .expect("the doomed client saw the game going within 30 s");
    client.abort();
    let _ = client.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_gomoku_player_whose_client_died_finds_the_table_with_one_call_and_finishes() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let (ann, bob) = ("rc-ann", "rc-bob");
    let seats = seat_all(&tp, "gomoku-free", &[ann, bob]).await;
    let table_id = seats[0].table_id.clone();
    assert_eq!(seats[1].table_id, table_id);

    // Both play; ann's client dies once four stones are on the board.
    let (signal, killed) = mpsc::unbounded_channel();
    let doomed = {
        let client = tp.clients(ann, Role::Player).gomoku;
        let table_id = table_id.clone();
        let mut stones = 0;
        tokio::spawn(async move {
            let options = drive::gomoku::Options {
                games: 1,
                think: Duration::from_millis(20),
                seed: 1,
            };
            drive::gomoku::play(client, &table_id, options, move |update| {
                if let drive::gomoku::Update::Event(gm::TableEvent {
                    kind: Some(gm::table_event::Kind::StonePlaced(_)),
                    ..
                }) = update
                {
                    stones += 1;
                    if stones >= 4 {
                        let _ = signal.send(());
                    }
                }
            })
            .await
        })
    };
    let opponent = {
        let client = tp.clients(bob, Role::Player).gomoku;
        let table_id = table_id.clone();
        tokio::spawn(async move {
            let options = drive::gomoku::Options {
                games: 1,
                think: Duration::ZERO,
                seed: 2,
            };
            drive::gomoku::play(client, &table_id, options, |_| {}).await
        })
    };
    kill_when_signalled(killed, doomed).await;

    // A new client of ann's: one call says where she sits.
    let mut again = tp.clients(ann, Role::Player);
    let place = locate(&mut again, "").await;
    assert_eq!(place.player_id, ann);
    assert!(place.ticket.is_none());
    let seat = place.seat.expect("ann is seated");
    assert_eq!(seat.game_type(), GameType::Gomoku);
    assert_eq!(seat.table_id, table_id);
    assert_eq!(seat.seat, seats[0].seat);
    assert_eq!(seat.room_id, "gomoku-free");
    assert_eq!(seat.stage(), mm::TableStage::InProgress);
    assert_eq!(seat.players, seats[0].players);

    // Nobody else reads it: not her opponent; an operator may.
    let refused = tp
        .clients(bob, Role::Player)
        .matchmaking
        .locate_player(mm::LocatePlayerRequest {
            player_id: ann.into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);
    let mut operator = tp.clients("rc-ops", Role::Operator);
    assert_eq!(
        locate(&mut operator, ann).await.seat.unwrap().table_id,
        table_id
    );

    // Resume watching from a fresh snapshot: her seat and the game as it stands.
    let mut stream = again
        .gomoku
        .watch(gm::WatchRequest {
            table_id: seat.table_id.clone(),
            after_event_id: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let first = stream.next().await.unwrap().unwrap();
    let Some(gm::watch_response::Item::Table(snapshot)) = first.item else {
        panic!("a watch from 0 starts with a snapshot, got {first:?}");
    };
    assert_eq!(snapshot.your_seat, Some(seat.seat));
    assert!(snapshot.game.as_ref().unwrap().stones.len() >= 4);
    drop(stream);

    // And finish the game from there.
    let options = drive::gomoku::Options {
        games: 1,
        think: Duration::ZERO,
        seed: 3,
    };
    let finished = drive::gomoku::play(again.gomoku.clone(), &table_id, options, |_| {})
        .await
        .unwrap();
    assert_eq!(finished.results.len(), 1, "ann finished the game");
    assert_eq!(finished.settlements.len(), 1, "and saw it settled");
    opponent.await.unwrap().unwrap();

    // The table is closed (both left): no seat for either.
    seated_nowhere(&tp, ann).await;
    seated_nowhere(&tp, bob).await;
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dou_dizhu_player_whose_client_died_finds_the_table_with_one_call_and_finishes() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let players = ["rc-cat", "rc-dan", "rc-eve"];
    let seats = seat_all(&tp, "doudizhu-free", &players).await;
    let table_id = seats[0].table_id.clone();
    assert!(seats.iter().all(|s| s.table_id == table_id));
    let victim = players[0];

    // All three play; the victim's client dies once two plays were made.
    let (signal, killed) = mpsc::unbounded_channel();
    let mut others = Vec::new();
    let mut doomed = None;
    for (i, player) in players.iter().enumerate() {
        let client = tp.clients(player, Role::Player).doudizhu;
        let table_id = table_id.clone();
        let signal = (i == 0).then(|| signal.clone());
        let mut plays = 0;
        let task = tokio::spawn(async move {
            let options = drive::doudizhu::Options {
                deals: 1,
                think: if signal.is_some() {
                    Duration::from_millis(20)
                } else {
                    Duration::ZERO
                },
            };
            drive::doudizhu::play(client, &table_id, options, move |update| {
                if let drive::doudizhu::Update::Event(ddz::TableEvent {
                    kind: Some(ddz::table_event::Kind::Played(_)),
                    ..
                }) = update
                {
                    plays += 1;
                    if let Some(signal) = signal.as_ref().filter(|_| plays >= 2) {
                        let _ = signal.send(());
                    }
                }
            })
            .await
        });
        if i == 0 {
            doomed = Some(task);
        } else {
            others.push(task);
        }
    }
    drop(signal);
    kill_when_signalled(killed, doomed.unwrap()).await;

    // A new client of the victim: one call says where it sits.
    let mut again = tp.clients(victim, Role::Player);
    let seat = locate(&mut again, "").await.seat.expect("seated");
    assert_eq!(seat.game_type(), GameType::Doudizhu);
    assert_eq!(seat.table_id, table_id);
    assert_eq!(seat.seat, seats[0].seat);
    assert_eq!(seat.room_id, "doudizhu-free");
    assert_eq!(seat.stage(), mm::TableStage::InProgress);
    assert_eq!(seat.players, seats[0].players);

    // Another player of the table may not read it.
    let refused = tp
        .clients(players[1], Role::Player)
        .matchmaking
        .locate_player(mm::LocatePlayerRequest {
            player_id: victim.into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);

    // Resume watching as the seat: a snapshot with its own hand.
    let mut stream = again
        .doudizhu
        .watch(ddz::WatchRequest {
            table_id: table_id.clone(),
            after_event_id: 0,
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner();
    let first = stream.next().await.unwrap().unwrap();
    let Some(ddz::watch_response::Item::Snapshot(snapshot)) = first.item else {
        panic!("a watch from 0 starts with a snapshot, got {first:?}");
    };
    assert_eq!(snapshot.viewer_seat, seat.seat);
    assert!(!snapshot.hand.is_empty(), "the seat sees its own hand");
    drop(stream);

    // And finish the deal from there.
    let options = drive::doudizhu::Options {
        deals: 1,
        think: Duration::ZERO,
    };
    let finished = drive::doudizhu::play(again.doudizhu.clone(), &table_id, options, |_| {})
        .await
        .unwrap();
    assert_eq!(finished.results.len(), 1, "the victim finished the deal");
    for other in others {
        other.await.unwrap().unwrap();
    }

    for player in players {
        seated_nowhere(&tp, player).await;
    }
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_seat_is_in_progress_then_between_games_then_gone_when_the_table_closes() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let (fay, gus) = ("rc-fay", "rc-gus");
    let seats = seat_all(&tp, "gomoku-free", &[fay, gus]).await;
    let table_id = seats[0].table_id.clone();
    let mut fay_clients = tp.clients(fay, Role::Player);
    let table = fay_clients
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: table_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let black_seat = table.game.unwrap().black_seat;
    let black = &table.players[usize::try_from(black_seat).unwrap()].player_id;
    let white = &table.players[usize::try_from(1 - black_seat).unwrap()].player_id;

    let stage = |place: mm::LocatePlayerResponse| place.seat.map(|s| s.stage());
    assert_eq!(
        stage(locate(&mut fay_clients, "").await),
        Some(mm::TableStage::InProgress)
    );
    for (who, point) in [
        (black, "h8"),
        (white, "a1"),
        (black, "h9"),
        (white, "a2"),
        (black, "h10"),
        (white, "a3"),
        (black, "h11"),
        (white, "a4"),
        (black, "h12"),
    ] {
        tp.clients(who, Role::Player)
            .gomoku
            .place_stone(gm::PlaceStoneRequest {
                table_id: table_id.clone(),
                request_id: request_id(),
                point: Some(gm::Point {
                    text: point.into(),
                    x: 0,
                    y: 0,
                }),
                known_stones: 0,
                known_game: 0,
            })
            .await
            .unwrap();
    }
    // Black made five: the table waits for the next game.
    for player in [fay, gus] {
        let mut clients = tp.clients(player, Role::Player);
        assert_eq!(
            stage(locate(&mut clients, "").await),
            Some(mm::TableStage::BetweenGames),
            "{player}"
        );
    }

    // One leaves: the table closes, and neither sits anywhere.
    tp.clients(gus, Role::Player)
        .gomoku
        .leave(gm::LeaveRequest {
            player_id: String::new(),
            table_id: table_id.clone(),
            request_id: request_id(),
        })
        .await
        .unwrap();
    assert!(locate(&mut fay_clients, "").await.seat.is_none());
    assert!(
        locate(&mut tp.clients(gus, Role::Player), "")
            .await
            .seat
            .is_none()
    );
    tp.stop().await;
}
