//! `gamehub tournaments …` against the whole platform in the test's process, as a
//! player runs it (`--player` with the URL flags): list, register (the fee held once,
//! a balance too low refused in the server's words), show as the player sees it,
//! unregister (the fee back), the whole `run` path, and the follower `play` runs on:
//! each change of the tournament once, in order, until it is over.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use gamehub_client::commands::tournaments::{
    follow, list_lines, register_lines, show_lines, unregister_lines, whoami,
};
use gamehub_client::follow::Feed;
use gamehub_client::{ClientCommand, Connect, GameArg, TournamentArgs, TournamentsCommand};
use gamehub_drive::api::Services;
use gamehub_platform::auth::Role;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger as lg;
use gamehub_proto::tournament as tn;
use gamehub_testkit_services::platform::TestPlatform;
use tokio::sync::mpsc;

/// `--player NAME` and every URL flag, as a player types them.
fn connect(tp: &TestPlatform, player: &str) -> Connect {
    let e = &tp.endpoints;
    Connect {
        services: Services {
            host: None,
            matchmaking_url: Some(e.matchmaking.clone()),
            gomoku_url: Some(e.gomoku.clone()),
            doudizhu_url: Some(e.doudizhu.clone()),
            ledger_url: Some(e.ledger.clone()),
            tournaments_url: Some(e.tournaments.clone()),
        },
        token: None,
        player: Some(player.to_owned()),
    }
}

async fn balance(tp: &TestPlatform, player: &str) -> i64 {
    tp.clients("check", Role::Operator)
        .ledger
        .get_account(lg::GetAccountRequest {
            player_id: player.to_owned(),
        })
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap()
        .balance_silver
}

async fn create(tp: &TestPlatform, name: &str) -> String {
    tp.clients("ops", Role::Operator)
        .tournaments
        .create_tournament(tn::CreateTournamentRequest {
            request_id: gamehub_drive::api::request_id(),
            settings: Some(tn::TournamentSettings {
                name: name.to_owned(),
                game_type: GameType::Gomoku as i32,
                room_id: "gomoku-free".into(),
                entry_fee_silver: 50,
                min_players: 2,
                max_players: 4,
                starts_at_unix_ms: 4_000_000_000_000,
                prize_shares_bp: vec![7000, 3000],
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
        .tournament_id
}

async fn cancel(tp: &TestPlatform, id: &str) {
    tp.clients("ops", Role::Operator)
        .tournaments
        .cancel_tournament(tn::CancelTournamentRequest {
            tournament_id: id.to_owned(),
            reason: "rained off".into(),
        })
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_lists_registers_shows_and_unregisters() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let run = &gamehub_drive::api::request_id()[..8];
    let name = format!("Club night {run}");
    let id = create(&tp, &name).await;
    let ann = format!("ann-{run}");
    tp.grant(&ann, 200).await;
    let ann_connect = connect(&tp, &ann);
    let clients = ann_connect.clients(&tp.config).unwrap();
    assert_eq!(whoami(&ann_connect, &clients).await, ann);

    // Listed while open, with its players, fee and pool; not under the other game.
    let listed = list_lines(&clients, None, false).await.unwrap();
    let line = listed
        .iter()
        .find(|l| l.starts_with(&id))
        .unwrap_or_else(|| panic!("{id} listed: {listed:?}"));
    assert!(
        line.contains(&format!(
            "{name:?} · Gomoku · gomoku-free · 0/4 players · fee 50 · pool 0 · starts 2096-10-02 07:06 UTC"
        )),
        "{line}"
    );
    let doudizhu = list_lines(&clients, Some(GameArg::Doudizhu), false)
        .await
        .unwrap();
    assert!(!doudizhu.iter().any(|l| l.starts_with(&id)), "{doudizhu:?}");

    // Registering holds the fee once.
    let registered = register_lines(&clients, &id).await.unwrap();
    assert_eq!(
        registered[0],
        format!(
            "registered for {name:?} ({id}): entry fee 50 silver held (given back if you unregister before the start or it is cancelled)"
        )
    );
    assert!(
        registered[1].starts_with("1 of 4 players · pool 50 · starts 2096-10-02"),
        "{registered:?}"
    );
    assert_eq!(balance(&tp, &ann).await, 150);
    let again = register_lines(&clients, &id).await.unwrap();
    assert!(
        again[0].contains("already registered") && again[0].contains("no second fee"),
        "{again:?}"
    );
    assert_eq!(balance(&tp, &ann).await, 150, "no second fee");

    // Show, as ann sees it.
    let shown = show_lines(&clients, &ann, &id, false).await.unwrap();
    let text = shown.join("\n");
    assert_eq!(
        shown[0],
        format!("Tournament {name:?} · {id} · registering")
    );
    assert!(
        text.contains("1 of 4 players (at least 2) · entry fee 50 silver · pool 50"),
        "{text}"
    );
    assert!(text.contains("prizes: 1st 70% · 2nd 30%"), "{text}");
    assert!(text.contains("you are registered"), "{text}");
    assert!(text.contains(&format!("players: {ann} (you)")), "{text}");

    // A balance below the fee: the server's refusal as written, nothing held.
    let bob = format!("bob-{run}");
    tp.grant(&bob, 20).await;
    let bob_clients = connect(&tp, &bob).clients(&tp.config).unwrap();
    let refused = register_lines(&bob_clients, &id).await.unwrap_err();
    let refused = format!("{refused:#}");
    assert!(
        refused.starts_with("not_eligible: insufficient_balance"),
        "{refused}"
    );
    assert_eq!(balance(&tp, &bob).await, 20);
    let shown = show_lines(&bob_clients, &bob, &id, false)
        .await
        .unwrap()
        .join("\n");
    assert!(
        shown.contains("you are not registered (`register` to join)"),
        "{shown}"
    );

    // Unregistering gives the fee back.
    let left = unregister_lines(&clients, &id).await.unwrap();
    assert_eq!(
        left,
        vec![format!(
            "unregistered from {name:?} ({id}): 50 silver given back"
        )]
    );
    assert_eq!(balance(&tp, &ann).await, 200);
    let e = unregister_lines(&clients, &id).await.unwrap_err();
    assert!(!format!("{e:#}").is_empty());

    // The whole path of `gamehub tournaments register ID --player ann`.
    let code = gamehub_client::run(
        ClientCommand::Tournaments(TournamentsCommand::Register(TournamentArgs {
            connect: ann_connect.clone(),
            tournament: id.clone(),
        })),
        &tp.config,
    )
    .await
    .unwrap();
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    assert_eq!(balance(&tp, &ann).await, 150);

    // Cancelled: no longer listed as open, listed with --all.
    cancel(&tp, &id).await;
    let open = list_lines(&clients, None, false).await.unwrap();
    assert!(!open.iter().any(|l| l.starts_with(&id)), "{open:?}");
    let all = list_lines(&clients, None, true).await.unwrap();
    let line = all.iter().find(|l| l.starts_with(&id)).unwrap();
    assert!(line.ends_with("cancelled"), "{line}");
    tp.stop().await;
}

/// The next snapshot the follower sends (skipping connection news), within 30 s.
async fn next_snapshot(feed: &mut mpsc::Receiver<Feed<tn::Tournament, ()>>) -> tn::Tournament {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), feed.recv()).await {
            Ok(Some(Feed::Snapshot(t))) => return t,
            Ok(Some(Feed::Ended(reason))) => panic!("following ended: {reason}"),
            Ok(Some(_)) => {}
            Ok(None) => panic!("the follower stopped"),
            Err(_) => panic!("no snapshot within 30 s"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_follower_sees_every_change_once_and_stops_when_it_is_over() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let run = &gamehub_drive::api::request_id()[..8];
    let id = create(&tp, &format!("Followed {run}")).await;
    let cat = format!("cat-{run}");
    tp.grant(&cat, 100).await;
    let clients = connect(&tp, &cat).clients(&tp.config).unwrap();

    let (tx, mut feed) = mpsc::channel(64);
    let follower = follow(clients.tournaments.clone(), id.clone(), tx);
    let first = next_snapshot(&mut feed).await;
    assert_eq!(first.tournament_id, id);
    assert!(first.players.is_empty());

    register_lines(&clients, &id).await.unwrap();
    let registered = next_snapshot(&mut feed).await;
    assert!(registered.version > first.version);
    assert_eq!(registered.players.len(), 1);
    assert_eq!(registered.players[0].player_id, cat);

    cancel(&tp, &id).await;
    let mut last = next_snapshot(&mut feed).await;
    assert_eq!(last.state, tn::State::Cancelled as i32);
    assert_eq!(last.cancel_reason, "cancelled by ops: rained off");
    // Then the refund, and the end: the follower stops by itself.
    loop {
        match tokio::time::timeout(Duration::from_secs(30), feed.recv()).await {
            Ok(Some(Feed::Snapshot(t))) => {
                assert!(t.version > last.version, "each version once, in order");
                last = t;
            }
            Ok(Some(Feed::Ended(reason))) => panic!("following ended: {reason}"),
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(_) => panic!("the follower did not stop after the end"),
        }
    }
    assert_eq!(last.pool_silver, 0, "the last version has the fee refunded");
    follower.await.unwrap();
    assert_eq!(balance(&tp, &cat).await, 100);
    tp.stop().await;
}
