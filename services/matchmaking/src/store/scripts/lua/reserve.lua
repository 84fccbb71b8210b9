-- Takes a player's Enqueue request id and live-ticket slot for a new ticket, or says
-- what holds them (TicketStore::reserve).
--
-- KEYS: 1 player base
-- ARGV: 1 request id, 2 ticket, 3 lifetime of both (ms)
-- Returns {'reserved', ticket} when both are now the ticket's,
--         {'replay', ticket} when the request id made that ticket before,
--         {'live', ticket} when the player holds that live ticket (or one being made).
local rq = KEYS[1] .. ':rq:' .. ARGV[1]
local prior = redis.call('GET', rq)
if prior then return {'replay', prior} end
local live = redis.call('GET', KEYS[1] .. ':live')
if live then return {'live', live} end
redis.call('SET', rq, ARGV[2], 'PX', ARGV[3])
redis.call('SET', KEYS[1] .. ':live', ARGV[2], 'PX', ARGV[3])
return {'reserved', ARGV[2]}
