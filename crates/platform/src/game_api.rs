//! What every game service's gRPC handlers do the same way: who calls and what, the key
//! that makes a player's retry idempotent, OpenTable's create-once step, and a watch
//! stream's items decoded.
//!
//! A player's action reads, in both services: [`caller_and_message`], parse the action
//! (each service's `parse`), then the service's `act` — players only, table id and
//! request id parsed, one table step under [`player_request_key`] — and the answer.

use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::{Request, Status};

use crate::auth::Caller;
use crate::error::ApiError;
use crate::tables::hub::WatchItem;
use crate::tables::listing::Listing;
use crate::tables::{Change, Loaded, TableStore, Updated};

/// The caller of `request` (put there by the server's authenticate layer) and its
/// message.
pub fn caller_and_message<T>(request: Request<T>) -> Result<(Caller, T), Status> {
    let caller = caller(&request)?;
    Ok((caller, request.into_inner()))
}

/// The caller of `request`, owned.
pub fn caller<T>(request: &Request<T>) -> Result<Caller, Status> {
    Ok(Caller::of(request)?.clone())
}

/// The request key of a player's action at a table: the same player sending the same
/// request id again is a retry, answered from the first application and never applied
/// twice (the table remembers its latest keys).
pub fn player_request_key(player: &str, request_id: &str) -> String {
    format!("{player}:{request_id}")
}

/// How [`open_once`] went.
#[derive(Debug)]
pub enum Opened<S> {
    /// This call created the table.
    Created {
        /// The sequence of its first events.
        last_seq: u64,
    },
    /// The table was there already: a retry of the same OpenTable, or its request id
    /// reused for another table — the service compares. None when it has gone since.
    Existing(Option<Loaded<S>>),
}

/// OpenTable's step, the same in every game service: creates `table_id` with `state`
/// and its first `change` under `request_key`, in its room's table list when `listing`
/// says so; when that key was seen or the table exists, the existing table instead.
pub async fn open_once<S: Serialize + DeserializeOwned>(
    store: &TableStore,
    table_id: &str,
    state: &S,
    change: Change<()>,
    request_key: &str,
    listing: Listing<'_>,
) -> Result<Opened<S>, ApiError> {
    match store
        .create_listed(table_id, state, change, Some(request_key), Some(listing))
        .await
    {
        Ok(Updated::Applied { last_seq, .. }) => Ok(Opened::Created { last_seq }),
        Ok(Updated::Duplicate { .. }) | Err(ApiError::AlreadyExists(_)) => {
            Ok(Opened::Existing(store.load(table_id).await?))
        }
        Err(e) => Err(e),
    }
}

/// A watch stream's item, decoded.
#[derive(Debug)]
pub enum Watched<S, E> {
    /// The table's state as of event `seq`.
    Snapshot {
        /// The last event the state includes.
        seq: u64,
        /// The state, as the service stores it (JSON).
        state: S,
    },
    /// One event of the table, its sequence `seq`.
    Event {
        /// The event's sequence, its id for a resuming watcher.
        seq: u64,
        /// The event, as the service stored it (protobuf).
        event: E,
    },
}

/// Decodes a watch stream's item; anything that does not decode is an internal error
/// (logged, never shown).
pub fn decode_watched<S, E>(item: WatchItem) -> Result<Watched<S, E>, ApiError>
where
    S: DeserializeOwned,
    E: prost::Message + Default,
{
    match item {
        WatchItem::Snapshot { seq, state } => {
            let state = serde_json::from_slice(&state).map_err(|e| {
                ApiError::internal(anyhow::anyhow!("table state does not decode: {e}"))
            })?;
            Ok(Watched::Snapshot { seq, state })
        }
        WatchItem::Event(stored) => {
            let event = E::decode(stored.payload.as_slice()).map_err(|e| {
                ApiError::internal(anyhow::anyhow!("stored event does not decode: {e}"))
            })?;
            Ok(Watched::Event {
                seq: stored.seq,
                event,
            })
        }
    }
}
