//! Tickets in Redis. Every change of a room's tickets is one Lua script on keys of that
//! room's hash tag, so it is atomic and runs unchanged on Redis Cluster; the per-player
//! index lives under the player's own tag.
//!
//! | key (prefix `gh`) | type | holds |
//! |---|---|---|
//! | `gh:{mm:ROOM}:q` | sorted set | waiting ticket ids by queue order (`seq`) |
//! | `gh:{mm:ROOM}:x` | sorted set | waiting ticket ids by expiry (Unix ms) |
//! | `gh:{mm:ROOM}:seq` | counter | the last queue order handed out |
//! | `gh:{mm:ROOM}:t:TICKET` | hash | the ticket (fields below) |
//! | `gh:{mm:ROOM}:c` | sorted set | claimed matches by deadline (Unix ms) |
//! | `gh:{mm:ROOM}:m:MATCH` | hash | a claim: `tk` tickets, `ph` phase (`claimed`/`opening`), `ow` owner token, `pl` players and `so` tickets in seat order, `n` takeovers |
//! | `gh:{mm:ROOM}:stats` | hash | `avg`: recent average wait (ms) |
//! | `gh:{mmp:PLAYER}:live` | string | the player's last ticket id (a live one blocks another; freed lazily by the next Enqueue once it ended) |
//! | `gh:{mmp:PLAYER}:rq:REQUEST` | string | the ticket an Enqueue request id made |
//! | `gh:{mmp:PLAYER}:seat` | string | `game|table|ticket` of the player's last seat |
//!
//! Ticket hash fields: `p` player, `s` state, `seq`, `c` created, `e` expires, `q`
//! request id, `rt` rating, `m` match, `tb`/`st`/`g`/`pl` table, seat, game, players
//! when seated, `rf`/`msg` refusal, `end` ended, `cx` cancel requested, `f` failed
//! table openings.
//!
//! Invariant: a ticket is in `q` and `x` exactly while its state is `waiting`. A
//! `matching` ticket belongs to exactly one match in `c`. Every change publishes the
//! ticket id on `gh:mm:tickets` so watchers wake.

use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::ApiError;
use redis::aio::ConnectionManager;

use crate::rooms::Game;
use crate::tickets::{SeatAt, Ticket, TicketId, TicketState};

/// Sizes and lifetimes of stored tickets.
#[derive(Debug, Clone)]
pub struct StoreSettings {
    /// A waiting ticket expires after this long.
    pub ticket_ttl: Duration,
    /// An ended ticket stays readable this long.
    pub retention: Duration,
    /// Tickets waiting in one room at most; Enqueue past it is refused.
    pub max_queue: u64,
    /// A claim not seated or released by then is taken over by a reaper.
    pub claim_timeout: Duration,
    /// How long the player's last seat is remembered for the one-seat check.
    pub seat_ttl: Duration,
    /// Failed table openings after which a ticket ends FAILED instead of going back.
    pub max_open_failures: u32,
}

impl Default for StoreSettings {
    fn default() -> Self {
        Self {
            ticket_ttl: Duration::from_secs(300),
            retention: Duration::from_secs(3600),
            max_queue: 100_000,
            claim_timeout: Duration::from_secs(15),
            seat_ttl: Duration::from_secs(24 * 3600),
            max_open_failures: 3,
        }
    }
}

const READ: &str = r"
-- KEYS: 1 room base; ARGV: 1 ticket id
local h = redis.call('HGETALL', KEYS[1] .. ':t:' .. ARGV[1])
if #h == 0 then return {} end
local rank = redis.call('ZRANK', KEYS[1] .. ':q', ARGV[1])
local card = redis.call('ZCARD', KEYS[1] .. ':q')
local avg = redis.call('HGET', KEYS[1] .. ':stats', 'avg') or '0'
local out = {tostring(rank or -1), tostring(card), avg}
for i = 1, #h do out[#out + 1] = h[i] end
return out
";

const ENQUEUE: &str = r"
-- KEYS: 1 room base
-- ARGV: 1 ticket, 2 player, 3 request id, 4 now, 5 ttl ms, 6 max queue, 7 rating,
--       8 retention ms, 9 channel
local t = KEYS[1] .. ':t:' .. ARGV[1]
if redis.call('EXISTS', t) == 1 then return 'exists' end
local q = KEYS[1] .. ':q'
if redis.call('ZCARD', q) >= tonumber(ARGV[6]) then return 'full' end
local seq = redis.call('INCR', KEYS[1] .. ':seq')
local e = tonumber(ARGV[4]) + tonumber(ARGV[5])
redis.call('HSET', t, 'p', ARGV[2], 's', 'waiting', 'seq', seq, 'c', ARGV[4], 'e', e,
  'q', ARGV[3], 'rt', ARGV[7])
redis.call('PEXPIRE', t, tonumber(ARGV[5]) + tonumber(ARGV[8]))
redis.call('ZADD', q, seq, ARGV[1])
redis.call('ZADD', KEYS[1] .. ':x', e, ARGV[1])
redis.call('PUBLISH', ARGV[9], ARGV[1])
return 'ok'
";

const CANCEL: &str = r"
-- KEYS: 1 room base; ARGV: 1 ticket, 2 now, 3 retention ms, 4 channel
local t = KEYS[1] .. ':t:' .. ARGV[1]
local s = redis.call('HGET', t, 's')
if not s then return 'missing' end
if s == 'waiting' then
  redis.call('HSET', t, 's', 'cancelled', 'end', ARGV[2])
  redis.call('ZREM', KEYS[1] .. ':q', ARGV[1])
  redis.call('ZREM', KEYS[1] .. ':x', ARGV[1])
  redis.call('PEXPIRE', t, ARGV[3])
  redis.call('PUBLISH', ARGV[4], ARGV[1])
  return 'cancelled'
end
if s == 'matching' then
  redis.call('HSET', t, 'cx', '1')
  redis.call('PUBLISH', ARGV[4], ARGV[1])
  return 'requested'
end
return s
";

const PEEK: &str = r"
-- KEYS: 1 room base; ARGV: 1 limit, 2 now
-- returns (ticket, player, created, rating) of unexpired waiting tickets, queue order
local q = KEYS[1] .. ':q'
local ids = redis.call('ZRANGE', q, 0, tonumber(ARGV[1]) - 1)
local now = tonumber(ARGV[2])
local out = {}
for _, id in ipairs(ids) do
  local h = redis.call('HMGET', KEYS[1] .. ':t:' .. id, 'e', 'c', 'rt', 'p')
  if not h[1] then
    redis.call('ZREM', q, id)
    redis.call('ZREM', KEYS[1] .. ':x', id)
  elseif tonumber(h[1]) > now then
    out[#out + 1] = id
    out[#out + 1] = h[4]
    out[#out + 1] = h[2]
    out[#out + 1] = h[3] or '0'
  end
end
return out
";

const CLAIM: &str = r"
-- KEYS: 1 room base
-- ARGV: 1 now, 2 deadline, 3 (not used), 4 channel, 5 group count,
--       then per group: match id, owner token, ticket count, tickets
-- returns the match ids claimed (a group is claimed whole or not at all)
local base = KEYS[1]
local q, x = base .. ':q', base .. ':x'
local now = tonumber(ARGV[1])
local out = {}
local i = 6
for _ = 1, tonumber(ARGV[5]) do
  local mid, owner, k = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local ids = {}
  for j = 1, k do ids[j] = ARGV[i + 2 + j] end
  i = i + 3 + k
  local ok = true
  for j = 1, k do
    if not redis.call('ZSCORE', q, ids[j]) then ok = false break end
    local e = redis.call('HGET', base .. ':t:' .. ids[j], 'e')
    if not e or tonumber(e) <= now then ok = false break end
  end
  if ok then
    for j = 1, k do
      local t = base .. ':t:' .. ids[j]
      redis.call('ZREM', q, ids[j])
      redis.call('ZREM', x, ids[j])
      redis.call('HSET', t, 's', 'matching', 'm', mid)
      redis.call('PUBLISH', ARGV[4], ids[j])
    end
    local m = base .. ':m:' .. mid
    redis.call('HSET', m, 'tk', table.concat(ids, ','), 'ph', 'claimed', 'ow', owner,
      'c', ARGV[1], 'n', 0)
    redis.call('PEXPIRE', m, 86400000)
    redis.call('ZADD', base .. ':c', ARGV[2], mid)
    out[#out + 1] = mid
  end
end
return out
";

const OPENING: &str = r"
-- KEYS: 1 room base
-- ARGV: 1 deadline, 2 match count, then per match: match id, owner, players, tickets
--       (both comma-separated, in seat order)
-- returns the match ids still owned, now in phase 'opening'
local base = KEYS[1]
local out = {}
local i = 3
for _ = 1, tonumber(ARGV[2]) do
  local mid, owner = ARGV[i], ARGV[i + 1]
  local m = base .. ':m:' .. mid
  if redis.call('HGET', m, 'ow') == owner then
    redis.call('HSET', m, 'ph', 'opening', 'pl', ARGV[i + 2], 'so', ARGV[i + 3])
    redis.call('ZADD', base .. ':c', ARGV[1], mid)
    out[#out + 1] = mid
  end
  i = i + 4
end
return out
";

const SEAT: &str = r"
-- KEYS: 1 room base
-- ARGV: 1 now, 2 retention ms, 3 channel, 4 game, 5 waited ms (sum), 6 waited count,
--       7 match count, then per match: match id, owner, table id, ticket count, then
--       (ticket, seat) pairs
-- returns the match ids seated. While a claim is owned its tickets are 'matching' in
-- it (nothing else changes a matching ticket's state), so the owner check suffices.
local base = KEYS[1]
local out = {}
local i = 8
for _ = 1, tonumber(ARGV[7]) do
  local mid, owner, tb, k = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local m = base .. ':m:' .. mid
  local h = redis.call('HMGET', m, 'ow', 'pl')
  if h[1] == owner then
    for j = 1, k do
      local id, seat = ARGV[i + 2 + 2 * j], ARGV[i + 3 + 2 * j]
      local t = base .. ':t:' .. id
      redis.call('HSET', t, 's', 'seated', 'tb', tb, 'st', seat, 'g', ARGV[4],
        'pl', h[2] or '', 'end', ARGV[1])
      redis.call('PEXPIRE', t, ARGV[2])
      redis.call('PUBLISH', ARGV[3], id)
    end
    redis.call('DEL', m)
    redis.call('ZREM', base .. ':c', mid)
    out[#out + 1] = mid
  end
  i = i + 4 + 2 * k
end
local count = tonumber(ARGV[6])
if count > 0 and #out > 0 then
  local stats = base .. ':stats'
  local avg = tonumber(redis.call('HGET', stats, 'avg') or '-1')
  local mean = tonumber(ARGV[5]) / count
  if avg < 0 then avg = mean else avg = avg * 0.8 + mean * 0.2 end
  redis.call('HSET', stats, 'avg', math.floor(avg))
end
return out
";

const TAKE: &str = r"
-- KEYS: 1 room base
-- ARGV: 1 now, 2 deadline, 3 channel, 4 seats per table, 5 table count,
--       then per table: match id, owner token
-- Claims the oldest unexpired waiting tickets, `seats` per table in queue order (the
-- unrated rooms' peek and claim in one step). Returns per table claimed: match id,
-- then (ticket, player, created) for each seat.
local base = KEYS[1]
local q, x = base .. ':q', base .. ':x'
local now = tonumber(ARGV[1])
local k = tonumber(ARGV[4])
local want = tonumber(ARGV[5]) * k
local ids = redis.call('ZRANGE', q, 0, want * 2 - 1)
local picked = {}
for _, id in ipairs(ids) do
  if #picked >= want then break end
  local h = redis.call('HMGET', base .. ':t:' .. id, 'e', 'p', 'c')
  if not h[1] then
    redis.call('ZREM', q, id)
    redis.call('ZREM', x, id)
  elseif tonumber(h[1]) > now then
    picked[#picked + 1] = {id, h[2], h[3]}
  end
end
local out = {}
local taken = {}
for t = 0, math.floor(#picked / k) - 1 do
  local mid, owner = ARGV[6 + 2 * t], ARGV[7 + 2 * t]
  local members = {}
  out[#out + 1] = mid
  for j = 1, k do
    local p = picked[t * k + j]
    redis.call('HSET', base .. ':t:' .. p[1], 's', 'matching', 'm', mid)
    redis.call('PUBLISH', ARGV[3], p[1])
    members[j] = p[1]
    taken[#taken + 1] = p[1]
    out[#out + 1] = p[1]
    out[#out + 1] = p[2]
    out[#out + 1] = p[3]
  end
  local m = base .. ':m:' .. mid
  redis.call('HSET', m, 'tk', table.concat(members, ','), 'ph', 'claimed', 'ow', owner,
    'c', ARGV[1], 'n', 0)
  redis.call('PEXPIRE', m, 86400000)
  redis.call('ZADD', base .. ':c', ARGV[2], mid)
end
for from = 1, #taken, 500 do
  local chunk = {}
  for j = from, math.min(from + 499, #taken) do chunk[#chunk + 1] = taken[j] end
  redis.call('ZREM', q, unpack(chunk))
  redis.call('ZREM', x, unpack(chunk))
end
return out
";

const RELEASE: &str = r"
-- KEYS: 1 room base
-- ARGV: 1 now, 2 retention ms, 3 channel, 4 max open failures, 5 match count,
--       then per match: match id, owner, ticket count, then per ticket:
--       ticket, action (requeue | retry | refuse | fail), refusal code, message
-- 'retry' counts a failed table opening and ends the ticket FAILED at the limit.
-- returns (ticket, player) pairs that ended
local base = KEYS[1]
local now = tonumber(ARGV[1])
local out = {}
local function finish(t, id, state, rf, msg, player)
  redis.call('HSET', t, 's', state, 'end', ARGV[1], 'rf', rf, 'msg', msg)
  redis.call('HDEL', t, 'm')
  redis.call('PEXPIRE', t, ARGV[2])
  redis.call('PUBLISH', ARGV[3], id)
  out[#out + 1] = id
  out[#out + 1] = player
end
local i = 6
for _ = 1, tonumber(ARGV[5]) do
  local mid, owner, k = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local m = base .. ':m:' .. mid
  if redis.call('HGET', m, 'ow') == owner then
    for j = 0, k - 1 do
      local p = i + 3 + 4 * j
      local id, action, rf, msg = ARGV[p], ARGV[p + 1], ARGV[p + 2], ARGV[p + 3]
      local t = base .. ':t:' .. id
      local th = redis.call('HMGET', t, 's', 'm', 'p', 'cx', 'e', 'seq')
      if th[1] == 'matching' and th[2] == mid then
        if action == 'retry' then
          local f = redis.call('HINCRBY', t, 'f', 1)
          if f >= tonumber(ARGV[4]) then action = 'fail' else action = 'requeue' end
        end
        if action == 'refuse' then
          finish(t, id, 'refused', rf, msg, th[3])
        elseif action == 'fail' then
          finish(t, id, 'failed', '0', msg, th[3])
        elseif th[4] == '1' then
          finish(t, id, 'cancelled', '0', '', th[3])
        elseif tonumber(th[5]) <= now then
          finish(t, id, 'expired', '0', '', th[3])
        else
          redis.call('HSET', t, 's', 'waiting')
          redis.call('HDEL', t, 'm')
          redis.call('ZADD', base .. ':q', th[6], id)
          redis.call('ZADD', base .. ':x', th[5], id)
          redis.call('PUBLISH', ARGV[3], id)
        end
      end
    end
    redis.call('DEL', m)
    redis.call('ZREM', base .. ':c', mid)
  end
  i = i + 3 + 4 * k
end
return out
";

const TAKE_OVER: &str = r"
-- KEYS: 1 room base; ARGV: 1 now, 2 new deadline, 3 limit, 4 owner token
-- returns per match: id, phase, tickets, players, seat-order tickets, takeovers
local base = KEYS[1]
local c = base .. ':c'
local ids = redis.call('ZRANGEBYSCORE', c, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, mid in ipairs(ids) do
  local m = base .. ':m:' .. mid
  local h = redis.call('HMGET', m, 'ph', 'tk', 'pl', 'so')
  if not h[1] then
    redis.call('ZREM', c, mid)
  else
    local n = redis.call('HINCRBY', m, 'n', 1)
    redis.call('HSET', m, 'ow', ARGV[4])
    redis.call('ZADD', c, ARGV[2], mid)
    out[#out + 1] = mid
    out[#out + 1] = h[1]
    out[#out + 1] = h[2] or ''
    out[#out + 1] = h[3] or ''
    out[#out + 1] = h[4] or ''
    out[#out + 1] = tostring(n)
  end
end
return out
";

const EXPIRE: &str = r"
-- KEYS: 1 room base; ARGV: 1 now, 2 limit, 3 retention ms, 4 channel
-- returns (ticket, player) pairs that expired
local base = KEYS[1]
local x = base .. ':x'
local ids = redis.call('ZRANGEBYSCORE', x, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local t = base .. ':t:' .. id
  local h = redis.call('HMGET', t, 's', 'p')
  redis.call('ZREM', x, id)
  if h[1] == 'waiting' then
    redis.call('HSET', t, 's', 'expired', 'end', ARGV[1])
    redis.call('ZREM', base .. ':q', id)
    redis.call('PEXPIRE', t, ARGV[3])
    redis.call('PUBLISH', ARGV[4], id)
    out[#out + 1] = id
    out[#out + 1] = h[2]
  end
end
return out
";

const RESERVE: &str = r"
-- KEYS: 1 player base; ARGV: 1 request id, 2 ticket, 3 ttl ms
local rq = KEYS[1] .. ':rq:' .. ARGV[1]
local prior = redis.call('GET', rq)
if prior then return {'replay', prior} end
local live = redis.call('GET', KEYS[1] .. ':live')
if live then return {'live', live} end
redis.call('SET', rq, ARGV[2], 'PX', ARGV[3])
redis.call('SET', KEYS[1] .. ':live', ARGV[2], 'PX', ARGV[3])
return {'reserved', ARGV[2]}
";

const UNRESERVE: &str = r"
-- KEYS: 1 player base; ARGV: 1 request id, 2 ticket
local rq = KEYS[1] .. ':rq:' .. ARGV[1]
if redis.call('GET', rq) == ARGV[2] then redis.call('DEL', rq) end
if redis.call('GET', KEYS[1] .. ':live') == ARGV[2] then redis.call('DEL', KEYS[1] .. ':live') end
return 1
";

const DEL_IF: &str = r"
-- KEYS: 1 key; ARGV: 1 expected value
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

struct Scripts {
    read: redis::Script,
    enqueue: redis::Script,
    cancel: redis::Script,
    peek: redis::Script,
    claim: redis::Script,
    opening: redis::Script,
    seat: redis::Script,
    take: redis::Script,
    release: redis::Script,
    take_over: redis::Script,
    expire: redis::Script,
    reserve: redis::Script,
    unreserve: redis::Script,
    del_if: redis::Script,
}

/// What [`TicketStore::reserve`] found under the player's tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reservation {
    /// The request id and the live slot are now the new ticket's.
    Reserved,
    /// The request id made this ticket before.
    Replay(String),
    /// The player already has this live ticket (or one being made).
    Live(String),
}

/// What [`TicketStore::create`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// The ticket is in the queue.
    Queued,
    /// It existed already (a retry).
    Existed,
    /// The room's queue is full.
    QueueFull,
}

/// What [`TicketStore::cancel`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancelled {
    /// The ticket was waiting and is now cancelled.
    Now,
    /// The ticket is matching; it is marked to end cancelled unless seated.
    Requested,
    /// The ticket had already ended in this state (possibly cancelled).
    AlreadyEnded(TicketState),
    /// No such ticket.
    Missing,
}

/// A waiting ticket as the matcher sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peeked {
    /// The ticket.
    pub ticket_id: String,
    /// The player.
    pub player_id: String,
    /// When it was made, Unix ms.
    pub created_ms: u64,
    /// The rating when it enqueued.
    pub rating: i64,
}

/// Tickets to claim together for one table.
#[derive(Debug, Clone)]
pub struct ClaimGroup {
    /// The new match's id (the table's idempotency key at the game service).
    pub match_id: String,
    /// A fresh token: only its holder may advance the claim.
    pub owner: String,
    /// The tickets.
    pub tickets: Vec<String>,
}

/// A claim about to open its table: who sits where.
#[derive(Debug, Clone)]
pub struct Opening {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// Players in seat order.
    pub players: Vec<String>,
    /// Their tickets, in the same order.
    pub tickets: Vec<String>,
}

/// A match whose table opened.
#[derive(Debug, Clone)]
pub struct Seating {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// The table.
    pub table_id: String,
    /// (ticket, seat) for every ticket of the match.
    pub seats: Vec<(String, u32)>,
    /// The players, in the order of `seats`.
    pub players: Vec<String>,
}

/// Tickets claimed together by [`TicketStore::take`].
#[derive(Debug, Clone)]
pub struct Taken {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// (ticket, player, created Unix ms) in queue order.
    pub members: Vec<(String, String, u64)>,
}

/// What becomes of one ticket of a released claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Back to the queue at its place (or cancelled/expired if due).
    Requeue,
    /// The table could not be opened: back to the queue, or FAILED after too many tries.
    Retry(String),
    /// The ledger refused the player: ends REFUSED.
    Refuse {
        /// `gamehub.ledger.v1.Refusal` code.
        refusal: i32,
        /// The ledger's sentence.
        message: String,
    },
    /// Ends FAILED with this message.
    Fail(String),
}

/// A claim to give up, with what becomes of each of its tickets.
#[derive(Debug, Clone)]
pub struct Release {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// (ticket, outcome) for every ticket of the match.
    pub tickets: Vec<(String, Outcome)>,
}

/// A claim a reaper took over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakenOver {
    /// The match.
    pub match_id: String,
    /// Whether OpenTable may have been called (phase `opening`).
    pub opening: bool,
    /// The tickets.
    pub tickets: Vec<String>,
    /// Players in seat order (phase `opening` only).
    pub players: Vec<String>,
    /// Tickets in seat order (phase `opening` only).
    pub seat_order: Vec<String>,
    /// How many times a reaper took it over, this time included.
    pub takeovers: u32,
    /// The new owner token.
    pub owner: String,
}

/// A player's last seat, for the one-seat-per-player check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatRecord {
    /// The game.
    pub game: Game,
    /// The table.
    pub table_id: String,
    /// The ticket that seated the player.
    pub ticket_id: String,
    raw: String,
}

impl SeatRecord {
    fn encode(game: Game, table_id: &str, ticket_id: &str) -> String {
        format!("{}|{table_id}|{ticket_id}", game.as_str())
    }

    fn decode(raw: String) -> Option<Self> {
        let mut parts = raw.splitn(3, '|');
        let game = Game::parse(parts.next()?)?;
        let table_id = parts.next()?.to_owned();
        let ticket_id = parts.next()?.to_owned();
        Some(Self {
            game,
            table_id,
            ticket_id,
            raw,
        })
    }
}

/// The tickets of every room, in Redis.
#[derive(Clone)]
pub struct TicketStore {
    redis: ConnectionManager,
    prefix: Arc<str>,
    settings: StoreSettings,
    scripts: Arc<Scripts>,
}

impl std::fmt::Debug for TicketStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TicketStore")
            .field("prefix", &self.prefix)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn num<T: std::str::FromStr + Default>(text: Option<&String>) -> T {
    text.and_then(|t| t.parse().ok()).unwrap_or_default()
}

fn pairs(flat: Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(flat.len() / 2);
    let mut it = flat.into_iter();
    while let (Some(a), Some(b)) = (it.next(), it.next()) {
        out.push((a, b));
    }
    out
}

fn split(list: &str) -> Vec<String> {
    if list.is_empty() {
        Vec::new()
    } else {
        list.split(',').map(str::to_owned).collect()
    }
}

impl TicketStore {
    /// A store on `redis` under the key prefix `prefix` (`GAMEHUB_REDIS_PREFIX`).
    pub fn new(redis: ConnectionManager, prefix: &str, settings: StoreSettings) -> Self {
        Self {
            redis,
            prefix: Arc::from(prefix),
            settings,
            scripts: Arc::new(Scripts {
                read: redis::Script::new(READ),
                enqueue: redis::Script::new(ENQUEUE),
                cancel: redis::Script::new(CANCEL),
                peek: redis::Script::new(PEEK),
                claim: redis::Script::new(CLAIM),
                opening: redis::Script::new(OPENING),
                seat: redis::Script::new(SEAT),
                take: redis::Script::new(TAKE),
                release: redis::Script::new(RELEASE),
                take_over: redis::Script::new(TAKE_OVER),
                expire: redis::Script::new(EXPIRE),
                reserve: redis::Script::new(RESERVE),
                unreserve: redis::Script::new(UNRESERVE),
                del_if: redis::Script::new(DEL_IF),
            }),
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> &StoreSettings {
        &self.settings
    }

    /// The Redis connection (shared, multiplexed).
    pub fn redis(&self) -> ConnectionManager {
        self.redis.clone()
    }

    /// The pub/sub channel every ticket change is announced on (payload: ticket id).
    pub fn channel(&self) -> String {
        format!("{}:mm:tickets", self.prefix)
    }

    fn room_base(&self, room_id: &str) -> String {
        format!("{}:{{mm:{room_id}}}", self.prefix)
    }

    fn player_base(&self, player_id: &str) -> String {
        format!("{}:{{mmp:{player_id}}}", self.prefix)
    }

    fn ticket_lifetime_ms(&self) -> u64 {
        ms(self.settings.ticket_ttl) + ms(self.settings.retention)
    }

    /// Reads a ticket with its place in the queue; None when unknown (or long ended).
    pub async fn read(&self, id: &TicketId) -> Result<Option<Ticket>, ApiError> {
        let mut conn = self.redis.clone();
        let flat: Vec<String> = self
            .scripts
            .read
            .key(self.room_base(id.room_id()))
            .arg(id.as_str())
            .invoke_async(&mut conn)
            .await?;
        if flat.len() < 3 {
            return Ok(None);
        }
        let rank: i64 = flat[0].parse().unwrap_or(-1);
        let waiting: u64 = num(flat.get(1));
        let average_wait_ms: u64 = num(flat.get(2));
        let fields: std::collections::HashMap<String, String> =
            pairs(flat[3..].to_vec()).into_iter().collect();
        let Some(state) = fields.get("s").and_then(|s| TicketState::parse(s)) else {
            return Err(ApiError::internal(anyhow::anyhow!(
                "ticket {id} has no valid state"
            )));
        };
        let seat = match (state, fields.get("tb")) {
            (TicketState::Seated, Some(table_id)) => Some(SeatAt {
                game: fields
                    .get("g")
                    .and_then(|g| Game::parse(g))
                    .unwrap_or(Game::Gomoku),
                table_id: table_id.clone(),
                seat: num(fields.get("st")),
                match_id: fields.get("m").cloned().unwrap_or_default(),
                players: split(fields.get("pl").map_or("", String::as_str)),
            }),
            _ => None,
        };
        Ok(Some(Ticket {
            id: id.clone(),
            player_id: fields.get("p").cloned().unwrap_or_default(),
            state,
            seq: num(fields.get("seq")),
            created_ms: num(fields.get("c")),
            expires_ms: num(fields.get("e")),
            ended_ms: num(fields.get("end")),
            request_id: fields.get("q").cloned().unwrap_or_default(),
            rating: num(fields.get("rt")),
            seat,
            refusal: num(fields.get("rf")),
            message: fields.get("msg").cloned().unwrap_or_default(),
            cancel_requested: fields.get("cx").is_some_and(|v| v == "1"),
            position: u64::try_from(rank + 1).unwrap_or(0),
            waiting,
            average_wait_ms,
        }))
    }

    /// Takes the player's request id and live-ticket slot for `ticket`, or says what
    /// holds them.
    pub async fn reserve(
        &self,
        player_id: &str,
        request_id: &str,
        ticket: &TicketId,
    ) -> Result<Reservation, ApiError> {
        let mut conn = self.redis.clone();
        let (kind, value): (String, String) = self
            .scripts
            .reserve
            .key(self.player_base(player_id))
            .arg(request_id)
            .arg(ticket.as_str())
            .arg(self.ticket_lifetime_ms())
            .invoke_async(&mut conn)
            .await?;
        Ok(match kind.as_str() {
            "replay" => Reservation::Replay(value),
            "live" => Reservation::Live(value),
            _ => Reservation::Reserved,
        })
    }

    /// The ticket an earlier Enqueue with this request id made (or reserved), if any.
    pub async fn request_ticket(
        &self,
        player_id: &str,
        request_id: &str,
    ) -> Result<Option<String>, ApiError> {
        let mut conn = self.redis.clone();
        Ok(redis::cmd("GET")
            .arg(format!("{}:rq:{request_id}", self.player_base(player_id)))
            .query_async(&mut conn)
            .await?)
    }

    /// Gives back a reservation whose ticket was not made (queue full, ledger down).
    pub async fn unreserve(
        &self,
        player_id: &str,
        request_id: &str,
        ticket: &TicketId,
    ) -> Result<(), ApiError> {
        let mut conn = self.redis.clone();
        let _: i64 = self
            .scripts
            .unreserve
            .key(self.player_base(player_id))
            .arg(request_id)
            .arg(ticket.as_str())
            .invoke_async(&mut conn)
            .await?;
        Ok(())
    }

    /// Frees the player's live slot if `ticket` still holds it (the ticket ended, or a
    /// crashed Enqueue left the slot pointing at nothing).
    pub async fn clear_live(&self, player_id: &str, ticket: &str) -> Result<(), ApiError> {
        let mut conn = self.redis.clone();
        let _: i64 = self
            .scripts
            .del_if
            .key(format!("{}:live", self.player_base(player_id)))
            .arg(ticket)
            .invoke_async(&mut conn)
            .await?;
        Ok(())
    }

    /// Puts a new ticket in its room's queue (idempotent on the ticket id).
    pub async fn create(
        &self,
        id: &TicketId,
        player_id: &str,
        request_id: &str,
        rating: i64,
        now_ms: u64,
    ) -> Result<Created, ApiError> {
        let mut conn = self.redis.clone();
        let result: String = self
            .scripts
            .enqueue
            .key(self.room_base(id.room_id()))
            .arg(id.as_str())
            .arg(player_id)
            .arg(request_id)
            .arg(now_ms)
            .arg(ms(self.settings.ticket_ttl))
            .arg(self.settings.max_queue)
            .arg(rating)
            .arg(ms(self.settings.retention))
            .arg(self.channel())
            .invoke_async(&mut conn)
            .await?;
        Ok(match result.as_str() {
            "exists" => Created::Existed,
            "full" => Created::QueueFull,
            _ => Created::Queued,
        })
    }

    /// Cancels a ticket (see [`Cancelled`]).
    pub async fn cancel(&self, id: &TicketId, now_ms: u64) -> Result<Cancelled, ApiError> {
        let mut conn = self.redis.clone();
        let result: String = self
            .scripts
            .cancel
            .key(self.room_base(id.room_id()))
            .arg(id.as_str())
            .arg(now_ms)
            .arg(ms(self.settings.retention))
            .arg(self.channel())
            .invoke_async(&mut conn)
            .await?;
        Ok(match result.as_str() {
            "cancelled" => Cancelled::Now,
            "requested" => Cancelled::Requested,
            "missing" => Cancelled::Missing,
            other => TicketState::parse(other).map_or(Cancelled::Missing, Cancelled::AlreadyEnded),
        })
    }

    /// The player's last seat, if remembered.
    pub async fn seat_record(&self, player_id: &str) -> Result<Option<SeatRecord>, ApiError> {
        let mut conn = self.redis.clone();
        let raw: Option<String> = redis::cmd("GET")
            .arg(format!("{}:seat", self.player_base(player_id)))
            .query_async(&mut conn)
            .await?;
        Ok(raw.and_then(SeatRecord::decode))
    }

    /// Forgets the player's seat (the table ended or the player left it).
    pub async fn clear_seat_record(
        &self,
        player_id: &str,
        record: &SeatRecord,
    ) -> Result<(), ApiError> {
        let mut conn = self.redis.clone();
        let _: i64 = self
            .scripts
            .del_if
            .key(format!("{}:seat", self.player_base(player_id)))
            .arg(&record.raw)
            .invoke_async(&mut conn)
            .await?;
        Ok(())
    }

    /// Tickets waiting in each room, in the given order (one round trip).
    pub async fn waiting_counts(&self, room_ids: &[&str]) -> Result<Vec<u64>, ApiError> {
        let mut conn = self.redis.clone();
        let mut pipe = redis::pipe();
        for room_id in room_ids {
            pipe.cmd("ZCARD")
                .arg(format!("{}:q", self.room_base(room_id)));
        }
        Ok(pipe.query_async(&mut conn).await?)
    }

    /// Tickets waiting and claims in progress in a room (one round trip).
    pub async fn pending(&self, room_id: &str) -> Result<(u64, u64), ApiError> {
        let mut conn = self.redis.clone();
        let base = self.room_base(room_id);
        Ok(redis::pipe()
            .cmd("ZCARD")
            .arg(format!("{base}:q"))
            .cmd("ZCARD")
            .arg(format!("{base}:c"))
            .query_async(&mut conn)
            .await?)
    }

    /// Up to `limit` unexpired waiting tickets of a room, in queue order.
    pub async fn peek(
        &self,
        room_id: &str,
        limit: usize,
        now_ms: u64,
    ) -> Result<Vec<Peeked>, ApiError> {
        let mut conn = self.redis.clone();
        let flat: Vec<String> = self
            .scripts
            .peek
            .key(self.room_base(room_id))
            .arg(limit)
            .arg(now_ms)
            .invoke_async(&mut conn)
            .await?;
        Ok(flat
            .chunks_exact(4)
            .map(|c| Peeked {
                ticket_id: c[0].clone(),
                player_id: c[1].clone(),
                created_ms: c[2].parse().unwrap_or(0),
                rating: c[3].parse().unwrap_or(0),
            })
            .collect())
    }

    /// Claims groups of waiting tickets atomically, each whole or not at all; returns
    /// the match ids claimed. A ticket is claimed by at most one match, whatever the
    /// number of matchers racing.
    pub async fn claim(
        &self,
        room_id: &str,
        groups: &[ClaimGroup],
        now_ms: u64,
    ) -> Result<Vec<String>, ApiError> {
        if groups.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.redis.clone();
        let mut invocation = self.scripts.claim.key(self.room_base(room_id));
        invocation
            .arg(now_ms)
            .arg(now_ms + ms(self.settings.claim_timeout))
            .arg(self.ticket_lifetime_ms())
            .arg(self.channel())
            .arg(groups.len());
        for group in groups {
            invocation
                .arg(&group.match_id)
                .arg(&group.owner)
                .arg(group.tickets.len());
            for ticket in &group.tickets {
                invocation.arg(ticket);
            }
        }
        Ok(invocation.invoke_async(&mut conn).await?)
    }

    /// Records, before OpenTable is called, that these claims may open a table and who
    /// sits where; returns the match ids still owned. From here a reaper re-tries
    /// OpenTable with the same id instead of returning the tickets to the queue.
    pub async fn mark_opening(
        &self,
        room_id: &str,
        openings: &[Opening],
        now_ms: u64,
    ) -> Result<Vec<String>, ApiError> {
        if openings.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.redis.clone();
        let mut invocation = self.scripts.opening.key(self.room_base(room_id));
        invocation
            .arg(now_ms + ms(self.settings.claim_timeout))
            .arg(openings.len());
        for opening in openings {
            invocation
                .arg(&opening.match_id)
                .arg(&opening.owner)
                .arg(opening.players.join(","))
                .arg(opening.tickets.join(","));
        }
        Ok(invocation.invoke_async(&mut conn).await?)
    }

    /// Seats the tickets of opened tables; returns the match ids seated (claims this
    /// replica still owned). `waited` is the enqueue-to-seat time summed over
    /// `waited.1` tickets, for the room's average-wait estimate.
    pub async fn seat(
        &self,
        room_id: &str,
        game: Game,
        seatings: &[Seating],
        waited: (u64, u64),
        now_ms: u64,
    ) -> Result<Vec<String>, ApiError> {
        if seatings.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.redis.clone();
        let mut invocation = self.scripts.seat.key(self.room_base(room_id));
        invocation
            .arg(now_ms)
            .arg(ms(self.settings.retention))
            .arg(self.channel())
            .arg(game.as_str())
            .arg(waited.0)
            .arg(waited.1)
            .arg(seatings.len());
        for seating in seatings {
            invocation
                .arg(&seating.match_id)
                .arg(&seating.owner)
                .arg(&seating.table_id)
                .arg(seating.seats.len());
            for (ticket, seat) in &seating.seats {
                invocation.arg(ticket).arg(*seat);
            }
        }
        Ok(invocation.invoke_async(&mut conn).await?)
    }

    /// Claims up to `tables.len()` tables of `seats` tickets each from the head of an
    /// unrated room's queue, in queue order, in one step. `tables` gives each table's
    /// fresh match id and owner token.
    pub async fn take(
        &self,
        room_id: &str,
        seats: usize,
        tables: &[(String, String)],
        now_ms: u64,
    ) -> Result<Vec<Taken>, ApiError> {
        if tables.is_empty() || seats == 0 {
            return Ok(Vec::new());
        }
        let mut conn = self.redis.clone();
        let mut invocation = self.scripts.take.key(self.room_base(room_id));
        invocation
            .arg(now_ms)
            .arg(now_ms + ms(self.settings.claim_timeout))
            .arg(self.channel())
            .arg(seats)
            .arg(tables.len());
        for (match_id, owner) in tables {
            invocation.arg(match_id).arg(owner);
        }
        let flat: Vec<String> = invocation.invoke_async(&mut conn).await?;
        let owners: std::collections::HashMap<&str, &str> = tables
            .iter()
            .map(|(m, o)| (m.as_str(), o.as_str()))
            .collect();
        Ok(flat
            .chunks_exact(1 + 3 * seats)
            .map(|c| Taken {
                match_id: c[0].clone(),
                owner: owners
                    .get(c[0].as_str())
                    .copied()
                    .unwrap_or_default()
                    .to_owned(),
                members: c[1..]
                    .chunks_exact(3)
                    .map(|m| (m[0].clone(), m[1].clone(), m[2].parse().unwrap_or(0)))
                    .collect(),
            })
            .collect())
    }

    /// Gives up claims: each ticket goes back to the queue at its place or ends, as
    /// its [`Outcome`] says. Returns (ticket, player) of the tickets that ended.
    pub async fn release(
        &self,
        room_id: &str,
        releases: &[Release],
        now_ms: u64,
    ) -> Result<Vec<(String, String)>, ApiError> {
        if releases.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.redis.clone();
        let mut invocation = self.scripts.release.key(self.room_base(room_id));
        invocation
            .arg(now_ms)
            .arg(ms(self.settings.retention))
            .arg(self.channel())
            .arg(self.settings.max_open_failures)
            .arg(releases.len());
        for release in releases {
            invocation
                .arg(&release.match_id)
                .arg(&release.owner)
                .arg(release.tickets.len());
            for (ticket, outcome) in &release.tickets {
                let (action, refusal, message) = match outcome {
                    Outcome::Requeue => ("requeue", 0, ""),
                    Outcome::Retry(message) => ("retry", 0, message.as_str()),
                    Outcome::Refuse { refusal, message } => ("refuse", *refusal, message.as_str()),
                    Outcome::Fail(message) => ("fail", 0, message.as_str()),
                };
                invocation.arg(ticket).arg(action).arg(refusal).arg(message);
            }
        }
        let flat: Vec<String> = invocation.invoke_async(&mut conn).await?;
        Ok(pairs(flat))
    }

    /// Takes over up to `limit` claims past their deadline (their matcher crashed or
    /// stalled), extending each deadline under a fresh owner token.
    pub async fn take_over(
        &self,
        room_id: &str,
        now_ms: u64,
        limit: usize,
    ) -> Result<Vec<TakenOver>, ApiError> {
        let mut conn = self.redis.clone();
        let owner = uuid::Uuid::new_v4().simple().to_string();
        let flat: Vec<String> = self
            .scripts
            .take_over
            .key(self.room_base(room_id))
            .arg(now_ms)
            .arg(now_ms + ms(self.settings.claim_timeout))
            .arg(limit)
            .arg(&owner)
            .invoke_async(&mut conn)
            .await?;
        Ok(flat
            .chunks_exact(6)
            .map(|c| TakenOver {
                match_id: c[0].clone(),
                opening: c[1] == "opening",
                tickets: split(&c[2]),
                players: split(&c[3]),
                seat_order: split(&c[4]),
                takeovers: c[5].parse().unwrap_or(u32::MAX),
                owner: owner.clone(),
            })
            .collect())
    }

    /// Ends up to `limit` waiting tickets past their expiry; returns (ticket, player).
    pub async fn expire(
        &self,
        room_id: &str,
        now_ms: u64,
        limit: usize,
    ) -> Result<Vec<(String, String)>, ApiError> {
        let mut conn = self.redis.clone();
        let flat: Vec<String> = self
            .scripts
            .expire
            .key(self.room_base(room_id))
            .arg(now_ms)
            .arg(limit)
            .arg(ms(self.settings.retention))
            .arg(self.channel())
            .invoke_async(&mut conn)
            .await?;
        Ok(pairs(flat))
    }

    /// (created, ended) Unix ms of each ticket, 0 when unknown or not ended (one round
    /// trip; for benchmarks and tests).
    pub async fn ticket_times(&self, ids: &[TicketId]) -> Result<Vec<(u64, u64)>, ApiError> {
        let mut conn = self.redis.clone();
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.cmd("HMGET")
                .arg(format!(
                    "{}:t:{}",
                    self.room_base(id.room_id()),
                    id.as_str()
                ))
                .arg("c")
                .arg("end");
        }
        let rows: Vec<(Option<u64>, Option<u64>)> = pipe.query_async(&mut conn).await?;
        Ok(rows
            .into_iter()
            .map(|(c, e)| (c.unwrap_or(0), e.unwrap_or(0)))
            .collect())
    }

    /// Remembers where the players of seated tickets sit (`(ticket, player)` pairs and
    /// each ticket's table), for the one-seat-per-player check: one pipeline of plain
    /// writes, each under the player's own tag. Live slots are not touched: a slot
    /// pointing at an ended ticket is freed by the player's next Enqueue.
    pub async fn remember_seats(
        &self,
        game: Game,
        seated: &[(String, String)],
        tables: &std::collections::HashMap<String, String>,
    ) -> Result<(), ApiError> {
        if seated.is_empty() {
            return Ok(());
        }
        let mut conn = self.redis.clone();
        let mut pipe = redis::pipe();
        for (ticket, player) in seated {
            if let Some(table) = tables.get(ticket) {
                pipe.cmd("SET")
                    .arg(format!("{}:seat", self.player_base(player)))
                    .arg(SeatRecord::encode(game, table, ticket))
                    .arg("PX")
                    .arg(ms(self.settings.seat_ttl))
                    .ignore();
            }
        }
        pipe.query_async::<()>(&mut conn).await?;
        Ok(())
    }
}
