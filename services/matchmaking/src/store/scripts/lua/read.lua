-- A ticket with its place in the queue (TicketStore::read).
--
-- KEYS: 1 room base
-- ARGV: 1 ticket id
-- Returns {} when there is no such ticket, else
--   {rank in the queue (-1 when not waiting), tickets waiting, recent average wait (ms,
--    0 until a wait was measured), then the ticket hash as field, value, field, value…}
local h = redis.call('HGETALL', KEYS[1] .. ':t:' .. ARGV[1])
if #h == 0 then return {} end
local rank = redis.call('ZRANK', KEYS[1] .. ':q', ARGV[1])
local card = redis.call('ZCARD', KEYS[1] .. ':q')
local avg = redis.call('HGET', KEYS[1] .. ':stats', 'avg') or '0'
local out = {tostring(rank or -1), tostring(card), avg}
for i = 1, #h do out[#out + 1] = h[i] end
return out
