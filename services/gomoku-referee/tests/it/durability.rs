//! The referee over a Redis of the test's own that is restarted: while it loads its
//! data it answers LOADING, which clients see as UNAVAILABLE with a retry hint (never
//! INTERNAL), and the table is all there once it has loaded.

use std::time::{Duration, Instant};

use gamehub_platform::error::RETRY_AFTER_MS;
use gamehub_proto::gomoku as pb;
use gamehub_testkit::redis_server::OwnRedis;
use tonic::Code;

use crate::support::*;

/// This suite's ports (engineer "durability": 22100–22199, below the kernel's
/// ephemeral range 32768–60999, where an outgoing connection could hold one).
const LOADING_PORT: u16 = 22110;

fn set(env: &mut Vec<(String, String)>, key: &str, value: &str) {
    env.retain(|(k, _)| k != key);
    env.push((key.to_owned(), value.to_owned()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_loading_its_aof_is_unavailable_with_a_retry_hint_never_internal() {
    let mut redis = OwnRedis::start("durability-loading", LOADING_PORT, &[]);
    let url = redis.url();
    let fixture = Fixture::with(|env| {
        set(env, "REDIS_URL", &url);
        set(env, "GAMEHUB_REDIS_CLUSTER", "false");
    })
    .await;
    let table = fixture
        .open(pb::RuleSet::Freestyle, (0, 0), ["load-b", "load-w"])
        .await;
    let black = fixture.player("load-b");
    black.place(&table.table_id, "h8").await.unwrap();

    // A data set that takes a while to load: many keys in the AOF's base, each read
    // slowly (`key-load-delay`), with clients served in between
    // (`loading-process-events-interval-bytes`).
    assert_eq!(
        redis.cli(&["DEBUG", "POPULATE", "60000", "filler", "512"]),
        "OK"
    );
    redis.rewrite_aof();
    let aof_bytes: u64 = std::fs::read_dir(redis.dir().join("appendonlydir"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(aof_bytes > 2_000_000, "AOF of {aof_bytes} bytes");
    redis.restart(&[
        "--key-load-delay",
        "20",
        "--loading-process-events-interval-bytes",
        "4096",
    ]);
    assert_eq!(redis.info("loading").as_deref(), Some("1"));

    let mut service = fixture.service();
    let mut unavailable = 0;
    let mut loading_said = false;
    let start = Instant::now();
    let seen = loop {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "redis did not finish loading"
        );
        match service
            .get_table(pb::GetTableRequest {
                table_id: table.table_id.clone(),
            })
            .await
        {
            Ok(response) => break response.into_inner().table.unwrap(),
            Err(status) => {
                assert_eq!(status.code(), Code::Unavailable, "{status:?}");
                let hint: u64 = status
                    .metadata()
                    .get(RETRY_AFTER_MS)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("no retry hint on {status:?}"));
                assert!(hint > 0);
                loading_said |= status.message().contains("loading");
                unavailable += 1;
                tokio::time::sleep(Duration::from_millis(hint)).await;
            }
        }
    };
    assert!(unavailable > 0, "the loading Redis was never asked");
    assert!(loading_said, "no answer said the store is loading");
    assert_eq!(redis.info("loading").as_deref(), Some("0"));
    // Everything written before the restart is back, and play goes on.
    assert_eq!(seen.game.as_ref().unwrap().stones.len(), 1);
    fixture
        .player("load-w")
        .place(&table.table_id, "h9")
        .await
        .unwrap();
    fixture.stop().await;
}

/// Keys under `prefix` matching `*:outbox-dead` on the shared Redis, and their sizes.
async fn dead_letters(prefix: &str) -> u64 {
    let mut conn = gamehub_testkit::redis::connect().await;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*:outbox-dead"))
        .query_async(&mut conn)
        .await
        .unwrap();
    let mut total = 0;
    for key in keys {
        let n: u64 = redis::cmd("HLEN")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .unwrap();
        total += n;
    }
    total
}

#[tokio::test]
async fn a_game_the_ledger_settled_before_with_another_result_adopts_the_ledgers() {
    use gamehub_proto::common::GameType;
    use gamehub_proto::ledger as lg;
    let fx = Fixture::new().await;
    fx.grant(&["adopt-b", "adopt-w"]).await;
    let table = fx
        .open(pb::RuleSet::Freestyle, (0, 0), ["adopt-b", "adopt-w"])
        .await;
    let id = &table.table_id;
    let game_id = format!("{id}:1");
    // The ledger already paid game 1 as a five for white (as it would have had a Redis
    // crash taken the table back to before that ending).
    let player =
        |id: &str, role: lg::Role, outcome: lg::PlayerOutcome, points: i64| lg::PlayerResult {
            player_id: id.to_owned(),
            role: role as i32,
            outcome: outcome as i32,
            points,
            offered_draw: false,
        };
    let first = fx
        .ledger
        .client(gamehub_platform::auth::Role::Service)
        .settle_game(lg::SettleGameRequest {
            friends_table: false,
            game_id: game_id.clone(),
            game_type: GameType::Gomoku as i32,
            stakes: open_request(pb::RuleSet::Freestyle, (0, 0), ["adopt-b", "adopt-w"]).stakes,
            players: vec![
                player("adopt-b", lg::Role::Black, lg::PlayerOutcome::Loss, -5),
                player("adopt-w", lg::Role::White, lg::PlayerOutcome::Win, 5),
            ],
            reason: "five".into(),
            table_id: id.clone(),
            started_at_unix_ms: 1,
            ended_at_unix_ms: 2,
            record: Some(lg::GameRecord {
                format: "gomoku-text".into(),
                content: String::new(),
            }),
        })
        .await
        .unwrap()
        .into_inner();
    let adopted_before = gamehub_platform::metrics::metrics()
        .settlements
        .with_label_values(&["gomoku", "adopted"])
        .get();

    // The table's game 1 ends otherwise: black resigns (−3/+3).
    fx.player("adopt-b").resign(id).await.unwrap();
    let settlement = fx.settled(id, 1).await;

    // The ledger's word stands: the table shows what it paid, and says it adopted it.
    assert!(settlement.adopted, "{settlement:?}");
    for seat in &settlement.seats {
        let paid = first
            .players
            .iter()
            .find(|p| p.player_id == seat.player_id)
            .unwrap();
        assert_eq!(seat.points_delta, paid.points_delta, "{}", seat.player_id);
        assert_eq!(seat.silver_delta, paid.silver_delta, "{}", seat.player_id);
    }
    fx.assert_ledger("adopt-b", -5, 1).await;
    fx.assert_ledger("adopt-w", 5, 1).await;
    assert_eq!(dead_letters(&fx.prefix).await, 0, "nothing parked");
    assert!(
        gamehub_platform::metrics::metrics()
            .settlements
            .with_label_values(&["gomoku", "adopted"])
            .get()
            > adopted_before
    );
    fx.stop().await;
}
