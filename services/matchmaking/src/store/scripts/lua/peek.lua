-- The unexpired waiting tickets at the head of a room's queue (TicketStore::peek).
-- Entries whose ticket hash is gone are dropped from the queue on the way.
--
-- KEYS: 1 room base
-- ARGV: 1 most tickets to look at, 2 now (Unix ms)
-- Returns {ticket, player, created (Unix ms), rating, …} in queue order.
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
    out[#out + 1] = h[3]
  end
end
return out
