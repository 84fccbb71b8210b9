//! Money never ahead of the table (issue 14 §1), and a load generator that rides out
//! a Redis restart (§4).
//!
//! The whole platform runs over a Redis of its own with `appendfsync everysec` (what
//! `docker-compose.yml` ships), loaded by the load generator (both games, matchmaking to
//! settlement), while Redis "loses power" twice: it is killed (SIGKILL), its AOF is cut
//! back by its timestamp annotations to the end of the second before the one it died in
//! (so the last 1–2 s of writes are gone, as a power cut with everysec loses them), and
//! it is restarted, while games end all the time. Afterwards: no settlement was refused
//! (dead letters) or had to be adopted, none is left waiting, and every game the ledger
//! settled is at its table with exactly the points the ledger settled and paid. The
//! load generator, for its part, plays on after each restart.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gamehub_loadgen::platform::{Games, LoadOptions, run};
use gamehub_platform::auth::Role;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_testkit::clock::eventually;
use gamehub_testkit::redis_server::OwnRedis;
use gamehub_testkit_services::platform::TestPlatform;

/// This test's Redis port (engineer "durability": 22100–22199, below the ephemeral range).
const PORT: u16 = 22120;

const REDIS_ARGS: [&str; 4] = [
    "--appendfsync",
    "everysec",
    "--aof-timestamp-enabled",
    "yes",
];

/// The games the ledger has settled, by id.
async fn ledger_games(pool: &sqlx::PgPool) -> Vec<String> {
    sqlx::query_scalar("SELECT game_id FROM games ORDER BY game_seq")
        .fetch_all(pool)
        .await
        .unwrap()
}

/// Waits (bounded) until the ledger has settled `more` games beyond `than`.
async fn wait_for_games(pool: &sqlx::PgPool, than: usize, more: usize) -> usize {
    let what = format!("the ledger settles {more} more games");
    eventually(&what, Duration::from_secs(60), || async {
        let n = ledger_games(pool).await.len();
        (n >= than + more).then_some(n)
    })
    .await
}

/// Sums `HLEN` of every key matching `pattern` on the test's Redis.
fn hash_lengths(redis: &OwnRedis, pattern: &str) -> u64 {
    let keys = redis.cli(&["--scan", "--pattern", pattern]);
    keys.lines()
        .filter(|k| !k.is_empty())
        .map(|k| redis.cli(&["HLEN", k]).parse::<u64>().unwrap_or(0))
        .sum()
}

/// "Power loss": kill Redis, cut its AOF back to the end of the second before the one
/// it died in, restart it. Returns the bytes cut.
fn power_loss(redis: &mut OwnRedis) -> u64 {
    redis.kill();
    let died = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let incr = redis.incr_aof();
    let before = std::fs::metadata(&incr).unwrap().len();
    let manifest = redis.dir().join("appendonlydir/appendonly.aof.manifest");
    let out = std::process::Command::new("redis-check-aof")
        .arg("--truncate-to-timestamp")
        .arg((died - 1).to_string())
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "redis-check-aof: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let after = std::fs::metadata(&incr).unwrap().len();
    redis.restart(&REDIS_ARGS);
    before - after
}

/// Whether `game_id`'s table shows the points the ledger settled (`asked`) and paid.
async fn agrees(
    service: &gamehub_drive::api::Clients,
    game_id: &str,
    finished: &lg::FinishedGame,
    asked: &HashMap<&str, i64>,
    paid: &HashMap<&str, i64>,
) -> Result<(), String> {
    let table_id = &finished.table_id;
    if finished.game_type == GameType::Gomoku as i32 {
        let table = service
            .gomoku
            .clone()
            .get_table(gm::GetTableRequest {
                table_id: table_id.clone(),
            })
            .await
            .map_err(|e| format!("{game_id}: its table: {e}"))?
            .into_inner()
            .table
            .unwrap_or_default();
        let at_table = table
            .finished_games
            .iter()
            .find(|f| f.game_id == game_id)
            .ok_or_else(|| format!("{game_id} is not among its table's games"))?;
        let result = at_table.result.clone().unwrap_or_default();
        let settlement = at_table
            .settlement
            .as_ref()
            .ok_or_else(|| format!("{game_id}: the table has no settlement"))?;
        if settlement.adopted {
            return Err(format!("{game_id}: adopted"));
        }
        for player in &table.players {
            let seat = usize::try_from(player.seat).unwrap();
            let id = player.player_id.as_str();
            let settled = settlement.seats.iter().find(|s| s.player_id == id);
            if result.points.get(seat) != asked.get(id)
                || settled.map(|s| s.points_delta) != paid.get(id).copied()
            {
                return Err(format!(
                    "{game_id}: {id}: the table shows {:?} points and {:?} paid, the ledger {:?} and {:?}",
                    result.points.get(seat),
                    settled.map(|s| s.points_delta),
                    asked.get(id),
                    paid.get(id)
                ));
            }
        }
    } else {
        let table = service
            .doudizhu
            .clone()
            .get_table(ddz::GetTableRequest {
                table_id: table_id.clone(),
                as_spectator: true,
            })
            .await
            .map_err(|e| format!("{game_id}: its table: {e}"))?
            .into_inner()
            .table
            .unwrap_or_default();
        if table.deal_id != game_id {
            return Err(format!(
                "{game_id}: the table's last deal is {}",
                table.deal_id
            ));
        }
        let result = table
            .result
            .clone()
            .ok_or_else(|| format!("{game_id}: the table shows no result"))?;
        if result.settlement_adopted {
            return Err(format!("{game_id}: adopted"));
        }
        if result.settlement.len() != 3 {
            return Err(format!("{game_id}: the table shows no settlement"));
        }
        for seat in &table.seats {
            let index = usize::try_from(seat.seat).unwrap();
            let id = seat.player_id.as_str();
            if result.points.get(index) != asked.get(id)
                || result.settlement.get(index).map(|s| s.points_delta) != paid.get(id).copied()
            {
                return Err(format!(
                    "{game_id}: {id}: the table shows {:?} points and {:?} paid, the ledger {:?} and {:?}",
                    result.points.get(index),
                    result.settlement.get(index).map(|s| s.points_delta),
                    asked.get(id),
                    paid.get(id)
                ));
            }
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_power_loss_of_redis_leaves_every_table_agreeing_with_the_ledger() {
    let mut redis = OwnRedis::start("durability-power", PORT, &REDIS_ARGS);
    let url = redis.url();
    let tp = TestPlatform::start(&[
        ("REDIS_URL", url.as_str()),
        ("GAMEHUB_REDIS_CLUSTER", "false"),
    ])
    .await
    .unwrap();
    let pool = sqlx::PgPool::connect(&tp.database.url).await.unwrap();
    // The load runs (all of it measured) until the power cuts are over.
    let end = Arc::new(AtomicBool::new(false));
    let options = LoadOptions {
        tables: 6,
        duration: Duration::from_secs(600),
        games: Games::Both,
        gomoku_room: "gomoku-free".into(),
        doudizhu_room: "doudizhu-free".into(),
        progress: false,
        end_early: Some(end.clone()),
    };
    let (endpoints, config) = (tp.endpoints.clone(), tp.config.clone());
    let load = tokio::spawn(async move {
        run(&endpoints, &config, &options, Duration::ZERO, &[])
            .await
            .unwrap()
    });

    // Cut the power twice, each time while games are being settled; after each, the
    // load plays on and games are settled again.
    let mut settled = wait_for_games(&pool, 0, 10).await;
    let mut cut = Vec::new();
    for _ in 0..2 {
        cut.push(power_loss(&mut redis));
        settled = wait_for_games(&pool, settled, 10).await;
    }
    end.store(true, Ordering::Relaxed);
    let (report, _stopped) = load.await.unwrap();
    // (A cut may find a quiet second; the two together must have cut something.)
    assert!(cut.iter().sum::<u64>() > 0, "nothing was cut: {cut:?}");
    // The load generator rode the restarts out: nothing given up on but what a restart
    // takes away (a table whose seats a restart undid), and moves in its last seconds.
    let tail =
        &report.moves_per_second_series[report.moves_per_second_series.len().saturating_sub(2)..];
    assert!(tail.iter().all(|&m| m > 0), "{}", report.render());
    assert!(
        !report.errors.contains_key("Internal"),
        "INTERNAL during a Redis restart: {}",
        report.render()
    );

    // Let everything settle: no outbox entry left, none refused.
    eventually("the outboxes drain", Duration::from_secs(60), || {
        std::future::ready((hash_lengths(&redis, "*:outbox") == 0).then_some(()))
    })
    .await;
    assert_eq!(hash_lengths(&redis, "*:outbox-dead"), 0, "dead letters");
    let settlements = &gamehub_platform::metrics::metrics().settlements;
    for game in ["gomoku", "doudizhu"] {
        assert_eq!(
            settlements.with_label_values(&[game, "adopted"]).get(),
            0,
            "{game}: the ledger paid a result its table no longer had"
        );
        assert_eq!(settlements.with_label_values(&[game, "dead"]).get(), 0);
    }

    // Every game the ledger settled is at its table with the ledger's points.
    let operator = tp.clients("test-operator", Role::Operator);
    let service = tp.clients("matchmaking", Role::Service);
    let games = ledger_games(&pool).await;
    let mut checked: HashMap<i32, usize> = HashMap::new();
    for game_id in &games {
        let finished = operator
            .ledger
            .clone()
            .get_game_record(lg::GetGameRecordRequest {
                game_id: game_id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap();
        // What the ledger settled (asked) and paid, by player.
        let asked: HashMap<&str, i64> = finished
            .results
            .iter()
            .map(|r| (r.player_id.as_str(), r.points))
            .collect();
        let paid: HashMap<&str, i64> = finished
            .players
            .iter()
            .map(|p| (p.player_id.as_str(), p.points_delta))
            .collect();
        // The table notes the settlement just after the ledger's answer: wait for it.
        let start = Instant::now();
        loop {
            match agrees(&service, game_id, &finished, &asked, &paid).await {
                Ok(()) => break,
                Err(why) if start.elapsed() > Duration::from_secs(10) => {
                    let keys = redis.cli(&[
                        "--scan",
                        "--pattern",
                        &format!("*:t:{}*", finished.table_id),
                    ]);
                    let mut dump = String::new();
                    for key in keys.lines() {
                        dump.push_str(&format!("{key}: {}\n", redis.cli(&["TYPE", key])));
                        if key.ends_with(&finished.table_id) {
                            dump.push_str(&redis.cli(&["HGETALL", key]));
                        }
                        if key.ends_with(":ev") {
                            dump.push_str(
                                &redis
                                    .cli(&["XRANGE", key, "-", "+"])
                                    .chars()
                                    .rev()
                                    .take(3000)
                                    .collect::<String>()
                                    .chars()
                                    .rev()
                                    .collect::<String>(),
                            );
                        }
                    }
                    panic!("{why}\n{dump}\n{}", report.render())
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
        *checked.entry(finished.game_type).or_default() += 1;
    }
    assert!(
        checked.len() == 2,
        "both games were settled and checked: {checked:?}"
    );
    eprintln!(
        "power loss: {} games settled and checked ({checked:?}), AOF cut by {cut:?} bytes\n{}",
        games.len(),
        report.render()
    );
    tp.stop().await;
}
