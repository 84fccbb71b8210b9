//! `DATABASE_READ_URL`: a real streaming replica (`pg_basebackup -R` of a primary of the
//! test's own). Lag-tolerant reads (games, history, boards, records) are served by the
//! replica while it is usable; balances come from the primary; a replica behind by more
//! than the allowed lag, stopped, or failing a read is not used and reads fall back to
//! the primary with no error; a record the replica does not have yet is found on the
//! primary. The probe is driven by the test (its own interval is an hour), so nothing
//! waits for a clock; waits are for the replica to replay, each bounded.

use std::sync::Arc;
use std::time::Duration;

use gamehub_ledger::LedgerConfig;
use gamehub_ledger::repo::Repository;
use gamehub_ledger::repo::replica::{ReadReplica, ReplicaState};
use gamehub_platform::auth::Role;
use gamehub_platform::config::Secret;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger::PlayerOutcome::{Loss, Win};
use gamehub_proto::ledger::{
    Board, GetAccountRequest, GetGameRecordRequest, GetLeaderboardRequest, ListGamesRequest,
    ListHistoryRequest,
};
use gamehub_testkit::clock::eventually;
use gamehub_testkit::pg_cluster::PgCluster;
use gamehub_testkit::server::TestServer;
use sqlx::PgPool;

use crate::support::{Client, client, gomoku};

/// Probes until the replica reports `want`, at most 30 s (it is replaying WAL).
async fn probe_until(replica: &ReadReplica, primary: &PgPool, want: ReplicaState) {
    eventually(
        &format!("the replica becomes {want:?}"),
        Duration::from_secs(30),
        || async { (replica.probe(primary).await == want).then_some(()) },
    )
    .await;
}

async fn game_ids(player: &mut Client) -> Vec<String> {
    player
        .list_games(ListGamesRequest {
            player_id: String::new(),
            game_type: GameType::Unspecified as i32,
            page_size: 50,
            page_token: String::new(),
        })
        .await
        .expect("ListGames never fails because of the replica")
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.game_id)
        .collect()
}

async fn history_len(player: &mut Client) -> usize {
    player
        .list_history(ListHistoryRequest {
            player_id: String::new(),
            kind: 0,
            page_size: 200,
            page_token: String::new(),
        })
        .await
        .expect("ListHistory never fails because of the replica")
        .into_inner()
        .entries
        .len()
}

async fn balance(player: &mut Client) -> i64 {
    player
        .get_account(GetAccountRequest {
            player_id: String::new(),
        })
        .await
        .expect("GetAccount")
        .into_inner()
        .account
        .expect("account")
        .balance_silver
}

async fn board_len(player: &mut Client) -> usize {
    player
        .get_leaderboard(GetLeaderboardRequest {
            board: Board::GomokuPoints as i32,
            limit: 100,
            around_player_id: String::new(),
        })
        .await
        .expect("GetLeaderboard never fails because of the replica")
        .into_inner()
        .rows
        .len()
}

async fn sql(pool: &PgPool, statement: &str) {
    sqlx::query(statement)
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lag_tolerant_reads_use_a_usable_replica_and_fall_back_to_the_primary() {
    let primary_server = PgCluster::primary("primary").expect("a primary PostgreSQL");
    let replica_server = primary_server
        .replica("replica")
        .expect("a streaming replica");
    let database = format!(
        "ledger_replica_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );

    let mut config = LedgerConfig::for_tests();
    config.common.database_url = Secret::new(primary_server.url(&database));
    config.database_read_url = Some(Secret::new(replica_server.url(&database)));
    config.read_max_lag = Duration::from_secs(3600);
    config.read_probe_interval = Duration::from_secs(3600);
    config.db_pool_size = 4;
    let primary = gamehub_ledger::connect_database(&config)
        .await
        .expect("the ledger's database on the primary");
    let keys = config.common.keys.clone();
    let shutdown = gamehub_platform::server::Shutdown::new();
    let replica = gamehub_ledger::read_replica(&config, &primary, &shutdown)
        .expect("replica configuration")
        .expect("a replica is configured");
    let repository = Repository::new(primary.clone()).with_read_replica(Arc::clone(&replica));
    let mut ledger =
        TestServer::start(|s| gamehub_ledger::serve(config.clone(), repository, s)).await;
    let operator = |_: ()| client(&ledger.url, &keys, "ops", Role::Operator);
    let mut service = client(&ledger.url, &keys, "gomoku-referee", Role::Service);
    let mut alice = client(&ledger.url, &keys, "alice", Role::Player);
    // The replica has replayed the database's creation and the migrations (only then
    // can a connection to it name the database).
    probe_until(&replica, &primary, ReplicaState::Usable).await;
    let replica_pool = PgPool::connect(&replica_server.url(&database))
        .await
        .expect("a connection to the replica");
    for player in ["alice", "bob"] {
        operator(())
            .grant_silver(gamehub_proto::ledger::GrantSilverRequest {
                request_id: uuid::Uuid::new_v4().to_string(),
                player_id: player.into(),
                amount_silver: 10_000,
                reason: "test".into(),
            })
            .await
            .expect("grant");
    }
    service
        .settle_game(gomoku("g1", 100, ("alice", Win, 5), ("bob", Loss, -5)))
        .await
        .expect("settle g1");
    probe_until(&replica, &primary, ReplicaState::Usable).await;
    let (on_replica, _) = replica.reads();
    assert_eq!(game_ids(&mut alice).await, ["g1"]);
    assert_eq!(board_len(&mut alice).await, 2);
    assert_eq!(
        replica.reads().0,
        on_replica + 2,
        "the replica served both reads"
    );

    // Replay paused: the replica falls behind but within the allowed lag, so lists show
    // what it has (documented: they may lag), while balances are the primary's, and a
    // record it does not have yet is found on the primary.
    sql(&replica_pool, "SELECT pg_wal_replay_pause()").await;
    let before = balance(&mut alice).await;
    let history_before = history_len(&mut alice).await;
    service
        .settle_game(gomoku("g2", 100, ("alice", Win, 5), ("bob", Loss, -5)))
        .await
        .expect("settle g2");
    assert_eq!(replica.probe(&primary).await, ReplicaState::Usable);
    assert_eq!(
        game_ids(&mut alice).await,
        ["g1"],
        "a lagging list, as documented"
    );
    assert_eq!(history_len(&mut alice).await, history_before);
    assert!(
        balance(&mut alice).await > before,
        "balances read the primary"
    );
    let record = alice
        .get_game_record(GetGameRecordRequest {
            game_id: "g2".into(),
        })
        .await
        .expect("a game the replica lacks is found on the primary")
        .into_inner();
    assert_eq!(record.game.expect("game").game_id, "g2");
    // The same replica with no lag allowed is not usable while it is behind: reads go
    // to the primary and see g2.
    let strict = ReadReplica::new(
        PgPool::connect(&replica_server.url(&database))
            .await
            .expect("replica pool"),
        Duration::ZERO,
    );
    assert_eq!(strict.probe(&primary).await, ReplicaState::Lagging);
    let strict = Arc::new(strict);
    let strict_repo = Repository::new(primary.clone()).with_read_replica(Arc::clone(&strict));
    let player = gamehub_ledger::domain::PlayerId::parse("player_id", "alice").expect("player id");
    let games = strict_repo
        .games(&player, None, i64::MAX, 10)
        .await
        .expect("games");
    assert_eq!(games.len(), 2, "the primary's list");
    assert_eq!(strict.reads(), (0, 1));

    // Replay resumed: caught up, the replica serves the lists again.
    sql(&replica_pool, "SELECT pg_wal_replay_resume()").await;
    probe_until(&strict, &primary, ReplicaState::Usable).await;
    probe_until(&replica, &primary, ReplicaState::Usable).await;
    assert_eq!(game_ids(&mut alice).await, ["g2", "g1"]);
    replica_pool.close().await;

    // The replica stops while the ledger still takes it for usable: the read it fails is
    // redone on the primary, nothing reaches the client, and the replica is set aside.
    replica_server.stop().expect("stop the replica");
    service
        .settle_game(gomoku("g3", 100, ("alice", Win, 5), ("bob", Loss, -5)))
        .await
        .expect("settle g3 with the replica down");
    let (_, on_primary) = replica.reads();
    assert_eq!(game_ids(&mut alice).await, ["g3", "g2", "g1"]);
    assert!(!replica.is_usable(), "a failed read sets the replica aside");
    assert_eq!(replica.reads().1, on_primary + 1, "redone on the primary");
    assert_eq!(replica.probe(&primary).await, ReplicaState::Down);
    assert_eq!(board_len(&mut alice).await, 2);
    assert!(history_len(&mut alice).await > history_before);

    // Back up: once it has caught up, it serves again.
    replica_server.start().expect("restart the replica");
    probe_until(&replica, &primary, ReplicaState::Usable).await;
    let (on_replica, _) = replica.reads();
    assert_eq!(game_ids(&mut alice).await, ["g3", "g2", "g1"]);
    assert_eq!(replica.reads().0, on_replica + 1);

    ledger.stop().await;
    shutdown.trigger(); // the replica's probe
    strict_repo.pool().close().await;
    primary.close().await;
}
