-- Gives up claims: each ticket goes back to the queue at its place or ends
-- (TicketStore::release). 'retry' counts a failed table opening and ends the ticket
-- FAILED at the limit; a ticket whose cancel was requested ends CANCELLED, one past its
-- expiry EXPIRED.
--
-- KEYS: 1 room base
-- ARGV: 1 now (Unix ms), 2 retention after they end (ms), 3 channel,
--       4 failed openings before a ticket fails, 5 match count,
--       then per match: match id, owner token, ticket count, then per ticket:
--       ticket, action (requeue | retry | refuse | fail), refusal code, message
-- Returns {ticket, player, …} of the tickets that ended.
local base = KEYS[1]
local now = tonumber(ARGV[1])
local out = {}
local function finish(t, id, state, rf, msg, player)
  redis.call('HSET', t, 's', state, 'end', ARGV[1], 'rf', rf, 'msg', msg)
  redis.call('HDEL', t, 'm')
  redis.call('PEXPIRE', t, ARGV[2])
  redis.call('PUBLISH', ARGV[3], id)
  out[#out + 1] = id
  out[#out + 1] = player
end
local i = 6
for _ = 1, tonumber(ARGV[5]) do
  local mid, owner, k = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local m = base .. ':m:' .. mid
  if redis.call('HGET', m, 'ow') == owner then
    for j = 0, k - 1 do
      local p = i + 3 + 4 * j
      local id, action, rf, msg = ARGV[p], ARGV[p + 1], ARGV[p + 2], ARGV[p + 3]
      local t = base .. ':t:' .. id
      local th = redis.call('HMGET', t, 's', 'm', 'p', 'cx', 'e', 'seq')
      if th[1] == 'matching' and th[2] == mid then
        if action == 'retry' then
          local f = redis.call('HINCRBY', t, 'f', 1)
          if f >= tonumber(ARGV[4]) then action = 'fail' else action = 'requeue' end
        end
        if action == 'refuse' then
          finish(t, id, 'refused', rf, msg, th[3])
        elseif action == 'fail' then
          finish(t, id, 'failed', '0', msg, th[3])
        elseif th[4] == '1' then
          finish(t, id, 'cancelled', '0', '', th[3])
        elseif tonumber(th[5]) <= now then
          finish(t, id, 'expired', '0', '', th[3])
        else
          redis.call('HSET', t, 's', 'waiting')
          redis.call('HDEL', t, 'm')
          redis.call('ZADD', base .. ':q', th[6], id)
          redis.call('ZADD', base .. ':x', th[5], id)
          redis.call('PUBLISH', ARGV[3], id)
        end
      end
    end
    redis.call('DEL', m)
    redis.call('ZREM', base .. ':c', mid)
  end
  i = i + 3 + 4 * k
end
return out
