//! `gamehub-tournaments`: the tournament service (`serve`, the default) and its container
//! healthcheck (`health`), run by the platform's service runner.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use gamehub_tournaments::TournamentsConfig;

/// mimalloc, as every gamehub service.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    gamehub_platform::runner::service_main::<TournamentsConfig>(
        "gamehub-tournaments",
        "gamehub's tournaments: Swiss Gomoku, Dou Dizhu elimination rounds, fees and prizes",
    )
}
