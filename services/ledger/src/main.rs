//! `gamehub-ledger`: the ledger service (`serve`, the default) and its container
//! healthcheck (`health`), run by the platform's service runner.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use gamehub_ledger::LedgerConfig;

/// mimalloc: markedly cheaper than the system allocator for the many small, short-lived
/// buffers of each call (protobuf, JSON state, HTTP/2 frames).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    gamehub_platform::runner::service_main::<LedgerConfig>(
        "gamehub-ledger",
        "gamehub's ledger: silver, caps, points, titles, ratings",
    )
}
