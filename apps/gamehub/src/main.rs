//! The `gamehub` binary: the command line of [`gamehub::cli`].
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use gamehub::cli::{self, Cli};

/// mimalloc: markedly cheaper than the system allocator for the many small, short-lived
/// buffers of each call (protobuf, JSON state, HTTP/2 frames).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    match cli::run(Cli::parse()).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gamehub: {e:#}");
            ExitCode::FAILURE
        }
    }
}
