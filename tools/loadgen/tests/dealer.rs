//! The dealer load generator runs against an in-process dealer on the real Redis, plays deals
//! through the API without a single refusal, and cleans up after itself.
#![allow(clippy::unwrap_used)]

use gamehub_doudizhu_dealer::DealerConfig;
use gamehub_loadgen::dealer::{self as loadgen, Args};
use gamehub_platform::config::Env;
use gamehub_testkit::redis::redis_env;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_load_plays_deals_without_refusals() {
    let env = Env::from_pairs(redis_env());
    let config = DealerConfig::from_env(&env).unwrap();
    let args = Args {
        tables: 4,
        duration: 3,
        addr: None,
        connections: 2,
        no_baseline: true,
        rate: 0.0,
    };
    let report = loadgen::run(&args, &config).await.unwrap();
    assert!(report.errors.is_empty(), "{report}");
    assert!(report.actions > 20, "{report}");
    assert!(report.p50_ms > 0.0 && report.p99_ms >= report.p50_ms);

    // Paced (open loop): the tables together act at about the offered rate.
    let paced = Args { rate: 40.0, ..args };
    let report = loadgen::run(&paced, &config).await.unwrap();
    assert!(report.errors.is_empty(), "{report}");
    assert!(
        report.actions_per_second < 60.0,
        "an offered 40/s is not exceeded much: {report}"
    );
    assert!(report.to_string().contains("actions"));
}
