//! The matcher benchmark, small, on the real Redis: every ticket is seated, in both
//! modes (queue filled first, and enqueueing while matching), in an unrated and a rated
//! room.
#![allow(clippy::unwrap_used)]

use gamehub_loadgen::matcher::{Args, run};
use gamehub_matchmaking::MatchmakingConfig;
use gamehub_platform::config::Env;
use gamehub_testkit::redis::redis_env;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_ticket_is_seated() {
    let config = MatchmakingConfig::from_env(&Env::from_pairs(redis_env())).unwrap();
    for (room, prefill) in [
        ("gomoku-free", true),
        ("gomoku-free", false),
        ("gomoku-renju", true),
        ("doudizhu-free", true),
    ] {
        let args = Args {
            tickets: 301,
            room: room.into(),
            rate: 0,
            enqueuers: 8,
            batch: None,
            prefill,
        };
        let report = run(&args, &config).await.unwrap();
        let seats = if room.starts_with("doudizhu") { 3 } else { 2 };
        assert_eq!(report.tickets, 301 - 301 % seats, "{report}");
        assert_eq!(report.tables, report.tickets / seats, "{report}");
        assert!(report.wait_ms.0 <= report.wait_ms.1, "{report}");
        assert!(report.to_string().contains("seated tables/s"));
    }
}
