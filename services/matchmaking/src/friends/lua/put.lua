-- Stores a friends' table if it is still at the version its writer read, and
-- announces the change (FriendsStore::put).
--
-- KEYS: 1 the table (a hash: v = version, doc = the table as JSON), 2 the shard's due set
-- ARGV: 1 the version read ('0' for a new table), 2 the new version, 3 the table as
--       JSON, 4 its lifetime (ms), 5 its code, 6 when the sweeper should look at it
--       next (Unix ms; '' once closed), 7 the shard's channel
-- Returns 1 when stored, 0 when another writer changed it first (or the code is taken).
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[6] == '' then
  redis.call('ZREM', KEYS[2], ARGV[5])
else
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
end
redis.call('PUBLISH', ARGV[7], ARGV[5])
return 1
