//! `gamehub-doudizhu-dealer`: the Dou Dizhu dealer (`serve`, the default), its container
//! healthcheck (`health`), both run by the platform's service runner, and the
//! deal-record checker (`verify`).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Subcommand;
use gamehub_doudizhu_dealer::DealerConfig;
use gamehub_doudizhu_dealer::record::RecordDoc;

/// mimalloc: markedly cheaper than the system allocator for the many small, short-lived
/// buffers of each call (protobuf, JSON state, HTTP/2 frames).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The dealer's own commands, beside `serve` and `health`.
#[derive(Debug, Subcommand)]
enum Command {
    /// Check a finished deal's record: the seed against the commitment, the shuffle
    /// against the hands and kitty, the plays against the result. Reads the
    /// "doudizhu-json" document (GetDealRecord's `record_json`, or the ledger's record)
    /// from the file, or from standard input when no file is given.
    Verify {
        /// The record file.
        file: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    gamehub_platform::runner::service_main_with::<DealerConfig, Command>(
        "gamehub-doudizhu-dealer",
        "gamehub's Dou Dizhu dealer: authoritative three-player tables",
        |Command::Verify { file }| verify(file),
    )
}

/// `verify`: SUCCESS when the record checks out, FAILURE (with the reason) when not.
fn verify(file: Option<std::path::PathBuf>) -> anyhow::Result<ExitCode> {
    let text = match file {
        Some(path) => std::fs::read_to_string(path)?,
        None => std::io::read_to_string(std::io::stdin())?,
    };
    let doc = RecordDoc::from_json(&text)?;
    match doc.verify() {
        Ok(()) => {
            println!(
                "ok: deal {} of table {}: the seed matches the commitment {}, deals these hands and kitty, and the plays replay to the recorded result",
                doc.deal_number, doc.table_id, doc.record.commitment
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("FAILED: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}
