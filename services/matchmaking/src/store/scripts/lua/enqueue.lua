-- Puts a new ticket in its room's queue, idempotent on the ticket id (TicketStore::create).
--
-- KEYS: 1 room base
-- ARGV: 1 ticket, 2 player, 3 request id, 4 now (Unix ms), 5 ticket lifetime (ms),
--       6 most tickets waiting, 7 rating, 8 retention after it ends (ms), 9 channel
-- Returns 'ok' (queued), 'exists' (made before: a retry) or 'full' (the queue is full).
local t = KEYS[1] .. ':t:' .. ARGV[1]
if redis.call('EXISTS', t) == 1 then return 'exists' end
local q = KEYS[1] .. ':q'
if redis.call('ZCARD', q) >= tonumber(ARGV[6]) then return 'full' end
local seq = redis.call('INCR', KEYS[1] .. ':seq')
local e = tonumber(ARGV[4]) + tonumber(ARGV[5])
redis.call('HSET', t, 'p', ARGV[2], 's', 'waiting', 'seq', seq, 'c', ARGV[4], 'e', e,
  'q', ARGV[3], 'rt', ARGV[7])
redis.call('PEXPIRE', t, tonumber(ARGV[5]) + tonumber(ARGV[8]))
redis.call('ZADD', q, seq, ARGV[1])
redis.call('ZADD', KEYS[1] .. ':x', e, ARGV[1])
redis.call('PUBLISH', ARGV[9], ARGV[1])
return 'ok'
