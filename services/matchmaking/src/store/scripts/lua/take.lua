-- Claims the oldest unexpired waiting tickets, `seats` per table in queue order: an
-- unrated room's peek and claim in one step (TicketStore::take).
--
-- KEYS: 1 room base
-- ARGV: 1 now (Unix ms), 2 the claims' deadline (Unix ms), 3 channel, 4 seats per table,
--       5 table count, then per table: match id, owner token
-- Returns, per table claimed: match id, then (ticket, player, created Unix ms) for
-- each seat.
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
