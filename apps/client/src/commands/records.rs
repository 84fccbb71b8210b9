//! `gamehub record`: export a finished Gomoku game, replay a record, show and verify a
//! Dou Dizhu deal.

use std::process::ExitCode;

use crossterm::event::EventStream;
use futures::future::BoxFuture;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use tokio::sync::mpsc;

use crate::app::{self};
use crate::record::{ReplayApp, deal_record_lines};
use crate::term::Terminal;
use crate::{DealArgs, ExportArgs, FormatArg, ReplayArgs, RulesArg};

use super::status;

/// `gamehub record export`: a finished Gomoku game to a file (or standard output).
pub(super) async fn record_export(
    args: ExportArgs,
    config: &CommonConfig,
) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let format = record_format(args.format);
    let export = clients
        .gomoku
        .export_record(gm::ExportRecordRequest {
            table_id: args.table.clone(),
            game_number: args.game_number,
            format: format as i32,
        })
        .await
        .map_err(status)?
        .into_inner();
    match args.out {
        Some(path) if path.as_os_str() == "-" => print!("{}", export.content),
        out => {
            let path = out.unwrap_or_else(|| export.file_name.clone().into());
            std::fs::write(&path, &export.content)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
            println!(
                "wrote the record of table {} ({} bytes) to {}",
                args.table,
                export.content.len(),
                path.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `gamehub record deal`: a finished Dou Dizhu deal shown and its shuffle verified;
/// FAILURE when it does not verify.
pub(super) async fn record_deal(args: DealArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let record = clients
        .doudizhu
        .get_deal_record(ddz::GetDealRecordRequest {
            table_id: args.table.clone(),
            deal_number: args.deal,
        })
        .await
        .map_err(status)?
        .into_inner()
        .record
        .ok_or_else(|| anyhow::anyhow!("the dealer returned no record"))?;
    let verified = verify_deal(&record);
    for line in deal_record_lines(&record, &verified) {
        println!("{line}");
    }
    if let Some(path) = &args.out {
        std::fs::write(path, &record.record_json)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        println!("wrote the record to {}", path.display());
    }
    Ok(if verified.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Checks a finished deal's shuffle by its revealed seed (the rules crate's check, as
/// anyone can run it), and in `laizi` the wild rank drawn from it; why not, for the
/// player.
pub(super) fn verify_deal(record: &ddz::DealRecord) -> Result<(), String> {
    doudizhu_rules::verify_published(
        &record.seed,
        &record.commitment,
        &record.deal_id,
        record.hands.iter().map(|h| h.cards.as_slice()),
        &record.kitty,
    )
    .map_err(|e| e.to_string())?;
    if record.wild_rank.is_empty() {
        return Ok(());
    }
    let seed = doudizhu_rules::Seed::from_hex(&record.seed).map_err(|e| e.to_string())?;
    let drawn = doudizhu_rules::wild_rank(&seed).symbol().to_string();
    if drawn == record.wild_rank {
        Ok(())
    } else {
        Err(format!(
            "the seed draws the wild rank {drawn}, not the recorded {}",
            record.wild_rank
        ))
    }
}

/// The API's record format for the command line's.
fn record_format(format: FormatArg) -> gm::RecordFormat {
    match format {
        FormatArg::Text => gm::RecordFormat::Text,
        FormatArg::Psq => gm::RecordFormat::Psq,
    }
}

pub(super) async fn replay(args: ReplayArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let (source, format, content) = if let Some(path) = &args.file {
        let content = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let format = args.format.unwrap_or_else(|| {
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("psq"))
            {
                FormatArg::Psq
            } else {
                FormatArg::Text
            }
        });
        (path.display().to_string(), format, content)
    } else if let Some(table_id) = &args.table {
        let export = clients
            .gomoku
            .export_record(gm::ExportRecordRequest {
                table_id: table_id.clone(),
                game_number: args.game_number,
                format: gm::RecordFormat::Text as i32,
            })
            .await
            .map_err(status)?
            .into_inner();
        (format!("table {table_id}"), FormatArg::Text, export.content)
    } else if let Some(game_id) = &args.game_id {
        let record = clients
            .ledger
            .get_game_record(lg::GetGameRecordRequest {
                game_id: game_id.clone(),
            })
            .await
            .map_err(status)?
            .into_inner()
            .record
            .unwrap_or_default();
        if record.format != "gomoku-text" {
            anyhow::bail!(
                "game {game_id} is kept as {:?}, not a Gomoku record; for a Dou Dizhu deal \
                 use `gamehub record deal`",
                record.format
            );
        }
        (format!("game {game_id}"), FormatArg::Text, record.content)
    } else {
        anyhow::bail!("give a record file, --table TABLE or --game-id GAME");
    };
    let rule_set = match args.rules {
        None | Some(RulesArg::Freestyle) => gm::RuleSet::Freestyle,
        Some(RulesArg::RenjuLose) => gm::RuleSet::RenjuLose,
        Some(RulesArg::RenjuRefuse) => gm::RuleSet::RenjuRefuse,
        Some(RulesArg::RenjuClaim) => gm::RuleSet::RenjuClaim,
    };
    let loaded = clients
        .gomoku
        .load_record(gm::LoadRecordRequest {
            format: record_format(format) as i32,
            content,
            rule_set: if format == FormatArg::Psq {
                rule_set as i32
            } else {
                gm::RuleSet::Unspecified as i32
            },
        })
        .await
        .map_err(status)?
        .into_inner();
    let mut terminal = Terminal::start()?;
    let mut keys = EventStream::new();
    let mut app = ReplayApp::new(loaded, &source);
    // No feed: the sender is dropped at once.
    let (_, rx) = mpsc::channel::<()>(1);
    app::run(
        &mut terminal,
        &mut keys,
        &mut app,
        rx,
        |()| -> BoxFuture<'static, ()> { Box::pin(async {}) },
    )
    .await?;
    Ok(ExitCode::SUCCESS)
}
