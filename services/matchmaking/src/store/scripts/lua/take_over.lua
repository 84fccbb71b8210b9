-- Takes over claims past their deadline (their matcher crashed or stalled), extending
-- each deadline under a fresh owner token (TicketStore::take_over).
--
-- KEYS: 1 room base
-- ARGV: 1 now (Unix ms), 2 the new deadline (Unix ms), 3 most claims, 4 new owner token
-- Returns per claim taken over: match id, phase ('claimed' or 'opening'), tickets,
-- players and tickets in seat order (comma-separated; '' before phase 'opening'),
-- takeovers so far.
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
    out[#out + 1] = h[2]
    out[#out + 1] = h[3] or ''
    out[#out + 1] = h[4] or ''
    out[#out + 1] = n
  end
end
return out
