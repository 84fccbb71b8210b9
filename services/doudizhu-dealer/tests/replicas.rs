//! Several dealer replicas on one Redis: racing actions apply once; a replica killed
//! with SIGKILL mid-deal leaves the table to the other (clocks included); a deal that
//! ends while the ledger is down is settled exactly once after it returns.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use futures::StreamExt;
use gamehub_doudizhu_dealer::GAME;
use gamehub_doudizhu_dealer::testing::dealer_env;
use gamehub_platform::client::check_health;
use gamehub_proto::doudizhu as pb;
use tonic::Code;

fn driver_on(world: &World, url: &str, base: &Driver) -> Driver {
    Driver {
        table_id: base.table_id.clone(),
        players: base.players.clone(),
        clients: base
            .players
            .clone()
            .map(|p| dz(url, &world.keys, &p, gamehub_platform::auth::Role::Player)),
    }
}

#[tokio::test]
async fn two_replicas_racing_on_one_table_apply_each_action_once() {
    let world = World::start().await;
    let mut second = gamehub_doudizhu_dealer::testing::start(
        &world.prefix,
        &world.ledger.url,
        &Options::default(),
    )
    .await;
    let a = world.open(&[find_seed(41, |_| true)], 0).await;
    let b = driver_on(&world, &second.url, &a);

    // The same request through both replicas at once: applied once.
    let first = seat(a.view(0).await.first_bidder);
    let request = pb::BidRequest {
        table_id: a.table_id.clone(),
        request_id: "same-bid".into(),
        points: 1,
    };
    let (mut ca, mut cb) = (a.client(first), b.client(first));
    let (x, y) = tokio::join!(ca.bid(request.clone()), cb.bid(request));
    let (x, y) = (x.unwrap().into_inner(), y.unwrap().into_inner());
    assert!(x.replayed != y.replayed, "exactly one applied");
    assert_eq!(a.view(0).await.bids.len(), 1);
    // The others pass: `first` is landlord.
    for i in 1..3 {
        a.bid((first + i) % 3, 0).await.unwrap();
    }

    // Every turn: two different actions of the seat to act, one through each replica.
    let mut applied = 0;
    let mut refused = 0;
    loop {
        let view = a.view(0).await;
        if view.phase != pb::Phase::Playing as i32 {
            break;
        }
        let s = seat(view.to_act);
        let hints = a.hint(s).await.unwrap();
        let (x, y) = if view.must_lead || seat(view.trick.as_ref().unwrap().seat) == s {
            let small = hints.plays.first().unwrap().ranks.clone();
            let big = hints.plays.last().unwrap().ranks.clone();
            tokio::join!(a.play(s, &small), b.play(s, &big))
        } else if s == first {
            match hints.plays.first() {
                Some(play) => {
                    let ranks = play.ranks.clone();
                    tokio::join!(a.play(s, &ranks), b.pass(s))
                }
                None => tokio::join!(a.pass(s), b.pass(s)),
            }
        } else {
            tokio::join!(a.pass(s), b.pass(s))
        };
        for result in [x, y] {
            match result {
                Ok(_) => applied += 1,
                Err(status) => {
                    assert!(
                        matches!(status.code(), Code::FailedPrecondition | Code::Aborted),
                        "{status:?}"
                    );
                    refused += 1;
                }
            }
        }
        assert_eq!(applied, refused, "exactly one of each pair applied");
    }
    let end = a.view(0).await;
    assert_eq!(end.turns.len(), applied);
    let result = end.result.unwrap();
    world.settled(&format!("{}:1", a.table_id)).await;
    world
        .check_ledger(
            &a.players,
            [result.points[0], result.points[1], result.points[2]],
        )
        .await;
    second.stop().await;
    world.finish().await;
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The real binary, serving on a free port.
async fn spawn_binary(world: &World, options: &Options) -> (tokio::process::Child, String) {
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_gamehub-doudizhu-dealer"));
    command
        .arg("serve")
        .envs(dealer_env(&world.prefix, &world.ledger.url, options, &addr))
        .env("RUST_LOG", "warn")
        .kill_on_drop(true);
    let child = command.spawn().unwrap();
    let url = format!("http://{addr}");
    eventually(
        "the dealer binary healthy",
        Duration::from_secs(10),
        || async { check_health(&url, "").await.unwrap_or(false).then_some(()) },
    )
    .await;
    (child, url)
}

#[tokio::test]
async fn a_replica_killed_mid_deal_leaves_the_table_to_the_other() {
    let world = World::start().await;
    let options = Options::default();
    let (mut first_process, first_url) = spawn_binary(&world, &options).await;
    let (mut second_process, second_url) = spawn_binary(&world, &options).await;
    let players = world.players().await;
    let mut service = dz(
        &first_url,
        &world.keys,
        "matchmaking",
        gamehub_platform::auth::Role::Service,
    );
    let opened = service
        .open_table(open_request(&players, &[find_seed(42, |_| true)], 800))
        .await
        .unwrap()
        .into_inner();
    let base = Driver {
        table_id: opened.table_id.clone(),
        clients: players.clone().map(|p| {
            dz(
                &first_url,
                &world.keys,
                &p,
                gamehub_platform::auth::Role::Player,
            )
        }),
        players: players.clone(),
    };
    let on_second = driver_on(&world, &second_url, &base);

    // Bidding and a few turns through the first replica.
    let landlord = seat(base.view(0).await.first_bidder);
    base.make_landlord(landlord, 2).await;
    for _ in 0..4 {
        let view = base.view(0).await;
        let s = seat(view.to_act);
        if s == landlord {
            base.play(s, &smallest(&base.hint(s).await.unwrap()).unwrap())
                .await
                .unwrap();
        } else {
            base.pass(s).await.unwrap();
        }
    }
    let before = base.view(0).await;
    first_process.kill().await.unwrap();

    // The surviving replicas have the table; their sweepers keep the clock: the seat to
    // act does nothing and the server plays for it. (The binaries run on the system
    // clock; the test's own replica runs on the test's clock, moved past the deadline.)
    let waiting = seat(before.to_act);
    let turns = before.turns.len();
    assert!(
        before.turn_deadline_unix_ms > 0,
        "the seat to act has a clock"
    );
    world
        .clock
        .advance_to(u64::try_from(before.turn_deadline_unix_ms).unwrap());
    let view = eventually(
        "the surviving replica applied the timeout",
        Duration::from_secs(10),
        || async {
            let view = on_second.view(0).await;
            (view.turns.len() > turns).then_some(view)
        },
    )
    .await;
    let turn = &view.turns[turns];
    assert_eq!(seat(turn.seat), waiting);
    assert_eq!(turn.by, pb::Actor::Timeout as i32);

    let end = on_second
        .play_out(|s, _, hints| if s == landlord { smallest(hints) } else { None })
        .await;
    let result = end.result.unwrap();
    world.settled(&format!("{}:1", base.table_id)).await;
    world
        .check_ledger(
            &players,
            [result.points[0], result.points[1], result.points[2]],
        )
        .await;
    second_process.kill().await.unwrap();
    world.finish().await;
}

#[tokio::test]
async fn a_deal_ending_while_the_ledger_is_down_is_settled_once_it_returns() {
    let mut world = World::start().await;
    let driver = world.open(&[find_seed(43, |_| true)], 0).await;
    let landlord = seat(driver.view(0).await.first_bidder);
    driver.make_landlord(landlord, 3).await;

    world.ledger.stop().await;
    let retries = gamehub_testkit::redis::settlement_retries(GAME);
    let end = driver
        .play_out(|s, _, hints| if s == landlord { smallest(hints) } else { None })
        .await;
    let result = end.result.unwrap();
    gamehub_testkit::redis::settlers_retried(GAME, retries, 2).await;
    assert!(
        driver.view(0).await.result.unwrap().settlement.is_empty(),
        "not settled while the ledger is down"
    );

    world.ledger.resume().await;
    world.settled(&format!("{}:1", driver.table_id)).await;
    world
        .check_ledger(
            &driver.players,
            [result.points[0], result.points[1], result.points[2]],
        )
        .await;

    // The table announces the settlement once.
    let settled_view = eventually(
        "the settlement reached the table",
        Duration::from_secs(5),
        || async {
            let view = driver.view(0).await;
            (!view.result.as_ref().unwrap().settlement.is_empty()).then_some(view)
        },
    )
    .await;
    // Nothing is left to deliver, so nothing can be announced again.
    assert_eq!(
        gamehub_testkit::redis::settlement_backlog(&world.prefix, GAME).await,
        0
    );
    let mut stream = world
        .player("auditor")
        .watch(pb::WatchRequest {
            table_id: driver.table_id.clone(),
            after_event_id: 1,
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner();
    let mut settled_events = 0;
    let last = driver.view(0).await.last_event_id;
    let mut seen = 1;
    while seen < last {
        let item = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Some(pb::watch_response::Item::Event(event)) = item.item {
            seen = event.event_id;
            if matches!(event.kind, Some(pb::table_event::Kind::DealSettled(_))) {
                settled_events += 1;
            }
        }
    }
    assert_eq!(settled_events, 1);
    assert!(settled_view.last_event_id <= last);
    world.finish().await;
}
