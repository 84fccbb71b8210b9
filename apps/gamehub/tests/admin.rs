//! `gamehub admin …` run as an operator runs it (the binary, against services on free
//! ports): grants, professional dans, player and table lookups, and dead letters from a
//! ledger that refuses a settlement, delivered again once the cause is gone and settled
//! exactly once; every action in the audit trail (`gamehub admin audit`), a close
//! refused while the ledger cannot record it. Player and service tokens are refused, as
//! by the RPCs behind them.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};
use std::time::Duration;

use gamehub_platform::auth::Role;
use gamehub_platform::client::ServiceChannel;
use gamehub_platform::server::Shutdown;
use gamehub_proto::common::RoomStakes;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_proto::gomoku as gm;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gamehub_proto::ledger as lg;
use gamehub_testkit::clock::eventually;
use gamehub_testkit::stub_ledger::StubLedger;
use gamehub_testkit::tokens::{channel, dev_keys, token};
use gamehub_testkit_services::platform::TestPlatform;

/// Runs `gamehub admin ARGS` with `env`; (success, stdout, stderr).
fn admin(env: &[(String, String)], args: &[&str]) -> (bool, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_gamehub"))
        .arg("admin")
        .args(args)
        .env_remove("GAMEHUB_OPERATOR_TOKEN")
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    (
        status.success(),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

fn ok(env: &[(String, String)], args: &[&str]) -> String {
    let (success, out, err) = admin(env, args);
    assert!(success, "gamehub admin {args:?} succeeds:\n{out}\n{err}");
    out
}

/// Players and services are refused, as by the RPC behind the command.
fn refused_unless_operator(env: &[(String, String)], subject: &str, args: &[&str]) {
    for role in [Role::Player, Role::Service] {
        let mut with_token = env.to_vec();
        with_token.push((
            "GAMEHUB_OPERATOR_TOKEN".into(),
            token(&dev_keys(), subject, role),
        ));
        let (success, out, err) = admin(&with_token, args);
        assert!(!success, "a {role:?} token may not run {args:?}: {out}");
        assert!(err.contains("needs an operator token"), "{err}");
    }
}

fn urls(platform: &TestPlatform) -> Vec<(String, String)> {
    let e = &platform.endpoints;
    vec![
        ("GAMEHUB_MATCHMAKING_URL".into(), e.matchmaking.clone()),
        ("GAMEHUB_GOMOKU_URL".into(), e.gomoku.clone()),
        ("GAMEHUB_DOUDIZHU_URL".into(), e.doudizhu.clone()),
        ("GAMEHUB_LEDGER_URL".into(), e.ledger.clone()),
        ("RUST_LOG".into(), "warn".into()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grant_pro_and_player_go_through_the_ledger_api_and_only_for_operators() {
    let platform = TestPlatform::start(&[]).await.unwrap();
    let env = urls(&platform);
    let player = format!("adm-{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);

    // A grant, then its retry with the same id: applied once.
    let out = ok(
        &env,
        &[
            "grant",
            &player,
            "5000",
            "--reason",
            "welcome",
            "--request-id",
            &format!("welcome-{player}"),
        ],
    );
    assert!(out.contains("granted 5,000 silver"), "{out}");
    assert!(out.contains("balance now 5,000"), "{out}");
    let out = ok(
        &env,
        &[
            "grant",
            &player,
            "5000",
            "--reason",
            "welcome",
            "--request-id",
            &format!("welcome-{player}"),
        ],
    );
    assert!(out.contains("already granted"), "{out}");
    let ledger = platform.clients("check", Role::Operator).ledger;
    let account = ledger
        .clone()
        .get_account(lg::GetAccountRequest {
            player_id: player.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap();
    assert_eq!(account.balance_silver, 5000, "the retry granted nothing");

    // Bad input: the ledger's own refusal, nothing granted.
    let (success, _, err) = admin(&env, &["grant", &player, "0", "--reason", "x"]);
    assert!(!success);
    assert!(err.contains("amount_silver"), "{err}");

    // Players and services are refused, as by GrantSilver itself.
    refused_unless_operator(
        &env,
        &player,
        &["grant", &player, "100", "--reason", "self-service"],
    );

    // The professional flag, set and cleared.
    let out = ok(&env, &["pro", &player, "3", "--reason", "won the open"]);
    assert!(out.contains("professional 3p"), "{out}");
    let out = ok(&env, &["pro", &player, "--clear", "--reason", "retired"]);
    assert!(out.contains("is not a professional"), "{out}");
    let (success, _, err) = admin(&env, &["pro", &player, "12", "--reason", "x"]);
    assert!(!success, "dan 12 is refused");
    assert!(err.contains("professional_dan"), "{err}");

    // The lookup shows the balance, the caps and the grant with its reason.
    let out = ok(&env, &["player", &player]);
    assert!(out.contains(&format!("player {player}")), "{out}");
    assert!(out.contains("silver (银子): 5,000"), "{out}");
    assert!(out.contains("today "), "caps shown: {out}");
    assert!(
        out.contains("welcome"),
        "the grant's reason in the history: {out}"
    );
    assert!(out.contains("last games:"), "{out}");

    platform.stop().await;
}

/// Opens a free freestyle Gomoku table for ann (black) and ben, with a 30-s move clock,
/// as matchmaking would; its id.
async fn open_gomoku(matchmaker: &mut GomokuServiceClient<ServiceChannel>) -> String {
    matchmaker
        .open_table(gm::OpenTableRequest {
            bot_seats: Vec::new(),
            friends_table: false,
            profiles: Vec::new(),
            request_id: uuid::Uuid::new_v4().to_string(),
            stakes: Some(RoomStakes {
                room_id: "gomoku-free".into(),
                points_base: 1,
                silver_per_point: 0,
                min_balance_silver: 0,
                rated: false,
            }),
            rule_set: gm::RuleSet::Freestyle as i32,
            time_control: Some(gm::TimeControl {
                per_move_ms: 30_000,
                total_ms: 0,
            }),
            player_ids: vec!["ann".into(), "ben".into()],
            first_black_seat: 0,
            designated_opening: String::new(),
            paired_games: false,
        })
        .await
        .unwrap()
        .into_inner()
        .table_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_looked_up_and_closed_in_both_games_and_a_refused_settlement_redelivered_once() {
    let stub = StubLedger::default();
    let shutdown = Shutdown::new();
    let ledger_url = stub.clone().serve(shutdown.clone()).await.unwrap();
    let prefix = gamehub_testkit::redis::fresh_prefix("admin");
    let mut referee = gamehub_gomoku_referee::testing::start_on(&prefix, &ledger_url).await;
    let mut dealer = gamehub_doudizhu_dealer::testing::start(
        &prefix,
        &ledger_url,
        &gamehub_doudizhu_dealer::testing::Options::default(),
    )
    .await;
    let env = vec![
        ("GAMEHUB_GOMOKU_URL".to_owned(), referee.url.clone()),
        ("GAMEHUB_DOUDIZHU_URL".to_owned(), dealer.url.clone()),
        ("GAMEHUB_LEDGER_URL".to_owned(), ledger_url.clone()),
        ("RUST_LOG".to_owned(), "warn".to_owned()),
    ];
    let keys = dev_keys();
    let stakes = |room: &str| RoomStakes {
        room_id: room.into(),
        points_base: 1,
        silver_per_point: 0,
        min_balance_silver: 0,
        rated: false,
    };

    // A Gomoku table, as matchmaking opens it.
    let mut matchmaker =
        GomokuServiceClient::new(channel(&referee.url, &keys, "matchmaking", Role::Service));
    let table_id = open_gomoku(&mut matchmaker).await;
    let out = ok(&env, &["table", &table_id]);
    assert!(out.contains(&format!("gomoku table {table_id}")), "{out}");
    assert!(out.contains("TABLE_STATUS_PLAYING"), "{out}");
    assert!(out.contains("seat 0 ann  COLOR_BLACK"), "{out}");
    assert!(out.contains("to move: seat 0"), "{out}");
    assert!(
        out.contains("turn deadline"),
        "the move clock's deadline: {out}"
    );

    // A Dou Dizhu table: the spectator's view, no hand.
    let mut dealer_client =
        DoudizhuServiceClient::new(channel(&dealer.url, &keys, "matchmaking", Role::Service));
    let deal_table = dealer_client
        .open_table(ddz::OpenTableRequest {
            bot_seats: Vec::new(),
            friends_table: false,
            profiles: Vec::new(),
            request_id: uuid::Uuid::new_v4().to_string(),
            stakes: Some(stakes("doudizhu-free")),
            turn_time_ms: 30_000,
            player_ids: vec!["cat".into(), "dan".into(), "eve".into()],
            test_seeds: Vec::new(),
            rule_set: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let out = ok(&env, &["table", &deal_table]);
    assert!(
        out.contains(&format!("doudizhu table {deal_table}")),
        "{out}"
    );
    assert!(out.contains("seat 0 cat  17 cards"), "{out}");
    assert!(out.contains("turn deadline"), "{out}");
    let (success, _, err) = admin(&env, &["table", "no-such-table"]);
    assert!(!success);
    assert!(err.contains("no table no-such-table"), "{err}");

    // The ledger refuses the game: it is parked as a dead letter with the reason.
    let game_id = format!("{table_id}:1");
    stub.refuse(&game_id);
    let mut ann = GomokuServiceClient::new(channel(&referee.url, &keys, "ann", Role::Player));
    ann.resign(gm::ResignRequest {
        table_id: table_id.clone(),
        request_id: uuid::Uuid::new_v4().to_string(),
    })
    .await
    .unwrap();
    let listed = eventually(
        "the refused game is listed",
        Duration::from_secs(20),
        || async {
            let listed = ok(&env, &["dead-letters"]);
            listed.contains(&game_id).then_some(listed)
        },
    )
    .await;
    assert!(listed.contains("gomoku: 1 dead letter(s)"), "{listed}");
    assert!(listed.contains("doudizhu: 0 dead letter(s)"), "{listed}");
    assert!(
        listed.contains("refused by the stub ledger"),
        "the ledger's reason: {listed}"
    );
    assert!(listed.contains(&format!("table {table_id}")), "{listed}");
    assert_eq!(stub.times_settled(&game_id), 0);

    // Players and services may not see or move dead letters.
    refused_unless_operator(&env, "ann", &["dead-letters"]);
    refused_unless_operator(&env, "ann", &["redeliver", &game_id, "--reason", "mine"]);

    // The cause removed, it is delivered again and settled exactly once.
    stub.allow(&game_id);
    let out = ok(&env, &["redeliver", &game_id, "--reason", "cause fixed"]);
    assert!(out.contains(&format!("{game_id} (gomoku)")), "{out}");
    eventually(
        "the redelivered game is settled",
        Duration::from_secs(20),
        || async { (stub.times_settled(&game_id) >= 1).then_some(()) },
    )
    .await;
    let out = ok(&env, &["dead-letters"]);
    assert!(out.contains("gomoku: 0 dead letter(s)"), "{out}");
    let (success, _, err) = admin(&env, &["redeliver", &game_id, "--reason", "again"]);
    assert!(!success, "nothing left to redeliver");
    assert!(
        err.contains(&format!("no dead letter for game {game_id}")),
        "{err}"
    );
    let out = ok(&env, &["redeliver", "--all", "--reason", "sweep"]);
    assert!(out.contains("no dead letters"), "{out}");
    // Each redelivery that moved something was recorded at the ledger first, by the
    // service holding the letter; the one that found nothing recorded nothing.
    let recorded = stub.operator_actions.lock().unwrap().clone();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(
        (
            recorded[0].game_id.as_str(),
            recorded[0].operator.as_str(),
            recorded[0].reason.as_str()
        ),
        (game_id.as_str(), "admin", "cause fixed")
    );

    // A stuck table closed by an operator: the game in progress is voided (nothing
    // reaches the ledger), its players see why, and a second close changes nothing.
    let stuck = open_gomoku(&mut matchmaker).await;
    ann.place_stone(gm::PlaceStoneRequest {
        table_id: stuck.clone(),
        request_id: uuid::Uuid::new_v4().to_string(),
        point: Some(gm::Point {
            text: "h8".into(),
            ..Default::default()
        }),
        known_stones: 0,
        known_game: 0,
    })
    .await
    .unwrap();
    refused_unless_operator(&env, "ann", &["close-table", &stuck, "--reason", "mine"]);
    let (success, _, err) = admin(&env, &["close-table", &stuck, "--reason", " "]);
    assert!(!success, "a reason is required");
    assert!(err.contains("reason"), "{err}");
    let out = ok(
        &env,
        &["close-table", &stuck, "--reason", "stuck after an incident"],
    );
    assert!(
        out.contains("closed: closed by operator admin: stuck after an incident"),
        "{out}"
    );
    assert!(out.contains(&format!("game {stuck}:1 voided")), "{out}");
    let mut ben = GomokuServiceClient::new(channel(&referee.url, &keys, "ben", Role::Player));
    let seen = ben
        .get_table(gm::GetTableRequest {
            table_id: stuck.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(seen.status, gm::TableStatus::Closed as i32);
    assert_eq!(
        seen.closed_reason,
        "closed by operator admin: stuck after an incident"
    );
    let refused = ben
        .place_stone(gm::PlaceStoneRequest {
            table_id: stuck.clone(),
            request_id: uuid::Uuid::new_v4().to_string(),
            point: Some(gm::Point {
                text: "h9".into(),
                ..Default::default()
            }),
            known_stones: 0,
            known_game: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::FailedPrecondition,
        "{refused:?}"
    );
    let out = ok(&env, &["close-table", &stuck, "--reason", "again"]);
    assert!(out.contains("was already closed"), "{out}");
    let out = ok(&env, &["dead-letters"]);
    assert!(out.contains("gomoku: 0 dead letter(s)"), "{out}");
    assert_eq!(
        stub.times_settled(&format!("{stuck}:1")),
        0,
        "the voided game never reaches the ledger"
    );
    // A Dou Dizhu deal in bidding, closed the same way.
    let out = ok(
        &env,
        &["close-table", &deal_table, "--reason", "dealer stuck"],
    );
    assert!(
        out.contains("doudizhu table") && out.contains("closed by operator admin: dealer stuck"),
        "{out}"
    );
    assert!(out.contains("voided: nothing sent to the ledger"), "{out}");
    let mut cat = DoudizhuServiceClient::new(channel(&dealer.url, &keys, "cat", Role::Player));
    let seen = cat
        .get_table(ddz::GetTableRequest {
            table_id: deal_table.clone(),
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(seen.status, ddz::TableStatus::Closed as i32);
    assert_eq!(seen.close_reason, ddz::CloseReason::Operator as i32);
    assert_eq!(seen.closed_note, "closed by operator admin: dealer stuck");
    let out = ok(&env, &["close-table", &deal_table, "--reason", "again"]);
    assert!(out.contains("was already closed"), "{out}");

    let (success, _, err) = admin(&env, &["close-table", "no-such-table", "--reason", "x"]);
    assert!(!success);
    assert!(err.contains("no table no-such-table"), "{err}");

    // The outboxes are empty: nothing more is sent (the redelivered game settled once,
    // the voided one never written).
    let mut conn = gamehub_testkit::redis::connect().await;
    let keys_left: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*outbox*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    for key in keys_left {
        let len: u64 = redis::cmd("HLEN")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(len, 0, "{key} is empty");
    }
    assert_eq!(stub.times_settled(&game_id), 1, "settled exactly once");
    referee.stop().await;
    dealer.stop().await;
    shutdown.trigger();
    gamehub_testkit::redis::remove_keys(&prefix).await;
}

/// The outbox hashes of the test's Redis prefix with their entries.
async fn outbox_entries(
    conn: &mut gamehub_platform::RedisConn,
    prefix: &str,
) -> Vec<(String, String, Vec<u8>)> {
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*:outbox"))
        .query_async(conn)
        .await
        .unwrap();
    let mut entries = Vec::new();
    for key in keys {
        let pairs: Vec<(String, Vec<u8>)> = redis::cmd("HGETALL")
            .arg(&key)
            .query_async(conn)
            .await
            .unwrap();
        entries.extend(pairs.into_iter().map(|(id, v)| (key.clone(), id, v)));
    }
    entries
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redelivering_a_game_the_real_ledger_already_has_settles_nothing_twice() {
    let mut ledger = gamehub_ledger::testing::TestLedger::start("gamehub_admin_test_").await;
    let prefix = gamehub_testkit::redis::fresh_prefix("admre");
    let mut referee = gamehub_gomoku_referee::testing::start_on(&prefix, &ledger.url).await;
    let mut dealer = gamehub_doudizhu_dealer::testing::start(
        &prefix,
        &ledger.url,
        &gamehub_doudizhu_dealer::testing::Options::default(),
    )
    .await;
    let env = vec![
        ("GAMEHUB_GOMOKU_URL".to_owned(), referee.url.clone()),
        ("GAMEHUB_DOUDIZHU_URL".to_owned(), dealer.url.clone()),
        ("GAMEHUB_LEDGER_URL".to_owned(), ledger.url.clone()),
        ("RUST_LOG".to_owned(), "warn".to_owned()),
    ];
    let keys = dev_keys();
    let mut conn = gamehub_testkit::redis::connect().await;

    // The game ends while the ledger is down: its settlement waits in the outbox. A copy
    // of it is parked as a dead letter too, as a settlement parked after the ledger had
    // applied it would be (e.g. a refusal after a lost acknowledgement).
    ledger.stop().await;
    let mut matchmaker =
        GomokuServiceClient::new(channel(&referee.url, &keys, "matchmaking", Role::Service));
    let table_id = open_gomoku(&mut matchmaker).await;
    let game_id = format!("{table_id}:1");
    let mut ann = GomokuServiceClient::new(channel(&referee.url, &keys, "ann", Role::Player));
    ann.resign(gm::ResignRequest {
        table_id: table_id.clone(),
        request_id: uuid::Uuid::new_v4().to_string(),
    })
    .await
    .unwrap();
    let mut pending = eventually("the settlement waits", Duration::from_secs(20), || {
        let mut conn = conn.clone();
        let prefix = prefix.clone();
        async move {
            let pending = outbox_entries(&mut conn, &prefix).await;
            (!pending.is_empty()).then_some(pending)
        }
    })
    .await;
    let (outbox_key, parked_id, value) = pending.remove(0);
    assert_eq!(parked_id, game_id);
    let _: () = redis::cmd("HSET")
        .arg(format!("{outbox_key}-dead"))
        .arg(&game_id)
        .arg(&value)
        .query_async(&mut conn)
        .await
        .unwrap();

    // The ledger comes back and settles the game from the outbox.
    ledger.resume().await;
    let history = |ledger: &gamehub_ledger::testing::TestLedger| {
        let mut client = ledger.client(Role::Operator);
        async move {
            client
                .list_history(lg::ListHistoryRequest {
                    player_id: "ben".into(),
                    kind: lg::HistoryKind::Unspecified as i32,
                    page_size: 200,
                    page_token: String::new(),
                })
                .await
                .unwrap()
                .into_inner()
                .entries
        }
    };
    eventually("the outbox drains", Duration::from_secs(30), || {
        let mut conn = conn.clone();
        let prefix = prefix.clone();
        async move {
            outbox_entries(&mut conn, &prefix)
                .await
                .is_empty()
                .then_some(())
        }
    })
    .await;
    let before = history(&ledger).await;
    assert!(
        before.iter().any(|e| e.game_id == game_id),
        "the game is settled: {before:?}"
    );
    let account_before = ledger.account("ben").await;

    // Redelivering the parked copy: the ledger answers with a replay, nothing doubles.
    let out = ok(&env, &["dead-letters"]);
    assert!(out.contains(&game_id), "{out}");
    let out = ok(&env, &["redeliver", "--all", "--reason", "replay check"]);
    assert!(out.contains(&format!("{game_id} (gomoku)")), "{out}");
    eventually(
        "the redelivered copy is acknowledged",
        Duration::from_secs(30),
        || {
            let mut conn = conn.clone();
            let prefix = prefix.clone();
            let env = env.clone();
            async move {
                let listed = ok(&env, &["dead-letters"]);
                (outbox_entries(&mut conn, &prefix).await.is_empty()
                    && listed.contains("gomoku: 0 dead letter(s)"))
                .then_some(())
            }
        },
    )
    .await;
    assert_eq!(history(&ledger).await, before, "no second history entry");
    let account_after = ledger.account("ben").await;
    assert_eq!(account_after, account_before, "points and counts unchanged");
    let games = ledger
        .client(Role::Operator)
        .list_games(lg::ListGamesRequest {
            player_id: "ben".into(),
            game_type: 0,
            page_size: 10,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 1, "one finished game for ben: {games:?}");

    referee.stop().await;
    dealer.stop().await;
    ledger.finish().await;
    gamehub_testkit::redis::remove_keys(&prefix).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operator_action_is_in_the_audit_trail_and_no_close_without_its_row() {
    let mut ledger = gamehub_ledger::testing::TestLedger::start("gamehub_admin_test_").await;
    let prefix = gamehub_testkit::redis::fresh_prefix("admau");
    let mut referee = gamehub_gomoku_referee::testing::start_on(&prefix, &ledger.url).await;
    let env = vec![
        ("GAMEHUB_GOMOKU_URL".to_owned(), referee.url.clone()),
        // Not asked: the table is found at the referee first.
        (
            "GAMEHUB_DOUDIZHU_URL".to_owned(),
            "http://127.0.0.1:1".to_owned(),
        ),
        ("GAMEHUB_LEDGER_URL".to_owned(), ledger.url.clone()),
        ("RUST_LOG".to_owned(), "warn".to_owned()),
    ];
    let keys = dev_keys();
    let player = format!("aud-{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
    let id = |what: &str| format!("{what}-{player}");

    ok(
        &env,
        &[
            "grant",
            &player,
            "700",
            "--reason",
            "welcome",
            "--request-id",
            &id("grant"),
        ],
    );
    ok(
        &env,
        &[
            "pro",
            &player,
            "2",
            "--reason",
            "won the open",
            "--request-id",
            &id("pro"),
        ],
    );
    // Retried under its id: no second row.
    ok(
        &env,
        &[
            "pro",
            &player,
            "2",
            "--reason",
            "won the open",
            "--request-id",
            &id("pro"),
        ],
    );
    ok(
        &env,
        &[
            "name",
            &player,
            "--name",
            "Zed",
            "--reason",
            "asked support",
            "--request-id",
            &id("name"),
        ],
    );

    // A close while the ledger cannot record it is refused, and the table plays on.
    let mut matchmaker =
        GomokuServiceClient::new(channel(&referee.url, &keys, "matchmaking", Role::Service));
    let table_id = open_gomoku(&mut matchmaker).await;
    ledger.stop().await;
    let (success, _, err) = admin(&env, &["close-table", &table_id, "--reason", "stuck"]);
    assert!(!success, "no close without its audit row");
    assert!(
        err.contains("audit trail") && err.contains("nothing was changed"),
        "{err}"
    );
    let mut ben = GomokuServiceClient::new(channel(&referee.url, &keys, "ben", Role::Player));
    let seen = ben
        .get_table(gm::GetTableRequest {
            table_id: table_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(seen.status, gm::TableStatus::Playing as i32, "still open");
    ledger.resume().await;
    let out = ok(
        &env,
        &[
            "close-table",
            &table_id,
            "--reason",
            "stuck",
            "--request-id",
            &id("close"),
        ],
    );
    assert!(out.contains("closed by operator admin: stuck"), "{out}");

    // The trail, newest first: who, what, why and the request id of each.
    let out = ok(&env, &["audit", "--operator", "admin", "--limit", "1000"]);
    let mine: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(&player) || l.contains(&table_id))
        .collect();
    assert_eq!(mine.len(), 4, "{out}");
    assert!(
        mine[0].contains(&format!(
            "admin  close-table {table_id} (at gomoku-referee)"
        )) && mine[0].contains("reason \"stuck\"")
            && mine[0].contains(&format!("request {}", id("close"))),
        "{out}"
    );
    assert!(
        mine[1].contains(&format!("name {player}: (none) -> \"Zed\""))
            && mine[1].contains("reason \"asked support\""),
        "{out}"
    );
    assert!(
        mine[2].contains(&format!("pro {player}: none -> 2p"))
            && mine[2].contains(&format!("request {}", id("pro"))),
        "{out}"
    );
    assert!(
        mine[3].contains(&format!("grant 700 silver to {player}"))
            && mine[3].contains("reason \"welcome\""),
        "{out}"
    );
    // Filters: by target, by kind.
    let out = ok(&env, &["audit", "--target", &player]);
    assert_eq!(out.lines().count(), 3, "{out}");
    let out = ok(
        &env,
        &["audit", "--target", &table_id, "--kind", "close-table"],
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    let out = ok(
        &env,
        &["audit", "--target", &player, "--kind", "close-table"],
    );
    assert!(out.contains("no operator actions match"), "{out}");
    refused_unless_operator(&env, "ann", &["audit"]);

    referee.stop().await;
    ledger.finish().await;
    gamehub_testkit::redis::remove_keys(&prefix).await;
}
