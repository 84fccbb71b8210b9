//! Friends' tables in Redis.
//!
//! A table is one hash (`v`: its version, `doc`: the table as JSON) under a shard's hash
//! tag (`{mmf:<n>}`, 16 shards by code), changed only by [`FriendsStore::put`]: a
//! compare-and-set on the version that also files the table in its shard's due set (when
//! the sweeper should next look at it) and announces the change on the shard's channel,
//! in one script. A closed table stays as it closed for [`CLOSED_LIFETIME`], so its code
//! answers `table_closed` and is not drawn again meanwhile.
//!
//! Per player, under the player's tag (`{mmp:<id>}`, beside its tickets): the code of the
//! table it sits at (a hint, always checked against the table), the codes its
//! OpenFriendsTable request ids made, and its count of unknown codes tried.

use std::time::Duration;

use gamehub_platform::lua::LuaScript;
use gamehub_platform::{ApiError, RedisConn};

use super::FriendsTable;

/// Shards of the tables (each a hash tag, a due set and a channel).
pub const SHARDS: u32 = 16;

/// How long a closed table is kept (its code refused as closed, not drawn again).
pub const CLOSED_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// How long an open table is kept after its last change if nothing touches it (the
/// sweeper closes an idle one long before).
pub const OPEN_LIFETIME: Duration = Duration::from_secs(2 * 24 * 3600);

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The shard of a code.
fn shard_of(code: &str) -> u32 {
    code.bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)))
        % SHARDS
}

/// Friends' tables and their per-player indexes.
#[derive(Clone)]
pub struct FriendsStore {
    redis: RedisConn,
    prefix: String,
    put: std::sync::Arc<LuaScript>,
}

impl std::fmt::Debug for FriendsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FriendsStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl FriendsStore {
    /// The tables on `redis` under the key prefix `prefix` (`GAMEHUB_REDIS_PREFIX`).
    pub fn new(redis: RedisConn, prefix: &str) -> Self {
        Self {
            redis,
            prefix: prefix.to_owned(),
            put: std::sync::Arc::new(LuaScript::new("friends_put", include_str!("lua/put.lua"))),
        }
    }

    fn shard_base(&self, shard: u32) -> String {
        format!("{}:{{mmf:{shard}}}", self.prefix)
    }

    fn table_key(&self, code: &str) -> String {
        format!("{}:t:{code}", self.shard_base(shard_of(code)))
    }

    fn due_key(&self, shard: u32) -> String {
        format!("{}:due", self.shard_base(shard))
    }

    fn channel(&self, shard: u32) -> String {
        format!("{}:changes", self.shard_base(shard))
    }

    /// Every shard's channel (payload: the changed table's code), for the watchers.
    pub fn channels(&self) -> Vec<String> {
        (0..SHARDS).map(|s| self.channel(s)).collect()
    }

    fn player_base(&self, player_id: &str) -> String {
        format!("{}:{{mmp:{player_id}}}", self.prefix)
    }

    /// The table with this code, if any (closed ones for a day after closing).
    pub async fn load(&self, code: &str) -> Result<Option<FriendsTable>, ApiError> {
        let doc: Option<String> = redis::cmd("HGET")
            .arg(self.table_key(code))
            .arg("doc")
            .query_async(&mut self.redis.clone())
            .await?;
        doc.map(|doc| {
            serde_json::from_str(&doc).map_err(|e| {
                ApiError::internal(anyhow::anyhow!("friends' table {code} does not read: {e}"))
            })
        })
        .transpose()
    }

    /// Stores `table` if it is still at `table.version` (0: the code is free), as
    /// version + 1, due to the sweeper at `due_ms` (None once closed). False when another
    /// writer changed it first (or, for a new table, the code is taken).
    pub async fn put(
        &self,
        table: &mut FriendsTable,
        due_ms: Option<u64>,
    ) -> Result<bool, ApiError> {
        let read = table.version;
        table.version = read + 1;
        let doc = serde_json::to_string(&*table)
            .map_err(|e| ApiError::internal(anyhow::anyhow!("friends' table to JSON: {e}")))?;
        let lifetime = if table.is_closed() {
            CLOSED_LIFETIME
        } else {
            OPEN_LIFETIME
        };
        let shard = shard_of(&table.code);
        let mut invocation = self.put.prepare(&self.redis);
        invocation
            .key(self.table_key(&table.code))
            .key(self.due_key(shard))
            .arg(read)
            .arg(table.version)
            .arg(doc)
            .arg(ms(lifetime))
            .arg(&table.code)
            .arg(due_ms.map(|d| d.to_string()).unwrap_or_default())
            .arg(self.channel(shard));
        let reply = self.put.run(&invocation, &mut self.redis.clone()).await?;
        let stored = self.put.reply(&reply).int(&reply)? == 1;
        if !stored {
            table.version = read;
        }
        Ok(stored)
    }

    /// Open tables now (every shard's due set).
    pub async fn open_count(&self) -> Result<u64, ApiError> {
        let counts: Vec<u64> = self
            .redis
            .query_each((0..SHARDS).map(|s| {
                let mut cmd = redis::cmd("ZCARD");
                cmd.arg(self.due_key(s));
                cmd
            }))
            .await?;
        Ok(counts.into_iter().sum())
    }

    /// Up to `limit` codes of `shard` the sweeper should look at by `now_ms`.
    pub async fn due(
        &self,
        shard: u32,
        now_ms: u64,
        limit: usize,
    ) -> Result<Vec<String>, ApiError> {
        Ok(redis::cmd("ZRANGE")
            .arg(self.due_key(shard))
            .arg("-inf")
            .arg(now_ms)
            .arg("BYSCORE")
            .arg("LIMIT")
            .arg(0)
            .arg(limit)
            .query_async(&mut self.redis.clone())
            .await?)
    }

    /// Files an open table's code to be looked at again at `due_ms`.
    pub async fn reschedule(&self, code: &str, due_ms: u64) -> Result<(), ApiError> {
        let () = redis::cmd("ZADD")
            .arg(self.due_key(shard_of(code)))
            .arg("XX")
            .arg(due_ms)
            .arg(code)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Drops a code from its due set (its table is gone).
    pub async fn forget_due(&self, code: &str) -> Result<(), ApiError> {
        let () = redis::cmd("ZREM")
            .arg(self.due_key(shard_of(code)))
            .arg(code)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// The code of the table `player_id` sits at, as last written (check the table).
    pub async fn player_code(&self, player_id: &str) -> Result<Option<String>, ApiError> {
        Ok(redis::cmd("GET")
            .arg(format!("{}:friends", self.player_base(player_id)))
            .query_async(&mut self.redis.clone())
            .await?)
    }

    /// Notes that `player_id` sits at `code`.
    pub async fn set_player_code(&self, player_id: &str, code: &str) -> Result<(), ApiError> {
        let () = redis::cmd("SET")
            .arg(format!("{}:friends", self.player_base(player_id)))
            .arg(code)
            .arg("PX")
            .arg(ms(OPEN_LIFETIME))
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Notes that `player_id` sits at `code` unless another code is noted: None when
    /// noted now, else the code noted before (which may be this one).
    pub async fn claim_player_code(
        &self,
        player_id: &str,
        code: &str,
    ) -> Result<Option<String>, ApiError> {
        Ok(redis::cmd("SET")
            .arg(format!("{}:friends", self.player_base(player_id)))
            .arg(code)
            .arg("NX")
            .arg("GET")
            .arg("PX")
            .arg(ms(OPEN_LIFETIME))
            .query_async(&mut self.redis.clone())
            .await?)
    }

    /// Forgets that `player_id` sits at `code` (if that is still what is noted).
    pub async fn clear_player_code(&self, player_id: &str, code: &str) -> Result<(), ApiError> {
        let key = format!("{}:friends", self.player_base(player_id));
        let noted: Option<String> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut self.redis.clone())
            .await?;
        if noted.as_deref() == Some(code) {
            let () = redis::cmd("DEL")
                .arg(&key)
                .query_async(&mut self.redis.clone())
                .await?;
        }
        Ok(())
    }

    /// The code an OpenFriendsTable request id of `player_id` made, or notes `code` for
    /// it if it made none: returns the code that stands.
    pub async fn request_code(
        &self,
        player_id: &str,
        request_id: &str,
        code: &str,
    ) -> Result<String, ApiError> {
        let key = format!("{}:frq:{request_id}", self.player_base(player_id));
        let prior: Option<String> = redis::cmd("SET")
            .arg(&key)
            .arg(code)
            .arg("NX")
            .arg("GET")
            .arg("PX")
            .arg(ms(CLOSED_LIFETIME))
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(prior.unwrap_or_else(|| code.to_owned()))
    }

    /// The code an OpenFriendsTable request id made, if any.
    pub async fn requested_code(
        &self,
        player_id: &str,
        request_id: &str,
    ) -> Result<Option<String>, ApiError> {
        Ok(redis::cmd("GET")
            .arg(format!("{}:frq:{request_id}", self.player_base(player_id)))
            .query_async(&mut self.redis.clone())
            .await?)
    }

    /// Unknown codes `player_id` tried in the current window, and the window's ms left.
    pub async fn misses(&self, player_id: &str) -> Result<(u64, u64), ApiError> {
        let key = format!("{}:codemiss", self.player_base(player_id));
        let replies: Vec<Option<i64>> = self
            .redis
            .query_each([
                {
                    let mut c = redis::cmd("GET");
                    c.arg(&key);
                    c
                },
                {
                    let mut c = redis::cmd("PTTL");
                    c.arg(&key);
                    c
                },
            ])
            .await?;
        let read = |i: usize| {
            replies
                .get(i)
                .copied()
                .flatten()
                .and_then(|v| u64::try_from(v).ok())
                .unwrap_or(0)
        };
        let (count, left) = (read(0), read(1));
        Ok((count, left))
    }

    /// Counts an unknown code `player_id` tried; the window starts at its first miss.
    pub async fn count_miss(&self, player_id: &str, window: Duration) -> Result<(), ApiError> {
        let key = format!("{}:codemiss", self.player_base(player_id));
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("INCR")
            .arg(&key)
            .ignore()
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(ms(window))
            .arg("NX")
            .ignore();
        let () = pipe.query_async(&mut self.redis.clone()).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_spread_over_every_shard() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2_000 {
            seen.insert(shard_of(&super::super::code::draw()));
        }
        assert_eq!(seen.len(), SHARDS as usize);
    }
}
