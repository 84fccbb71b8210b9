-- The atomic step of a live table (TableStore::commit; wrapper: tables/scripts.rs).
--
-- KEYS: 1 state (hash: v version, s state, q last event sequence), 2 events (stream),
--       3 request keys (sorted set), 4 deadlines (sorted set), 5 outbox (hash),
--       6 live tables (set), 7 listed tables (sorted set, every score 0: see tables/listing.rs)
-- ARGV: 1 expected version, 2 state, 3 deadline (Unix ms; '' = none), 4 table id,
--       5 stream max length, 6 request key ('' = none), 7 request keys kept,
--       8 outbox field ('' = none), 9 outbox value, 10 close ('1' or '0'),
--       11 key lifetime (seconds), 12 notify channel, 13 event count,
--       then an (audience, payload) pair per event, then (optional) the expected
--       writer token ('' = not checked), the token this step leaves (`k`; '' = none)
--       and the table's entry in the listed tables when the step creates it ('' = not
--       listed; kept in the state hash as `l`, so that the step closing it takes it out)
-- Returns {1, new version, last sequence} when written,
--         {0, current version} when the version (or the expected token) is not the
--         expected one,
--         {2, sequence reached} when the request key was applied before.
local rk = ARGV[6]
if rk ~= '' then
  local prev = redis.call('ZSCORE', KEYS[3], rk)
  if prev then return {2, tonumber(prev)} end
end
local n = tonumber(ARGV[13])
-- The writer token: a caller stepping from a state it cached after its own last step
-- expects the token that step left, so a table that went back to an older version (a
-- Redis failover losing writes) and forward again elsewhere is not taken for the same.
local et = ARGV[14 + 2 * n] or ''
local nt = ARGV[15 + 2 * n] or ''
local lm = ARGV[16 + 2 * n] or ''
local cur = redis.call('HMGET', KEYS[1], 'v', 'q', 'k')
local v = tonumber(cur[1] or '0')
if v ~= tonumber(ARGV[1]) then return {0, v} end
if et ~= '' and cur[3] ~= et then return {0, v} end
local q = tonumber(cur[2] or '0')
for i = 0, n - 1 do
  q = q + 1
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '0-' .. q, 'a', ARGV[14 + 2 * i], 'p', ARGV[15 + 2 * i])
end
v = v + 1
redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[2], 'q', q, 'k', nt)
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[4])
else
  redis.call('ZREM', KEYS[4], ARGV[4])
end
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[5], ARGV[8], ARGV[9])
end
-- A key this step created (the first events, the first request key) gets its lifetime
-- now, not at the next refresh, so an abandoned table leaves no key without one.
local created = n > 0 and q == n
if rk ~= '' then
  -- Scored by the sequence the request reached; the newest ones are kept, trimmed in
  -- batches of 16 so that a step rarely pays for it.
  redis.call('ZADD', KEYS[3], q, rk)
  local held = redis.call('ZCARD', KEYS[3])
  if held == 1 then
    created = true
  elseif held > tonumber(ARGV[7]) + 16 then
    redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -tonumber(ARGV[7]) - 1)
  end
end
-- The live set and the keys' lifetime change when a table opens or closes; while it
-- is open the lifetime is refreshed every 16 steps (it is a day, a safety net).
local close = ARGV[10] == '1'
if close then
  redis.call('SREM', KEYS[6], ARGV[4])
  local listed = redis.call('HGET', KEYS[1], 'l')
  if listed then
    redis.call('ZREM', KEYS[7], listed)
    redis.call('HDEL', KEYS[1], 'l')
  end
elseif v == 1 then
  redis.call('SADD', KEYS[6], ARGV[4])
  if lm ~= '' then
    redis.call('ZADD', KEYS[7], 0, lm)
    redis.call('HSET', KEYS[1], 'l', lm)
  end
end
if close or created or v % 16 == 1 then
  for i = 1, 3 do
    redis.call('EXPIRE', KEYS[i], ARGV[11])
  end
end
if n > 0 then
  redis.call('PUBLISH', ARGV[12], ARGV[4])
end
return {1, v, q}
