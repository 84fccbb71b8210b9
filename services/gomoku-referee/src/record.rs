//! Finished games' records: the "gomoku-text" record of the game a step ended (what the
//! ledger keeps, built by `gomoku_rules::Record`), and the table's archive of recent
//! records for GetRecord and ExportRecord.
//!
//! The archive is a hash beside the table (`…:t:ID:records`, field = game id), written
//! after the step that ended the game so that the hot state stays small; should the
//! process die in between, the record is still in the settlement outbox and then at the
//! ledger.

use gamehub_platform::ApiError;
use gamehub_platform::tables::TableStore;
use gomoku_rules::{Record, RecordInfo};

use crate::error::RefereeError;
use crate::table::{FinishedGame, Step, TableState};

/// The record format written to the ledger and kept for GetRecord.
pub const RECORD_FORMAT: &str = "gomoku-text";

/// The day of `ms` as YYYY-MM-DD (UTC), for record headers.
pub fn date(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(0))
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// The text record of the table's current game, with its players and room.
pub fn text(state: &TableState) -> String {
    let game = &state.game;
    let first_black = game.config().black_seat;
    Record::new(
        RecordInfo {
            room: state.room.stakes.room_id.to_string(),
            black: state.players[first_black.index()].clone(),
            white: state.players[first_black.other().index()].clone(),
            date: date(game.started_ms()),
            friends_table: state.friends_table,
        },
        game.clone(),
    )
    .to_text()
}

/// The game id and text record of the game `step` ended, to keep beside the table.
pub fn ended(state: &TableState, step: &Step) -> Option<(String, String)> {
    let number = step.ended?;
    Some((state.game_id(number), text(state)))
}

/// Recent finished games of each table, in Redis beside the table.
#[derive(Debug, Clone)]
pub struct Archive {
    /// The live tables, beside whose keys the records are kept (and expire with them).
    store: TableStore,
}

impl Archive {
    /// The archive beside `store`'s tables.
    pub fn new(store: TableStore) -> Archive {
        Archive { store }
    }

    fn key(&self, table_id: &str) -> String {
        self.store.companion_key(table_id, "records")
    }

    /// Keeps a finished game's text record beside its table. A failure is logged, not
    /// returned: the ledger has the record too.
    pub async fn keep(&self, table_id: &str, game_id: &str, text: &str) {
        let key = self.key(table_id);
        let ttl = self.store.limits().idle_table_ttl.as_secs().max(1);
        let mut conn = self.store.redis();
        let written: Result<(), redis::RedisError> = redis::pipe()
            .cmd("HSET")
            .arg(&key)
            .arg(game_id)
            .arg(text)
            .ignore()
            .cmd("EXPIRE")
            .arg(&key)
            .arg(ttl)
            .ignore()
            .query_async(&mut conn)
            .await;
        if let Err(e) = written {
            tracing::warn!(table_id, game_id, error = %e, "record not kept at the table; the ledger has it");
        }
    }

    /// Finished game `number` of the table (0: the last) with its record as kept beside
    /// the table, read back and as text.
    pub async fn get(
        &self,
        state: &TableState,
        number: u32,
    ) -> Result<(FinishedGame, Record, String), ApiError> {
        let finished = state.finished_game(number)?.clone();
        let mut conn = self.store.redis();
        let text: Option<String> = redis::cmd("HGET")
            .arg(self.key(&state.table_id))
            .arg(&finished.game_id)
            .query_async(&mut conn)
            .await?;
        let text = text.ok_or_else(|| RefereeError::NoSuchGame {
            table_id: state.table_id.clone(),
            number: finished.number,
            hint: "; its record is not kept at the table: fetch it from the ledger (GetGameRecord)",
        })?;
        let record = Record::from_text(&text).map_err(|e| {
            ApiError::internal(anyhow::anyhow!(
                "stored record of {} does not read back: {e}",
                finished.game_id
            ))
        })?;
        Ok((finished, record, text))
    }
}
