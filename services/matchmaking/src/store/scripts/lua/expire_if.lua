-- Extends a string key's time to live if it still holds the expected value (a player's
-- seat record its game service just confirmed; TicketStore::keep_seat_record).
--
-- KEYS: 1 the key
-- ARGV: 1 the expected value, 2 the new time to live in ms
-- Returns 1 when extended, 0 when it held something else or nothing.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
