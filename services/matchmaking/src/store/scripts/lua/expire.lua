-- Ends waiting tickets past their expiry (TicketStore::expire).
--
-- KEYS: 1 room base
-- ARGV: 1 now (Unix ms), 2 most tickets to look at, 3 retention after they end (ms),
--       4 channel
-- Returns {ticket, player, ticket, player, …} of the tickets that expired now.
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
