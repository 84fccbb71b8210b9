-- Claims groups of waiting tickets, each group whole or not at all (TicketStore::claim).
--
-- KEYS: 1 room base
-- ARGV: 1 now (Unix ms), 2 the claims' deadline (Unix ms), 3 channel, 4 group count,
--       then per group: match id, owner token, ticket count, the tickets
-- Returns {match id, …} of the groups claimed.
local base = KEYS[1]
local q, x = base .. ':q', base .. ':x'
local now = tonumber(ARGV[1])
local out = {}
local i = 5
for _ = 1, tonumber(ARGV[4]) do
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
      redis.call('PUBLISH', ARGV[3], ids[j])
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
