//! The repository against its own database: cap days, replays, and the schema's
//! backstops (constraints and triggers) refusing what the code never does.

use chrono::NaiveDate;
use gamehub_ledger::domain::PlayerId;
use gamehub_ledger::domain::caps::Caps;
use gamehub_ledger::domain::grant::Grant;
use gamehub_ledger::domain::settle::GameReport;
use gamehub_ledger::error::LedgerError;
use gamehub_ledger::repo::{Repository, Settled};
use gamehub_proto::ledger::PlayerOutcome::{Loss, Win};

use crate::support::*;

fn report(game_id: &str, spp: i64, winner: &str, loser: &str) -> GameReport {
    gamehub_ledger::api::parse::settle_request(&gomoku(
        game_id,
        spp,
        (winner, Win, 5),
        (loser, Loss, -5),
    ))
    .unwrap()
}

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 3, d).unwrap()
}

async fn grant(repo: &Repository, player: &str, amount: i64) {
    repo.grant(
        &Grant {
            request_id: format!("g-{player}-{amount}"),
            player_id: PlayerId::parse("player_id", player).unwrap(),
            amount_silver: amount,
            reason: "test".into(),
        },
        "operator",
        day(1),
        chrono::Utc::now(),
    )
    .await
    .unwrap();
}

async fn settle(repo: &Repository, report: &GameReport, on: NaiveDate) -> Settled {
    repo.settle(report, on, &Caps::default(), |_| b"response".to_vec())
        .await
        .unwrap()
}

fn silver(settled: &Settled) -> Vec<i64> {
    match settled {
        Settled::Applied { plan, .. } => plan.seats.iter().map(|s| s.silver_delta).collect(),
        Settled::Replayed { .. } => panic!("expected a new settlement"),
    }
}

#[tokio::test]
async fn the_daily_counters_start_again_on_a_new_day() {
    let db = TestDb::new().await;
    let repo = Repository::new(db.pool.clone());
    grant(&repo, "loser", 1_000_000).await;
    for i in 0..3 {
        settle(
            &repo,
            &report(&format!("d1-{i}"), 10_000, &format!("w{i}"), "loser"),
            day(1),
        )
        .await;
    }
    let tired = settle(&repo, &report("d1-3", 10_000, "w3", "loser"), day(1)).await;
    assert_eq!(
        silver(&tired),
        vec![0, 0],
        "the daily loss cap of day 1 is reached"
    );
    let fresh = settle(&repo, &report("d2-0", 10_000, "w4", "loser"), day(2)).await;
    assert_eq!(
        silver(&fresh),
        vec![50_000, -50_000],
        "day 2 starts from zero"
    );
    let player = PlayerId::parse("player_id", "loser").unwrap();
    let account = repo.account(&player, day(2)).await.unwrap();
    assert_eq!(
        (account.lost_today_silver, account.won_today_silver),
        (50_000, 0)
    );
    let yesterday_seen_tomorrow = repo.account(&player, day(3)).await.unwrap();
    assert_eq!(yesterday_seen_tomorrow.lost_today_silver, 0);
    check_invariants(&db.pool, &Caps::default()).await;
    db.drop().await;
}

#[tokio::test]
async fn a_settled_game_replays_its_stored_answer() {
    let db = TestDb::new().await;
    let repo = Repository::new(db.pool.clone());
    let r = report("once", 0, "a", "b");
    assert!(matches!(
        settle(&repo, &r, day(1)).await,
        Settled::Applied { .. }
    ));
    match settle(&repo, &r, day(2)).await {
        Settled::Replayed { response } => assert_eq!(response, b"response"),
        other => panic!("expected a replay, got {other:?}"),
    }
    let mut changed = r.clone();
    changed.reason = "resign".into();
    let err = repo
        .settle(&changed, day(1), &Caps::default(), |_| Vec::new())
        .await
        .unwrap_err();
    // The ledger's word is final: the refusal carries what the first settlement answered.
    match err {
        LedgerError::SettledDifferently { game_id, response } => {
            assert_eq!(game_id, r.game_id);
            assert_eq!(response, b"response");
        }
        other => panic!("expected SettledDifferently, got {other:?}"),
    }
    db.drop().await;
}

#[tokio::test]
async fn the_schema_refuses_what_the_rules_never_do() {
    let db = TestDb::new().await;
    let repo = Repository::new(db.pool.clone());
    grant(&repo, "a", 1_000).await;
    settle(&repo, &report("g", 100, "b", "a"), day(1)).await;
    let refused = |sql: &'static str| {
        let pool = db.pool.clone();
        async move {
            let err = sqlx::query(sql).execute(&pool).await.expect_err(sql);
            gamehub_ledger::error::sqlstate(&err).unwrap_or_default()
        }
    };
    // CHECK: no negative player balance.
    assert_eq!(
        refused("UPDATE accounts SET balance_silver = -1 WHERE account_id = 'a'").await,
        "23514"
    );
    // The issuance account never holds silver.
    assert_eq!(
        refused("UPDATE accounts SET balance_silver = 1 WHERE account_id = '#issuance'").await,
        "23514"
    );
    // Entries, transfers, history, games are immutable.
    assert_eq!(
        refused("UPDATE entries SET amount_silver = 1").await,
        "GH002"
    );
    assert_eq!(refused("DELETE FROM transfers").await, "GH002");
    assert_eq!(refused("DELETE FROM history").await, "GH002");
    assert_eq!(refused("UPDATE games SET reason = 'x'").await, "GH002");
    assert_eq!(refused("DELETE FROM grants").await, "GH002");
    // A transfer that does not balance.
    assert_eq!(
        refused(
            "WITH t AS (INSERT INTO transfers (transfer_id, kind, grant_request_id, cap_day) \
               VALUES ('00000000-0000-0000-0000-000000000001', 'grant', 'forged', '2025-03-01') RETURNING transfer_id) \
             INSERT INTO entries (transfer_id, account_id, amount_silver, balance_after_silver) \
             SELECT transfer_id, 'a', 5, 5 FROM t"
        )
        .await,
        "GH001"
    );
    // A player id cannot pose as a system account.
    assert_eq!(
        refused("INSERT INTO accounts (account_id, kind) VALUES ('#mine', 'player')").await,
        "23514"
    );
    check_invariants(&db.pool, &Caps::default()).await;
    db.drop().await;
}

#[tokio::test]
async fn the_invariant_checks_catch_a_tampered_ledger() {
    let db = TestDb::new().await;
    let repo = Repository::new(db.pool.clone());
    grant(&repo, "a", 1_000).await;
    let mut rated = report("r", 100, "b", "a");
    rated.stakes.rated = true;
    settle(&repo, &rated, day(1)).await;
    check_invariants(&db.pool, &Caps::default()).await;
    for (tamper, undo) in [
        (
            "UPDATE accounts SET balance_silver = balance_silver + 1 WHERE account_id = 'a'",
            "UPDATE accounts SET balance_silver = balance_silver - 1 WHERE account_id = 'a'",
        ),
        (
            "UPDATE players SET gomoku_rating = gomoku_rating + 1 WHERE player_id = 'b'",
            "UPDATE players SET gomoku_rating = gomoku_rating - 1 WHERE player_id = 'b'",
        ),
        (
            "UPDATE players SET lost_today_silver = lost_today_silver + 1 WHERE player_id = 'a'",
            "UPDATE players SET lost_today_silver = lost_today_silver - 1 WHERE player_id = 'a'",
        ),
        (
            "UPDATE standings SET wins = wins + 1 WHERE player_id = 'b'",
            "UPDATE standings SET wins = wins - 1 WHERE player_id = 'b'",
        ),
    ] {
        sqlx::query(tamper).execute(&db.pool).await.unwrap();
        let pool = db.pool.clone();
        let checked =
            tokio::spawn(async move { check_invariants(&pool, &Caps::default()).await }).await;
        assert!(checked.is_err_and(|e| e.is_panic()), "not caught: {tamper}");
        sqlx::query(undo).execute(&db.pool).await.unwrap();
    }
    check_invariants(&db.pool, &Caps::default()).await;
    db.drop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn contended_snapshots_are_redone_under_locks() {
    let db = TestDb::new().await;
    let repo = Repository::new(db.pool.clone());
    let players = ["a", "b", "c", "d"];
    for p in players {
        grant(&repo, p, 1_000_000).await;
    }
    // 16 tasks settle 25 games each among the same four players: snapshots go stale.
    let mut tasks = Vec::new();
    for t in 0..16 {
        let repo = repo.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..25 {
                let (w, l) = (players[(t + i) % 4], players[(t + i + 1) % 4]);
                let r = report(&format!("c-{t}-{i}"), 10, w, l);
                repo.settle(&r, day(1), &Caps::default(), |_| Vec::new())
                    .await
                    .unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert!(repo.stale_snapshots() > 0, "no snapshot went stale");
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(games, 400);
    check_invariants(&db.pool, &Caps::default()).await;
    db.drop().await;
}

/// A database made by the development schema history (migrations 0002–0004, squashed into
/// one before the first release) is refused with what to do, never mis-migrated. (0002 and
/// 0004 are now the names and tournaments migrations: such a database's 0001, 0002 and 0004
/// are all refused as modified, the first of them named.)
#[tokio::test]
async fn a_database_of_the_squashed_development_history_is_refused_with_what_to_do() {
    use gamehub_platform::config::Secret;
    let database = gamehub_testkit::postgres::ScratchDatabase::fresh(TEST_DB_PREFIX).await;
    let mut config = gamehub_ledger::LedgerConfig::for_tests();
    config.common.database_url = Secret::new(database.url.clone());
    config.db_pool_size = 2;
    let pool = gamehub_ledger::connect_database(&config).await.unwrap();
    let checksums: Vec<(i64, Vec<u8>)> =
        sqlx::query_as("SELECT version, checksum FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&pool)
            .await
            .unwrap();
    for (tamper, what) in [
        (
            // The development history's 0004 (the typed settlement record), not today's.
            "UPDATE _sqlx_migrations SET checksum = '\\x00' WHERE version = 4",
            "migration 4 was previously applied but has been modified",
        ),
        (
            // The first migration as it was then.
            "UPDATE _sqlx_migrations SET checksum = '\\x00' WHERE version = 1",
            "migration 1 was previously applied but has been modified",
        ),
        (
            // A migration applied then that is no longer there.
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (99, 'a migration this version lacks', true, '\\x00', 0)",
            "migration 99 was previously applied but is missing",
        ),
    ] {
        sqlx::query(tamper).execute(&pool).await.unwrap();
        let error = gamehub_ledger::connect_database(&config)
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains(what), "{error}");
        assert!(
            error.contains("drop it") && error.contains("squashed"),
            "the error says what to do: {error}"
        );
        // Back as it was.
        sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 99")
            .execute(&pool)
            .await
            .unwrap();
        for (version, checksum) in &checksums {
            sqlx::query("UPDATE _sqlx_migrations SET checksum = $2 WHERE version = $1")
                .bind(version)
                .bind(checksum)
                .execute(&pool)
                .await
                .unwrap();
        }
        gamehub_ledger::connect_database(&config)
            .await
            .unwrap()
            .close()
            .await;
    }
    pool.close().await;
    database.drop().await;
}
