//! The ledger load generator end to end, small: an in-process ledger on a scratch
//! database, random games with duplicates, and a one-second pgbench.
#![allow(clippy::unwrap_used)]

use gamehub_ledger::LedgerConfig;
use gamehub_loadgen::ledger::{Args, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loadgen_reports_settlements_latency_and_pgbench() {
    let args = Args {
        clients: 8,
        games: 300,
        players: 30,
        duplicate_rate: 0.3,
        pgbench_seconds: 1,
        pgbench_clients: 4,
        seed: Some(7),
        ..Args::default()
    };
    let report = run(&args, &LedgerConfig::for_tests()).await.unwrap();
    assert_eq!((report.settlements, report.errors), (300, 0), "{report}");
    assert!(report.replays > 30, "{report}");
    assert!(report.p50 <= report.p99 && report.p99 <= report.max);
    assert!(report.pgbench_tps.is_some_and(|tps| tps > 0.0), "{report}");
    let text = report.to_string();
    assert!(
        text.contains("settlements/s") && text.contains("ledger/pgbench"),
        "{text}"
    );
}
