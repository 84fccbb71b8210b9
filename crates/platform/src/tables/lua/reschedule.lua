-- Puts a table's deadline index in line with a loaded state, unless the table changed
-- since (TableStore::reschedule; wrapper: tables/scripts.rs).
--
-- KEYS: 1 state (hash, field v the version), 2 deadlines (sorted set)
-- ARGV: 1 version seen, 2 deadline (Unix ms; '' = none), 3 table id
-- Returns 1 when the index was set or cleared, 0 when the version moved on.
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return 0 end
if ARGV[2] ~= '' and v > 0 then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
else
  redis.call('ZREM', KEYS[2], ARGV[3])
end
return 1
