//! The referee load generator against a referee in this process (settling at a stub
//! ledger), closed loop and paced, in every rule set: games are played (and finished)
//! without a single refusal.
#![allow(clippy::unwrap_used)]

use gamehub_loadgen::referee::{Args, run};
use gamehub_platform::config::CommonConfig;
use gamehub_platform::server::Shutdown;
use gamehub_testkit::redis::{fresh_prefix, remove_keys};
use gamehub_testkit::stub_ledger::StubLedger;

/// Four tables for two seconds on `addr`, closed loop (`rate` 0) or paced.
fn short(addr: &str, rules: &str, rate: f64) -> Args {
    Args {
        tables: 4,
        duration: 2,
        addr: addr.to_owned(),
        rules: rules.into(),
        connections: 2,
        rate,
        redis_benchmark_requests: 0,
        grpc_floor_secs: 0,
        whole_answers: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_load_plays_games_without_refusals_in_every_rule_set() {
    let ledger = Shutdown::new();
    let ledger_url = StubLedger::default().serve(ledger.clone()).await.unwrap();
    let prefix = fresh_prefix("lgref");
    let referee = gamehub_gomoku_referee::testing::start_on(&prefix, &ledger_url).await;
    let mut games = 0;
    for rules in [
        "freestyle",
        "renju-lose",
        "renju-refuse",
        "renju-claim",
        "renju-swap",
    ] {
        let report = run(&short(&referee.url, rules, 0.0), &CommonConfig::for_tests())
            .await
            .unwrap();
        assert!(report.errors.is_empty(), "{rules}: {report}");
        assert!(report.moves > 0, "{rules}: {report}");
        assert!(report.p50_ms > 0.0 && report.p99_ms >= report.p50_ms);
        games += report.games;
    }
    // A debug build plays a few hundred stones in two seconds: not every rule set's
    // random games end that soon, and on a busy machine none may. More freestyle runs
    // until one does, at most ten (a random game ends within a few hundred stones).
    for _ in 0..10 {
        if games > 0 {
            break;
        }
        let report = run(
            &short(&referee.url, "freestyle", 0.0),
            &CommonConfig::for_tests(),
        )
        .await
        .unwrap();
        assert!(report.errors.is_empty(), "{report}");
        games += report.games;
    }
    assert!(games > 0, "games are played to the end");
    // Paced (open loop): the tables together act at about the offered rate.
    let report = run(
        &short(&referee.url, "freestyle", 40.0),
        &CommonConfig::for_tests(),
    )
    .await
    .unwrap();
    assert!(report.errors.is_empty(), "{report}");
    assert!(
        report.moves_per_second() < 60.0,
        "an offered 40/s is not exceeded much: {report}"
    );
    // The gRPC floor: health checks through the same connections, counted.
    let report = run(
        &Args {
            grpc_floor_secs: 1,
            ..short(&referee.url, "freestyle", 0.0)
        },
        &CommonConfig::for_tests(),
    )
    .await
    .unwrap();
    let checks = report.grpc_checks_per_second.unwrap();
    assert!(checks > 0.0, "{report}");
    assert!(
        report.to_string().contains("moves/s ÷ checks/s"),
        "{report}"
    );
    ledger.trigger();
    remove_keys(&prefix).await;
}
