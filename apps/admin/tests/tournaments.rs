//! `gamehub admin tournament …` against the whole platform in the test's process: the
//! command line parsed as the binary parses it, run against the tournament service,
//! its lines and the tournament the service then holds checked: create (and its retry),
//! list with filters, show with players, the server's refusals as its own words, a
//! player's token refused, cancel with every fee back; and once the whole `run` path
//! (the URL flags, the operator token minted on a development platform).
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use clap::Parser;
use gamehub_admin::tournaments::{self, TournamentClient, TournamentCommand};
use gamehub_platform::auth::Role;
use gamehub_proto::ledger as lg;
use gamehub_proto::tournament as tn;
use gamehub_testkit_services::platform::TestPlatform;

/// `gamehub admin tournament …`'s arguments as the binary parses them.
#[derive(Parser, Debug)]
struct Tournament {
    #[command(subcommand)]
    command: TournamentCommand,
}

/// `gamehub admin …`'s arguments as the binary parses them.
#[derive(Parser, Debug)]
struct Admin {
    #[command(flatten)]
    args: gamehub_admin::AdminArgs,
}

/// Runs `gamehub admin tournament ARGS` with `client`; its lines, or its error's text.
async fn admin(client: &TournamentClient, args: &[&str]) -> Result<Vec<String>, String> {
    let parsed =
        Tournament::try_parse_from(std::iter::once("tournament").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?} parses: {e}"));
    tournaments::run(&mut client.clone(), parsed.command)
        .await
        .map_err(|e| format!("{e:#}"))
}

async fn ok(client: &TournamentClient, args: &[&str]) -> Vec<String> {
    admin(client, args)
        .await
        .unwrap_or_else(|e| panic!("tournament {args:?} succeeds: {e}"))
}

async fn get(tp: &TestPlatform, id: &str) -> tn::Tournament {
    tp.clients("check", Role::Operator)
        .tournaments
        .get_tournament(tn::GetTournamentRequest {
            tournament_id: id.to_owned(),
        })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
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

/// The id in `created tournament tn-… (request id …)`.
fn created_id(lines: &[String]) -> String {
    let first = &lines[0];
    assert!(first.starts_with("created tournament tn-"), "{lines:?}");
    first.split_whitespace().nth(2).unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_creates_lists_shows_and_cancels_a_tournament() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let run = &gamehub_drive::api::request_id()[..8];
    let operator = tp.clients("ops-ann", Role::Operator).tournaments;
    let name = format!("Weekend Open {run}");
    let request_id = format!("weekend-{run}");
    let create = [
        "create",
        "--name",
        &name,
        "--game",
        "gomoku",
        "--room",
        "gomoku-free",
        "--entry-fee",
        "100",
        "--max-players",
        "8",
        "--starts-at",
        "2096-01-01T00:00:00Z",
        "--rounds",
        "3",
        "--prizes",
        "62.5,37.5",
        "--request-id",
        &request_id,
    ];
    let lines = ok(&operator, &create).await;
    let id = created_id(&lines);
    let text = lines.join("\n");
    assert!(
        text.contains(&format!("(request id {request_id})")),
        "{text}"
    );
    assert!(text.contains("prizes: 1st 62.5% · 2nd 37.5%"), "{text}");

    // What the service holds is what the flags said.
    let t = get(&tp, &id).await;
    let settings = t.settings.clone().unwrap();
    assert_eq!(settings.name, name);
    assert_eq!(
        settings.game_type,
        gamehub_proto::common::GameType::Gomoku as i32
    );
    assert_eq!(settings.room_id, "gomoku-free");
    assert_eq!(settings.entry_fee_silver, 100);
    assert_eq!((settings.min_players, settings.max_players), (2, 8));
    assert_eq!(settings.starts_at_unix_ms, 3_976_214_400_000);
    assert_eq!(settings.rounds, 3);
    assert_eq!(settings.prize_shares_bp, vec![6250, 3750]);
    assert!(!settings.unrated);
    assert_eq!(t.state, tn::State::Registering as i32);

    // The retry answers the same tournament and creates nothing.
    let again = ok(&operator, &create).await;
    assert_eq!(
        again[0],
        format!("tournament {id} was already created by request id {request_id} (nothing new)")
    );

    // Two players register: show lists them and the pool.
    let players = [format!("tp-{run}-1"), format!("tp-{run}-2")];
    for p in &players {
        tp.grant(p, 500).await;
        tp.clients(p, Role::Player)
            .tournaments
            .register(tn::RegisterRequest {
                tournament_id: id.clone(),
            })
            .await
            .unwrap();
    }
    let shown = ok(&operator, &["show", &id]).await;
    let text = shown.join("\n");
    assert!(
        shown[0].starts_with(&format!("tournament {id} {name:?}  registering")),
        "{text}"
    );
    assert!(
        text.contains("Gomoku · room gomoku-free · Swiss (瑞士制) · 3 rounds"),
        "{text}"
    );
    assert!(
        text.contains(
            "players 2 (min 2, max 8) · entry fee 100 · pool 200 · starts 2096-01-01 00:00 UTC"
        ),
        "{text}"
    );
    assert!(text.contains("players (2):"), "{text}");
    assert!(
        shown.contains(&format!("        #1  {}", players[0])),
        "{text}"
    );
    assert!(
        shown.contains(&format!("        #2  {}", players[1])),
        "{text}"
    );

    // The list, with and without filters that exclude it.
    let listed = ok(&operator, &["list"]).await;
    let line = listed
        .iter()
        .find(|l| l.starts_with(&id))
        .unwrap_or_else(|| panic!("{id} listed: {listed:?}"));
    assert!(line.contains("registering"), "{line}");
    assert!(line.contains("players 2/8  fee 100  pool 200"), "{line}");
    assert!(line.ends_with(&format!("{name:?}")), "{line}");
    let registering = ok(
        &operator,
        &["list", "--state", "registering", "--game", "gomoku"],
    )
    .await;
    assert!(
        registering.iter().any(|l| l.starts_with(&id)),
        "{registering:?}"
    );
    for filter in [
        &["list", "--state", "running"][..],
        &["list", "--game", "doudizhu"],
    ] {
        let other = ok(&operator, filter).await;
        assert!(
            !other.iter().any(|l| l.starts_with(&id)),
            "{filter:?}: {other:?}"
        );
    }

    // Refusals are the server's words, naming the setting.
    let e = admin(
        &operator,
        &[
            "create",
            "--name",
            "Bad",
            "--game",
            "gomoku",
            "--room",
            "gomoku-free",
            "--max-players",
            "4",
            "--prizes",
            "40,60",
        ],
    )
    .await
    .unwrap_err();
    assert!(e.contains("prize_shares_bp"), "{e}");
    let e = admin(
        &operator,
        &[
            "create",
            "--name",
            "Bad",
            "--game",
            "doudizhu",
            "--room",
            "gomoku-free",
            "--max-players",
            "9",
        ],
    )
    .await
    .unwrap_err();
    assert!(
        e.contains("settings.room_id: room gomoku-free does not play"),
        "{e}"
    );
    let e = admin(&operator, &["show", "tn-000000000000000000000000"])
        .await
        .unwrap_err();
    assert!(e.contains("tn-000000000000000000000000"), "{e}");
    // A player may not create or cancel.
    let player = tp.clients(&players[0], Role::Player).tournaments;
    let e = admin(
        &player,
        &[
            "create",
            "--name",
            "Mine",
            "--game",
            "gomoku",
            "--room",
            "gomoku-free",
            "--max-players",
            "4",
        ],
    )
    .await
    .unwrap_err();
    assert!(e.contains("operator"), "{e}");
    let e = admin(&player, &["cancel", &id, "--reason", "mine"])
        .await
        .unwrap_err();
    assert!(e.contains("operator"), "{e}");

    // Cancelled: every fee back, and show says why.
    let cancelled = ok(&operator, &["cancel", &id, "--reason", "the venue flooded"]).await;
    assert_eq!(
        cancelled[0],
        format!("tournament {id} is cancelled (reason: cancelled by ops-ann: the venue flooded)"),
        "{cancelled:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while get(&tp, &id).await.pool_silver != 0 {
        assert!(Instant::now() < deadline, "the fees were refunded");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for p in &players {
        assert_eq!(balance(&tp, p).await, 500, "{p} has its fee back");
    }
    let shown = ok(&operator, &["show", &id]).await.join("\n");
    assert!(
        shown.contains("cancelled (reason: cancelled by ops-ann: the venue flooded)"),
        "{shown}"
    );
    assert!(shown.contains("pool 0"), "{shown}");
    let finished = ok(&operator, &["list", "--state", "cancelled"]).await;
    assert!(finished.iter().any(|l| l.starts_with(&id)), "{finished:?}");

    // The whole path of `gamehub admin tournament create`: URL flags, and an operator
    // token minted from the development key.
    let e = &tp.endpoints;
    let sng = format!("SNG {run}");
    let parsed = Admin::try_parse_from([
        "admin",
        "--matchmaking-url",
        &e.matchmaking,
        "--gomoku-url",
        &e.gomoku,
        "--doudizhu-url",
        &e.doudizhu,
        "--ledger-url",
        &e.ledger,
        "--tournaments-url",
        &e.tournaments,
        "tournament",
        "create",
        "--name",
        &sng,
        "--game",
        "doudizhu",
        "--room",
        "doudizhu-free",
        "--max-players",
        "6",
        "--deals-per-round",
        "2",
        "--unrated",
    ])
    .unwrap();
    let code = gamehub_admin::run(parsed.args, &tp.config).await.unwrap();
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let listed = operator
        .clone()
        .list_tournaments(tn::ListTournamentsRequest {
            game_type: gamehub_proto::common::GameType::Doudizhu as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .tournaments;
    let made = listed
        .iter()
        .find(|s| s.settings.as_ref().is_some_and(|x| x.name == sng))
        .unwrap_or_else(|| panic!("{sng} created: {listed:?}"));
    let settings = made.settings.clone().unwrap();
    assert_eq!(
        (
            settings.min_players,
            settings.max_players,
            settings.deals_per_round,
            settings.starts_at_unix_ms,
            settings.unrated
        ),
        (3, 6, 2, 0, true)
    );
    tp.stop().await;
}
