//! The followers load against a referee in this process: every player connects on its
//! own connection and follows its table, the tables' stones reach them as events, and
//! this process's memory is measured by its name.
#![allow(clippy::unwrap_used)]

use gamehub_loadgen::followers::{Args, run};
use gamehub_platform::config::CommonConfig;
use gamehub_platform::server::Shutdown;
use gamehub_testkit::redis::fresh_prefix;
use gamehub_testkit::stub_ledger::StubLedger;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_follow_their_tables_and_the_memory_is_measured() {
    let ledger = Shutdown::new();
    let ledger_url = StubLedger::default().serve(ledger.clone()).await.unwrap();
    let prefix = fresh_prefix("lgfol");
    let referee = gamehub_gomoku_referee::testing::start_on(&prefix, &ledger_url).await;
    let me = std::fs::read_to_string("/proc/self/comm")
        .unwrap()
        .trim()
        .to_owned();
    let args = Args {
        players: 24,
        tables: 3,
        url: referee.url.clone(),
        processes: vec![me.clone()],
        connect_concurrency: 8,
        hold_secs: 2,
        moves_per_second: 20.0,
    };
    let report = run(&args, &CommonConfig::for_tests()).await.unwrap();
    assert!(report.errors.is_empty(), "{report}");
    assert_eq!(report.following, 24, "{report}");
    assert!(report.moves > 0, "{report}");
    // Each stone reaches the eight followers of its table.
    assert!(report.events_received >= report.moves, "{report}");
    assert!(
        report.after[&me].1 >= 1,
        "this process is measured: {report}"
    );
    assert!(report.after[&me].0 > 0, "{report}");
    // Refused before anything is opened.
    let none = Args {
        players: 0,
        ..args.clone()
    };
    assert!(run(&none, &CommonConfig::for_tests()).await.is_err());
    let too_many_tables = Args {
        tables: 10_001,
        ..args
    };
    assert!(
        run(&too_many_tables, &CommonConfig::for_tests())
            .await
            .is_err()
    );
}
