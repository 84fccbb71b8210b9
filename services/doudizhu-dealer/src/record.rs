//! Finished deals: the "doudizhu-json" record document (what the ledger keeps and
//! GetDealRecord returns), its verification, and the table's archive of recent records.
//!
//! A finished deal stays in the table's state until the next deal is dealt; the step
//! that deals it runs only after the finished deal was written to the archive
//! (`…:t:ID:records`, a hash from deal number to document, beside the table's keys),
//! so a record is never lost between the two.

use std::time::Duration;

use doudizhu_rules::{Actor, DealRecord, ReplayError, VerifyError};
use gamehub_platform::ApiError;
use gamehub_platform::tables::TableStore;
use serde::{Deserialize, Serialize};

use crate::table::{Table, deal_id};

/// The record format name the ledger stores (`GameRecord.format`).
pub const RECORD_FORMAT: &str = "doudizhu-json";

/// A finished deal with its table context. Serialized as JSON: the "doudizhu-json"
/// format. `record` is the rules crate's `DealRecord` (cards as card text, the seed as
/// hex, bids as numbers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordDoc {
    /// The document's format version (1).
    pub version: u32,
    pub table_id: String,
    pub deal_number: u32,
    pub room_id: String,
    /// Player ids by seat.
    pub players: [String; 3],
    pub started_ms: u64,
    pub ended_ms: u64,
    /// Who chose each bid (the seat, a timeout, auto-play), in bid order.
    #[serde(default)]
    pub bid_actors: Vec<Actor>,
    pub record: DealRecord,
    /// Played at a friends' table (好友房). Written only when true, so the documents of
    /// other tables read as before, and read as false from a document without it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub friends_table: bool,
}

/// Why a record does not check out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("the record is not valid doudizhu-json: {0}")]
    Malformed(String),
    #[error("the deal id {found:?} is not {expected:?}")]
    WrongDealId { expected: String, found: String },
    #[error("the shuffle does not check out: {0}")]
    Shuffle(#[from] VerifyError),
    #[error("the plays do not replay: {0}")]
    Replay(#[from] ReplayError),
    #[error("the plays replay to a different result")]
    WrongResult,
}

impl RecordDoc {
    /// The record of the table's current deal, once it has ended.
    pub fn of(table: &Table) -> Option<RecordDoc> {
        let record = table.deal.record()?;
        Some(RecordDoc {
            version: 1,
            table_id: table.id.clone(),
            deal_number: table.deal_number,
            room_id: table.stakes.room_id.to_string(),
            players: table.players.clone(),
            started_ms: table.deal_started_ms,
            ended_ms: table.deal_ended_ms,
            bid_actors: table.bid_actors.clone(),
            record,
            friends_table: table.friends_table,
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<RecordDoc, RecordError> {
        serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))
    }

    /// Checks the record: the deal id is this table's deal, the seed hashes to the
    /// commitment and deals exactly these hands and kitty, and the bids and plays replay
    /// under the rules to the recorded result.
    pub fn verify(&self) -> Result<(), RecordError> {
        let expected = deal_id(&self.table_id, self.deal_number);
        if self.record.deal_id != expected {
            return Err(RecordError::WrongDealId {
                expected,
                found: self.record.deal_id.clone(),
            });
        }
        self.record.verify()?;
        if self.record.replay()? != self.record.settlement {
            return Err(RecordError::WrongResult);
        }
        Ok(())
    }
}

/// Recent finished deals of each table, in Redis beside the table.
#[derive(Debug, Clone)]
pub struct Archive {
    store: TableStore,
    /// Records kept per table (older ones are dropped; played deals stay in the ledger).
    keep: u32,
    /// How long a table's records live after the last one was written.
    ttl: Duration,
}

impl Archive {
    pub fn new(store: TableStore, keep: u32, ttl: Duration) -> Archive {
        Archive {
            store,
            keep: keep.max(1),
            ttl,
        }
    }

    fn key(&self, table_id: &str) -> String {
        self.store.companion_key(table_id, "records")
    }

    /// Writes the table's finished deal (idempotent: the same deal writes the same
    /// document). Does nothing while the deal goes on.
    pub async fn put(&self, table: &Table) -> Result<(), ApiError> {
        let Some(doc) = RecordDoc::of(table) else {
            return Ok(());
        };
        let key = self.key(&table.id);
        let mut pipe = redis::pipe();
        pipe.cmd("HSET")
            .arg(&key)
            .arg(doc.deal_number)
            .arg(doc.to_json())
            .ignore();
        if doc.deal_number > self.keep {
            pipe.cmd("HDEL")
                .arg(&key)
                .arg(doc.deal_number - self.keep)
                .ignore();
        }
        pipe.cmd("EXPIRE")
            .arg(&key)
            .arg(self.ttl.as_secs().max(1))
            .ignore();
        let mut conn = self.store.redis();
        let () = pipe.query_async(&mut conn).await?;
        Ok(())
    }

    /// The archived record of deal `deal_number`, as its JSON document.
    pub async fn get(&self, table_id: &str, deal_number: u32) -> Result<Option<String>, ApiError> {
        let mut conn = self.store.redis();
        let json: Option<String> = redis::cmd("HGET")
            .arg(self.key(table_id))
            .arg(deal_number)
            .query_async(&mut conn)
            .await?;
        Ok(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::*;

    #[test]
    fn friends_table_is_written_only_when_true_and_read_from_either_shape() {
        let (mut table, _) = open();
        table
            .leave(doudizhu_rules::Seat::ALL[1], 2_000, TIMING)
            .unwrap();
        let plain = RecordDoc::of(&table).unwrap();
        let json = plain.to_json();
        assert!(!json.contains("friends_table"), "{json}");
        assert_eq!(RecordDoc::from_json(&json).unwrap(), plain);
        plain.verify().unwrap();

        table.friends_table = true;
        let friends = RecordDoc::of(&table).unwrap();
        let json = friends.to_json();
        assert!(json.contains(r#""friends_table":true"#), "{json}");
        let back = RecordDoc::from_json(&json).unwrap();
        assert!(back.friends_table);
        back.verify().unwrap();
    }
}
