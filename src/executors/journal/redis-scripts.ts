/**
 * Lua scripts of the Redis journal and the wallet lease. Each state change is one script: Redis runs
 * it atomically, so the fence check (the caller's lease epoch equals the wallet's current epoch),
 * the state-machine check and the write are one compare-and-set. Errors come back as replies whose
 * message starts with a tag (`FENCED`, `NOT_FOUND`, `BAD_TRANSITION`, `DUP_SIG`) that
 * redis-journal.ts maps to coded errors.
 *
 * Lamport sums are decimal strings added and compared digit by digit: Lua numbers are doubles and
 * would round sums above 2^53.
 */

/** Shared helpers: fence, transition table, decimal-string arithmetic. Prepended to every journal script. */
const PRELUDE = `
local T = {
  NEW = { BUILT = true, SIGNED = true, DENIED = true },
  BUILT = { BUILT = true, SIGNED = true, DENIED = true },
  SIGNED = { SENT = true, LANDED = true, FAILED_ON_CHAIN = true, EXPIRED = true },
  SENT = { LANDED = true, FAILED_ON_CHAIN = true, EXPIRED = true },
  EXPIRED = { BUILT = true, SIGNED = true, DENIED = true, EXPIRED = true },
  LANDED = {}, FAILED_ON_CHAIN = {}, DENIED = {},
}
local function fence(leaseKey, epoch)
  local cur = redis.call('HGET', leaseKey, 'epoch')
  if epoch == '' or cur ~= epoch then
    return redis.error_reply('FENCED wallet lease epoch is ' .. tostring(cur) .. ', writer holds ' .. epoch)
  end
  return nil
end
local function expect(key, id, to)
  local v = redis.call('HMGET', key, 'state', 'done')
  if not v[1] then return nil, redis.error_reply('NOT_FOUND ' .. id) end
  if v[2] == '1' or not T[v[1]][to] then return nil, redis.error_reply('BAD_TRANSITION ' .. v[1] .. ' ' .. to) end
  return v[1], nil
end
local function norm(a)
  a = string.gsub(a, '^0+', '')
  if a == '' then return '0' end
  return a
end
local function cmp(a, b)
  a = norm(a); b = norm(b)
  if #a ~= #b then return (#a < #b) and -1 or 1 end
  if a == b then return 0 end
  return (a < b) and -1 or 1
end
local function add(a, b)
  local r = {}
  local i, j, carry = #a, #b, 0
  while i > 0 or j > 0 or carry > 0 do
    local s = carry
    if i > 0 then s = s + tonumber(string.sub(a, i, i)) end
    if j > 0 then s = s + tonumber(string.sub(b, j, j)) end
    table.insert(r, 1, tostring(s % 10))
    carry = math.floor(s / 10)
    i = i - 1; j = j - 1
  end
  return norm(table.concat(r))
end
local function sub(a, b)
  if cmp(a, b) <= 0 then return '0' end
  local r = {}
  local i, j, borrow = #a, #b, 0
  while i > 0 do
    local d = tonumber(string.sub(a, i, i)) - borrow
    if j > 0 then d = d - tonumber(string.sub(b, j, j)) end
    if d < 0 then d = d + 10; borrow = 1 else borrow = 0 end
    table.insert(r, 1, tostring(d))
    i = i - 1; j = j - 1
  end
  return norm(table.concat(r))
end
local function current(key, sig, id)
  local v = redis.call('HMGET', key, 'n', 'cur')
  if v[2] ~= sig then return nil, redis.error_reply('BAD_TRANSITION signature ' .. sig .. ' is not the current attempt of ' .. id) end
  return tonumber(v[1]) - 1, nil
end
`;

/**
 * KEYS: lease, intent, open, spent. ARGV: epoch, id, intentJson, spend, day, cap ('' = none), at.
 * Returns {'exists'} | {'over', spentToday} | {'created'}.
 */
export const CREATE = `${PRELUDE}
local f = fence(KEYS[1], ARGV[1]); if f then return f end
if redis.call('EXISTS', KEYS[2]) == 1 then return { 'exists' } end
local spent = redis.call('HGET', KEYS[4], ARGV[5]) or '0'
local total = add(spent, ARGV[4])
if ARGV[6] ~= '' and cmp(total, ARGV[6]) > 0 then return { 'over', norm(spent) } end
redis.call('HSET', KEYS[2], 'intent', ARGV[3], 'state', 'NEW', 'done', '0', 'reported', '0', 'spend', ARGV[4], 'day', ARGV[5],
  'n', '0', 'cur', '', 'created', ARGV[7], 'updated', ARGV[7])
redis.call('ZADD', KEYS[3], tonumber(ARGV[7]), ARGV[2])
redis.call('HSET', KEYS[4], ARGV[5], total)
return { 'created' }
`;

/** KEYS: lease, intent. ARGV: epoch, id, at. */
export const MARK_BUILT = `${PRELUDE}
local f = fence(KEYS[1], ARGV[1]); if f then return f end
local _, e = expect(KEYS[2], ARGV[2], 'BUILT'); if e then return e end
redis.call('HSET', KEYS[2], 'state', 'BUILT', 'done', '0', 'updated', ARGV[3])
return 'OK'
`;

/** KEYS: lease, intent, sigs. ARGV: epoch, id, signature, attemptJson, at. */
export const RECORD_SIGNED = `${PRELUDE}
local f = fence(KEYS[1], ARGV[1]); if f then return f end
local _, e = expect(KEYS[2], ARGV[2], 'SIGNED'); if e then return e end
if redis.call('HEXISTS', KEYS[3], ARGV[3]) == 1 then return redis.error_reply('DUP_SIG ' .. ARGV[3]) end
local n = tonumber(redis.call('HGET', KEYS[2], 'n'))
redis.call('HSET', KEYS[2], 'a' .. n, ARGV[4], 's' .. n, 'SIGNED', 'n', tostring(n + 1), 'cur', ARGV[3], 'state', 'SIGNED', 'updated', ARGV[5])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[2])
return 'OK'
`;

/** KEYS: lease, intent. ARGV: epoch, id, signature, at. */
export const MARK_SENT = `${PRELUDE}
local f = fence(KEYS[1], ARGV[1]); if f then return f end
if redis.call('HGET', KEYS[2], 'state') == 'SENT' then return 'OK' end
local _, e = expect(KEYS[2], ARGV[2], 'SENT'); if e then return e end
local n, e2 = current(KEYS[2], ARGV[3], ARGV[2]); if e2 then return e2 end
redis.call('HSET', KEYS[2], 's' .. n, 'SENT', 'state', 'SENT', 'updated', ARGV[4])
return 'OK'
`;

/**
 * KEYS: lease, intent, landed. ARGV: epoch, id, signature, to, at, then by state:
 * LANDED fillJson, landedSlot; FAILED_ON_CHAIN code, reason, feeLamports, landedSlot; EXPIRED
 * final ('1'/'0'). A landedSlot of '' (not known) writes no `slot` field.
 */
export const RESOLVE = `${PRELUDE}
local f = fence(KEYS[1], ARGV[1]); if f then return f end
local to = ARGV[4]
local _, e = expect(KEYS[2], ARGV[2], to); if e then return e end
local n, e2 = current(KEYS[2], ARGV[3], ARGV[2]); if e2 then return e2 end
redis.call('HSET', KEYS[2], 's' .. n, to, 'state', to, 'updated', ARGV[5])
if to == 'LANDED' then
  redis.call('HSET', KEYS[2], 'done', '1', 'fill', ARGV[6])
  if ARGV[7] and ARGV[7] ~= '' then redis.call('HSET', KEYS[2], 'slot', ARGV[7]) end
  redis.call('RPUSH', KEYS[3], ARGV[2])
elseif to == 'FAILED_ON_CHAIN' then
  redis.call('HSET', KEYS[2], 'done', '1', 'code', ARGV[6], 'reason', ARGV[7], 'fee', ARGV[8])
  if ARGV[9] and ARGV[9] ~= '' then redis.call('HSET', KEYS[2], 'slot', ARGV[9]) end
else
  redis.call('HSET', KEYS[2], 'done', ARGV[6])
end
return 'OK'
`;

/** KEYS: lease, intent, spent. ARGV: epoch, id, code, reason, at. */
export const DENY = `${PRELUDE}
local f = fence(KEYS[1], ARGV[1]); if f then return f end
local _, e = expect(KEYS[2], ARGV[2], 'DENIED'); if e then return e end
redis.call('HSET', KEYS[2], 'state', 'DENIED', 'done', '1', 'code', ARGV[3], 'reason', ARGV[4], 'updated', ARGV[5])
local v = redis.call('HMGET', KEYS[2], 'day', 'spend')
local spent = redis.call('HGET', KEYS[3], v[1]) or '0'
redis.call('HSET', KEYS[3], v[1], sub(spent, v[2]))
return 'OK'
`;

/**
 * KEYS: lease, intent, open, reports. ARGV: epoch, id, at, report ('' = none), maxLen.
 * Marks the outcome reported and, when `report` is given and the intent was not reported yet,
 * appends it to the wallet's report stream in the same step: one report per outcome, ever.
 */
export const MARK_REPORTED = `${PRELUDE}
local f = fence(KEYS[1], ARGV[1]); if f then return f end
local v = redis.call('HMGET', KEYS[2], 'done', 'reported')
if not v[1] then return 'OK' end
if v[2] ~= '1' and ARGV[4] ~= '' then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[5], '*', 'id', ARGV[2], 'r', ARGV[4])
end
redis.call('HSET', KEYS[2], 'reported', '1', 'updated', ARGV[3])
if v[1] == '1' then redis.call('ZREM', KEYS[3], ARGV[2]) end
return 'OK'
`;

/**
 * KEYS: lease. ARGV: owner token, ttlMs. Takes the wallet's lease when it is free, released or
 * expired (Redis's own clock decides), with a new epoch. Returns {1, epoch, tookOver} or {0, msLeft}.
 */
export const LEASE_ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('HMGET', KEYS[1], 'owner', 'until')
local owner = v[1] or ''
local untilMs = tonumber(v[2] or '0')
if owner ~= '' and untilMs > now then return { 0, untilMs - now } end
local epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'until', tostring(now + tonumber(ARGV[2])))
local took = 0
if owner ~= '' then took = 1; redis.call('HINCRBY', KEYS[1], 'takeovers', 1) end
return { 1, epoch, took }
`;

/** KEYS: lease. ARGV: epoch, owner token, ttlMs. Extends the lease; 0 when it was taken over. */
export const LEASE_RENEW = `
local v = redis.call('HMGET', KEYS[1], 'epoch', 'owner')
if v[1] ~= ARGV[1] or v[2] ~= ARGV[2] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'until', tostring(now + tonumber(ARGV[3])))
return 1
`;

/** KEYS: lease. ARGV: epoch, owner token. Frees the lease (the epoch stays); 0 when it was taken over. */
export const LEASE_RELEASE = `
local v = redis.call('HMGET', KEYS[1], 'epoch', 'owner')
if v[1] ~= ARGV[1] or v[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'owner', '', 'until', '0')
return 1
`;
