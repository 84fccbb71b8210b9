-- Gives back a reservation whose ticket was not made (TicketStore::unreserve): the
-- request id and the live slot are freed if they still name the ticket.
--
-- KEYS: 1 player base
-- ARGV: 1 request id, 2 ticket
-- Returns how many of the two were freed (0, 1 or 2).
local rq = KEYS[1] .. ':rq:' .. ARGV[1]
local freed = 0
if redis.call('GET', rq) == ARGV[2] then freed = freed + redis.call('DEL', rq) end
if redis.call('GET', KEYS[1] .. ':live') == ARGV[2] then
  freed = freed + redis.call('DEL', KEYS[1] .. ':live')
end
return freed
