//! The table list (`ListTables` of every game service): each room's live public tables,
//! newest first, page by page, with how many spectators watch each one now.
//!
//! ## The index
//! Each shard keeps one sorted set of its listed tables, `…:{G:SS}:listed`, every score 0
//! and each member `ROOM/OPENED_MS/ID` (`OPENED_MS` 13 digits), so that a room's tables
//! are one lexicographic range of it, ordered by when they opened. Neither a room id
//! (`a-z 0-9 -`) nor a table id (`A-Z a-z 0-9 - _ . : @`) holds a `/`, so a range never
//! strays into another room. The entry is added by the step that creates the table
//! ([`TableStore::create_listed`] with [`Listing::listed`]; friends' tables are not) and
//! kept in the table's hash (`l`), so that the step that closes the table — whichever
//! closes it — takes it out, atomically, in the table's own slot. A table whose keys
//! expired without a closing step (idle for a day) leaves its entry behind: listing
//! drops such entries as it meets them.
//!
//! A page reads every shard's next entries of the room (one pipelined round trip on a
//! single Redis), merges them newest first, then loads the states of the page's tables
//! and their spectator counts (one more round trip). The page token is the last entry
//! shown (`p1.OPENED_MS.ID`, opaque to clients, checked when it comes back).
//!
//! ## Spectators
//! Each spectator's watch stream (a watcher holding no seat) is a member of the table's
//! `…:t:ID:spectators` sorted set, scored by when it expires: the process serving the
//! stream pushes that back every [`SPECTATOR_REFRESH`] and removes the member when the
//! stream ends. A process that dies stops refreshing, so its spectators stop being
//! counted [`SPECTATOR_TTL_MS`] later at most. The number of members is bounded by the
//! watch hub's places per table in each process, and each refresh drops expired ones.

use std::time::Duration;

use gamehub_proto::common::TableSummary;
use gamehub_terms::RoomId;
use serde::de::DeserializeOwned;

use super::{SHARDS, TableStore, shard_of};
use crate::error::{ApiError, invalid};

/// Tables per page when the request says 0.
pub const DEFAULT_PAGE_SIZE: usize = 20;
/// The most tables per page; a larger request is clamped to it.
pub const MAX_PAGE_SIZE: usize = 50;
/// The longest page token accepted.
pub const MAX_PAGE_TOKEN_BYTES: usize = 128;
/// How many times one page reads the index again when the entries it met were of
/// tables that had vanished: a page may come out short (with a token for the rest)
/// rather than read on without bound.
const MAX_ROUNDS_PER_PAGE: usize = 3;
/// How often a serving process pushes back the expiry of each of its spectators.
pub const SPECTATOR_REFRESH: Duration = Duration::from_secs(20);
/// How long a spectator stays counted after its process last refreshed it.
pub const SPECTATOR_TTL_MS: u64 = 60_000;

/// The token's version prefix.
const TOKEN_PREFIX: &str = "p1.";
/// Digits of the opening time in an entry (Unix ms; enough until the year 2286).
const MS_DIGITS: usize = 13;

/// Whether and where a new table is listed: the argument of
/// [`TableStore::create_listed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listing<'a> {
    /// The table's room.
    pub room_id: &'a str,
    /// Whether the table is listed (friends' tables are not).
    pub listed: bool,
}

impl<'a> Listing<'a> {
    /// A table of `room_id`, listed when `listed`.
    pub fn new(room_id: &'a str, listed: bool) -> Self {
        Self { room_id, listed }
    }
}

/// A table's entry in its shard's index: `ROOM/OPENED_MS/ID`.
pub(crate) fn entry(room_id: &str, opened_ms: u64, table_id: &str) -> Result<String, ApiError> {
    // The services parse both at the edge; a bad one here is a bug, never a stray range.
    let room = RoomId::parse(room_id)
        .map_err(|e| ApiError::internal(anyhow::anyhow!("a listed table's room id {e}")))?;
    if room.as_str() != room_id || table_id.contains('/') || table_id.is_empty() {
        return Err(ApiError::internal(anyhow::anyhow!(
            "table {table_id:?} of room {room_id:?} cannot be listed"
        )));
    }
    Ok(format!("{room_id}/{opened_ms:0MS_DIGITS$}/{table_id}"))
}

/// A position in a room's list: the entry of the last table a page showed, less its
/// room (`OPENED_MS/ID`, ordered as the index orders them).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Position(String);

impl Position {
    fn new(opened_ms: u64, table_id: &str) -> Self {
        Self(format!("{opened_ms:0MS_DIGITS$}/{table_id}"))
    }

    fn parts(&self) -> Option<(u64, &str)> {
        let (ms, table_id) = self.0.split_once('/')?;
        Some((ms.parse().ok()?, table_id))
    }

    fn token(&self) -> String {
        let (ms, table_id) = self.parts().unwrap_or_default();
        format!("{TOKEN_PREFIX}{ms:0MS_DIGITS$}.{table_id}")
    }

    fn from_token(token: &str) -> Option<Self> {
        let rest = token.strip_prefix(TOKEN_PREFIX)?;
        let (ms, table_id) = (rest.get(..MS_DIGITS)?, rest.get(MS_DIGITS..)?);
        let table_id = table_id.strip_prefix('.')?;
        if !ms.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let checked = gamehub_terms::ids::check(table_id, gamehub_terms::ids::MAX_ID_LEN).ok()?;
        let ms = ms.parse().ok()?;
        (checked == table_id).then(|| Self::new(ms, table_id))
    }
}

/// A parsed ListTables request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// The room listed.
    pub room_id: RoomId,
    /// Tables wanted, 1 to [`MAX_PAGE_SIZE`].
    pub page_size: usize,
    /// Where the previous page ended; None for the first page.
    after: Option<Position>,
}

impl PageRequest {
    /// Reads a ListTables request's three fields, refusing with INVALID_ARGUMENT naming
    /// the field: `room_id` required, `page_size` 1–50 (0: 20; larger: 50; negative
    /// refused), `page_token` empty or a token this list gave.
    pub fn parse(room_id: &str, page_size: i32, page_token: &str) -> Result<Self, ApiError> {
        let room_id = RoomId::parse(room_id).map_err(|e| invalid("room_id", e))?;
        let page_size = match usize::try_from(page_size) {
            Err(_) => {
                return Err(invalid(
                    "page_size",
                    format!("must be 0 (for {DEFAULT_PAGE_SIZE}) or more, not {page_size}"),
                ));
            }
            Ok(0) => DEFAULT_PAGE_SIZE,
            Ok(n) => n.min(MAX_PAGE_SIZE),
        };
        let after = if page_token.is_empty() {
            None
        } else if page_token.len() > MAX_PAGE_TOKEN_BYTES {
            return Err(invalid(
                "page_token",
                format!("is longer than {MAX_PAGE_TOKEN_BYTES} bytes"),
            ));
        } else {
            Some(Position::from_token(page_token).ok_or_else(|| {
                invalid(
                    "page_token",
                    "is not a token this list gave: send next_page_token back unchanged, or empty for the first page",
                )
            })?)
        };
        Ok(Self {
            room_id,
            page_size,
            after,
        })
    }
}

/// A listed table as the service's summary closure gets it.
#[derive(Debug, Clone)]
pub struct ListedTable<S> {
    /// The table.
    pub table_id: String,
    /// The table's state, decoded.
    pub state: S,
}

/// One page of a room's tables.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListPage {
    /// The tables, newest first.
    pub tables: Vec<TableSummary>,
    /// The token of the next page; empty on the last page.
    pub next_page_token: String,
}

/// A due entry of the index: its position and the table.
#[derive(Debug)]
struct Candidate {
    position: Position,
    table_id: String,
    opened_ms: u64,
}

impl TableStore {
    /// One page of `request.room_id`'s listed tables, newest first. `summarize` builds
    /// the game's part of each table's summary from its state (players, whether a game
    /// is on, game and move numbers, phase); the store fills in the table and room ids,
    /// when it opened and how many spectators watch it. `summarize` answering None (a
    /// table that is over) and tables that have vanished leave the list for good.
    pub async fn list_tables<S, F>(
        &self,
        request: &PageRequest,
        summarize: F,
    ) -> Result<ListPage, ApiError>
    where
        S: DeserializeOwned,
        F: Fn(ListedTable<S>) -> Option<TableSummary>,
    {
        let room = request.room_id.as_str();
        let mut after = request.after.clone();
        let mut tables = Vec::with_capacity(request.page_size);
        for _ in 0..MAX_ROUNDS_PER_PAGE {
            let wanted = request.page_size - tables.len();
            let (candidates, more) = self.next_entries(room, after.as_ref(), wanted).await?;
            let Some(last) = candidates.last() else {
                return Ok(ListPage {
                    tables,
                    next_page_token: String::new(),
                });
            };
            after = Some(last.position.clone());
            let mut gone = Vec::new();
            for (candidate, loaded) in self.load_listed(&candidates).await?.into_iter() {
                let summary = loaded.and_then(|(state, spectators)| {
                    let state = serde_json::from_slice::<S>(&state)
                        .inspect_err(|e| tracing::error!(game = self.game, table_id = %candidate.table_id, error = %e, "a listed table's state does not decode"))
                        .ok()?;
                    let mut summary = summarize(ListedTable {
                        table_id: candidate.table_id.clone(),
                        state,
                    })?;
                    summary.table_id.clone_from(&candidate.table_id);
                    summary.room_id = room.to_owned();
                    summary.spectators = i32::try_from(spectators).unwrap_or(i32::MAX);
                    summary.opened_at_unix_ms = i64::try_from(candidate.opened_ms).unwrap_or(i64::MAX);
                    Some(summary)
                });
                match summary {
                    Some(summary) => tables.push(summary),
                    None => gone.push(candidate),
                }
            }
            self.drop_entries(room, &gone).await;
            if !more {
                return Ok(ListPage {
                    tables,
                    next_page_token: String::new(),
                });
            }
            if tables.len() >= request.page_size {
                break;
            }
        }
        Ok(ListPage {
            tables,
            next_page_token: after.map(|a| a.token()).unwrap_or_default(),
        })
    }

    /// The room's next `wanted` entries after `after` across shards, newest first, and
    /// whether more follow.
    async fn next_entries(
        &self,
        room: &str,
        after: Option<&Position>,
        wanted: usize,
    ) -> Result<(Vec<Candidate>, bool), ApiError> {
        // `ROOM/` ends below every entry of the room and `ROOM0` above ('0' follows '/').
        let max = match after {
            Some(position) => format!("({room}/{}", position.0),
            None => format!("({room}0"),
        };
        let min = format!("({room}/");
        let per_shard: Vec<Vec<String>> = self
            .redis
            .query_each((0..SHARDS).map(|shard| {
                let mut cmd = redis::cmd("ZREVRANGEBYLEX");
                cmd.arg(self.listed_key(shard))
                    .arg(&max)
                    .arg(&min)
                    .arg("LIMIT")
                    .arg(0)
                    .arg(wanted + 1);
                cmd
            }))
            .await?;
        let prefix = format!("{room}/");
        let mut positions: Vec<Position> = per_shard
            .into_iter()
            .flatten()
            .filter_map(|member| member.strip_prefix(&prefix).map(|p| Position(p.to_owned())))
            .collect();
        positions.sort_unstable_by(|a, b| b.cmp(a));
        positions.dedup();
        let more = positions.len() > wanted;
        positions.truncate(wanted);
        let candidates = positions
            .into_iter()
            .filter_map(|position| match position.parts() {
                Some((opened_ms, table_id)) => Some(Candidate {
                    table_id: table_id.to_owned(),
                    opened_ms,
                    position: position.clone(),
                }),
                None => {
                    // Only the commit step writes entries: this one is corrupt. Skipped
                    // (and logged each time it is met), never shown.
                    tracing::error!(game = self.game, room, entry = %position.0, "a malformed entry in the table list");
                    None
                }
            })
            .collect();
        Ok((candidates, more))
    }

    /// Each candidate's state and spectator count (None for a table that vanished), in
    /// one pipelined round trip.
    #[allow(clippy::type_complexity)]
    async fn load_listed<'c>(
        &self,
        candidates: &'c [Candidate],
    ) -> Result<Vec<(&'c Candidate, Option<(Vec<u8>, u64)>)>, ApiError> {
        let now_ms = self.clock.now_ms();
        let replies: Vec<redis::Value> = self
            .redis
            .query_each(candidates.iter().flat_map(|c| {
                let mut state = redis::cmd("HGET");
                state.arg(self.table_key(&c.table_id)).arg("s");
                let mut spectators = redis::cmd("ZCOUNT");
                spectators
                    .arg(self.spectators_key(&c.table_id))
                    .arg(now_ms)
                    .arg("+inf");
                [state, spectators]
            }))
            .await?;
        let decode = |e: redis::ParsingError| {
            ApiError::internal(anyhow::anyhow!("a listed table's reply: {e}"))
        };
        let mut replies = replies.into_iter();
        let mut loaded = Vec::with_capacity(candidates.len());
        for candidate in candidates {
            let (Some(state), Some(count)) = (replies.next(), replies.next()) else {
                return Err(ApiError::internal(anyhow::anyhow!(
                    "fewer replies than the table list asked for"
                )));
            };
            let state: Option<Vec<u8>> =
                redis::FromRedisValue::from_redis_value(state).map_err(decode)?;
            let count: u64 = redis::FromRedisValue::from_redis_value(count).map_err(decode)?;
            loaded.push((candidate, state.map(|s| (s, count))));
        }
        Ok(loaded)
    }

    /// Takes entries of tables that vanished (or are over) out of the index. A failure
    /// is logged: the next listing meets them again.
    async fn drop_entries(&self, room: &str, gone: &[&Candidate]) {
        if gone.is_empty() {
            return;
        }
        let dropped: Result<Vec<u64>, _> = self
            .redis
            .query_each(gone.iter().map(|c| {
                let mut cmd = redis::cmd("ZREM");
                cmd.arg(self.listed_key(shard_of(&c.table_id)))
                    .arg(format!("{room}/{}", c.position.0));
                cmd
            }))
            .await;
        match dropped {
            Ok(_) => tracing::debug!(
                game = self.game,
                room,
                count = gone.len(),
                "dropped vanished tables from the table list"
            ),
            Err(e) => {
                tracing::warn!(game = self.game, room, error = %e, "vanished tables not dropped from the table list; the next listing retries")
            }
        }
    }

    /// The table's spectator streams ([`listing`](self)).
    fn spectators_key(&self, table_id: &str) -> String {
        self.companion_key(table_id, "spectators")
    }

    /// Counts a spectator's watch stream of `table_id` in the table list until the
    /// returned guard drops: a task of this process keeps its entry fresh and removes it
    /// then.
    pub fn count_spectator(&self, table_id: &str) -> SpectatorCounted {
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let store = self.clone();
        let key = self.spectators_key(table_id);
        let member = uuid::Uuid::new_v4().simple().to_string();
        tokio::spawn(async move {
            let mut refresh = tokio::time::interval(SPECTATOR_REFRESH);
            loop {
                tokio::select! {
                    _ = refresh.tick() => store.mark_spectator(&key, &member).await,
                    _ = &mut stopped => break,
                }
            }
            let mut conn = store.redis();
            if let Err(e) = redis::cmd("ZREM")
                .arg(&key)
                .arg(&member)
                .query_async::<u64>(&mut conn)
                .await
            {
                tracing::warn!(key, error = %e, "a spectator not removed; it stops being counted within a minute");
            }
        });
        SpectatorCounted { _stop: stop }
    }

    /// Pushes a spectator's expiry back, drops expired ones, and keeps the key alive
    /// as long as someone refreshes it.
    async fn mark_spectator(&self, key: &str, member: &str) {
        let now_ms = self.clock.now_ms();
        let mut conn = self.redis();
        let marked: Result<(), _> = redis::pipe()
            .atomic()
            .cmd("ZADD")
            .arg(key)
            .arg(now_ms.saturating_add(SPECTATOR_TTL_MS))
            .arg(member)
            .ignore()
            .cmd("ZREMRANGEBYSCORE")
            .arg(key)
            .arg("-inf")
            .arg(format!("({now_ms}"))
            .ignore()
            .cmd("PEXPIRE")
            .arg(key)
            .arg(2 * SPECTATOR_TTL_MS)
            .ignore()
            .query_async(&mut conn)
            .await;
        if let Err(e) = marked {
            tracing::warn!(key, error = %e, "a spectator not refreshed; the next refresh retries");
        }
    }

    /// How many spectators watch `table_id` now, across replicas.
    pub async fn spectators(&self, table_id: &str) -> Result<u64, ApiError> {
        let mut conn = self.redis();
        Ok(redis::cmd("ZCOUNT")
            .arg(self.spectators_key(table_id))
            .arg(self.clock.now_ms())
            .arg("+inf")
            .query_async(&mut conn)
            .await?)
    }
}

/// A spectator counted in the table list ([`TableStore::count_spectator`]); dropping it
/// stops the count.
#[derive(Debug)]
pub struct SpectatorCounted {
    _stop: tokio::sync::oneshot::Sender<()>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_sizes_default_clamp_and_refuse_negatives() {
        let size = |n| PageRequest::parse("gomoku-free", n, "").map(|r| r.page_size);
        assert_eq!(size(0).unwrap(), DEFAULT_PAGE_SIZE);
        assert_eq!(size(7).unwrap(), 7);
        assert_eq!(size(500).unwrap(), MAX_PAGE_SIZE);
        let error = size(-1).unwrap_err().to_string();
        assert!(error.starts_with("page_size: "), "{error}");
        let error = PageRequest::parse("", 0, "").unwrap_err().to_string();
        assert!(error.starts_with("room_id: "), "{error}");
    }

    #[test]
    fn a_token_round_trips_and_anything_else_is_refused_naming_the_field() {
        let position = Position::new(1_700_000_000_123, "gt-abc.1");
        let token = position.token();
        assert!(token.len() <= MAX_PAGE_TOKEN_BYTES);
        let request = PageRequest::parse("gomoku-free", 0, &token).unwrap();
        assert_eq!(request.after, Some(position));
        let longest = Position::new(9_999_999_999_999, &"x".repeat(64)).token();
        assert!(longest.len() <= MAX_PAGE_TOKEN_BYTES, "{}", longest.len());
        for bad in [
            "x",
            "p1.",
            "p1.1700000000123",
            "p1.17000000001x3.gt-1",
            "p1.1700000000123.gt/1",
            "p1.1700000000123.",
            "p2.1700000000123.gt-1",
            &"p".repeat(129),
        ] {
            let error = PageRequest::parse("gomoku-free", 0, bad)
                .unwrap_err()
                .to_string();
            assert!(error.starts_with("page_token: "), "{bad:?}: {error}");
        }
    }

    #[test]
    fn entries_order_by_opening_time_within_a_room() {
        let a = entry("r", 999, "z").unwrap();
        let b = entry("r", 1_000, "a").unwrap();
        assert!(a < b, "{a} < {b}");
        assert!(b.as_str() < "r0" && a.as_str() > "r/");
        assert!(entry("R", 1, "t").is_err());
        assert!(entry("r", 1, "a/b").is_err());
    }
}
