-- Cancels a ticket (TicketStore::cancel).
--
-- KEYS: 1 room base
-- ARGV: 1 ticket, 2 now (Unix ms), 3 retention after it ends (ms), 4 channel
-- Returns {'cancelled'} when the ticket was waiting and is cancelled now,
--         {'requested'} when it is matching (marked to end cancelled unless seated),
--         {'ended', state} when it had already ended (cancelled before, seated, …),
--         {'missing'} when there is no such ticket.
local t = KEYS[1] .. ':t:' .. ARGV[1]
local s = redis.call('HGET', t, 's')
if not s then return {'missing'} end
if s == 'waiting' then
  redis.call('HSET', t, 's', 'cancelled', 'end', ARGV[2])
  redis.call('ZREM', KEYS[1] .. ':q', ARGV[1])
  redis.call('ZREM', KEYS[1] .. ':x', ARGV[1])
  redis.call('PEXPIRE', t, ARGV[3])
  redis.call('PUBLISH', ARGV[4], ARGV[1])
  return {'cancelled'}
end
if s == 'matching' then
  redis.call('HSET', t, 'cx', '1')
  redis.call('PUBLISH', ARGV[4], ARGV[1])
  return {'requested'}
end
return {'ended', s}
