-- Deletes a string key if it still holds the expected value (a player's live slot or
-- seat record; TicketStore::clear_live, TicketStore::clear_seat_record).
--
-- KEYS: 1 the key
-- ARGV: 1 the expected value
-- Returns 1 when deleted, 0 when it held something else or nothing.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
