-- Seats the tickets of claims whose table opened (TicketStore::seat). While a claim is
-- owned its tickets are 'matching' in it (nothing else changes a matching ticket's
-- state), so the owner check suffices.
--
-- KEYS: 1 room base
-- ARGV: 1 now (Unix ms), 2 retention after they end (ms), 3 channel, 4 game,
--       5 waited (ms, summed over the tickets below), 6 tickets waited over,
--       7 match count, then per match: match id, owner token, table id, ticket count,
--       then a (ticket, seat) pair per ticket
-- Returns {match id, …} of the claims seated.
local base = KEYS[1]
local out = {}
local i = 8
for _ = 1, tonumber(ARGV[7]) do
  local mid, owner, tb, k = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local m = base .. ':m:' .. mid
  local h = redis.call('HMGET', m, 'ow', 'pl')
  if h[1] == owner then
    for j = 1, k do
      local id, seat = ARGV[i + 2 + 2 * j], ARGV[i + 3 + 2 * j]
      local t = base .. ':t:' .. id
      redis.call('HSET', t, 's', 'seated', 'tb', tb, 'st', seat, 'g', ARGV[4],
        'pl', h[2] or '', 'end', ARGV[1])
      redis.call('PEXPIRE', t, ARGV[2])
      redis.call('PUBLISH', ARGV[3], id)
    end
    redis.call('DEL', m)
    redis.call('ZREM', base .. ':c', mid)
    out[#out + 1] = mid
  end
  i = i + 4 + 2 * k
end
local count = tonumber(ARGV[6])
if count > 0 and #out > 0 then
  local stats = base .. ':stats'
  local avg = tonumber(redis.call('HGET', stats, 'avg') or '-1')
  local mean = tonumber(ARGV[5]) / count
  if avg < 0 then avg = mean else avg = avg * 0.8 + mean * 0.2 end
  redis.call('HSET', stats, 'avg', math.floor(avg))
end
return out
