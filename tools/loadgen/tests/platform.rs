//! The whole-path load generator against a platform in this process: players are
//! seated, play Gomoku games and Dou Dizhu deals to the end, and nothing is refused.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use gamehub_loadgen::platform::{Games, LoadOptions, run};
use gamehub_testkit_services::platform::TestPlatform;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_load_seats_players_and_plays_both_games() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let options = LoadOptions {
        tables: 4,
        duration: Duration::from_secs(4),
        games: Games::Both,
        gomoku_room: "gomoku-free".into(),
        doudizhu_room: "doudizhu-free".into(),
        progress: false,
        end_early: None,
    };
    let (report, stop) = run(
        &tp.endpoints,
        &tp.config,
        &options,
        Duration::from_secs(1),
        &[],
    )
    .await
    .unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(report.errors.is_empty(), "{}", report.render());
    assert!(report.seated_per_second > 0.0, "{}", report.render());
    assert!(report.moves_per_second > 10.0, "{}", report.render());
    assert!(report.games_per_second > 0.0, "{}", report.render());
    assert!(report.render().contains("moves/s"));
    tp.stop().await;
}
