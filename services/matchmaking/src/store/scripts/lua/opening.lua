-- Records, before OpenTable is called, that claims may open a table and who sits where
-- (TicketStore::mark_opening).
--
-- KEYS: 1 room base
-- ARGV: 1 the claims' new deadline (Unix ms), 2 match count,
--       then per match: match id, owner token, players, tickets (both comma-separated,
--       in seat order)
-- Returns {match id, …} of the claims still owned, now in phase 'opening'.
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
