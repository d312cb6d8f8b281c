/**
 * The Redis store's status changes as Lua scripts. Redis runs a script atomically, so each script is what a SQLite
 * transaction is for the embedded store: the record, the counters, the queue-order set and the `status` event
 * (XADD to the job's stream, PUBLISH to its live channel) change together or not at all, and every change is
 * guarded by the status it leaves.
 *
 * Keys (P = the configured prefix):
 *   P:job:<id>      hash: the record (absent fields are null; no `tenant` field: the tenant `default`)
 *   P:all           sorted set: every job by creation order (GET /v1/jobs for an admin)
 *   P:all:<t>       sorted set: tenant t's jobs, same scores (GET /v1/jobs)
 *   P:counts        hash: jobs per status
 *   P:tcounts:<t>   hash: tenant t's jobs per status (its limits, fair turns)
 *   P:queued        sorted set: queued jobs by queue order
 *   P:queued:<t>    sorted set: tenant t's queued jobs by queue order (fair turns, queue_position)
 *   P:qtenants      set: tenants with queued jobs
 *   P:served        hash: tenant -> turn (P:turn) at which it last had a job started
 *   P:deliveries    hash: BullMQ delivery id -> the job that delivery started (see claim)
 *   P:usage:<day>   hash: tenant -> upload bytes that UTC day (expires after 3 days)
 *   P:tenancy       "1" once the data of a store made before tenants was given to the tenant `default`
 *   P:waiting       sorted set: jobs waiting for their upload, by creation time in ms (upload_wait_ms)
 *   P:seq           counter: event sequence numbers, shared by all jobs (SSE ids only grow)
 *   P:events:<id>   stream: the job's events, entry id <seq>-0
 *   P:live:<id>     channel: each event as it is stored
 *   P:cancel        channel: ids of running jobs a client canceled
 * The scripts build key names from the prefix, so this layout needs one Redis (not Redis Cluster).
 */

const COMMON = `
local P = ARGV[1]
local function emit(id, typ, data_json, at)
  local seq = redis.call('INCR', P .. ':seq')
  redis.call('XADD', P .. ':events:' .. id, seq .. '-0', 't', typ, 'd', data_json, 'a', at)
  redis.call('PUBLISH', P .. ':live:' .. id, '{"seq":' .. seq .. ',"job_id":' .. cjson.encode(id) .. ',"type":' .. cjson.encode(typ) .. ',"at":' .. cjson.encode(at) .. ',"data":' .. data_json .. '}')
  return seq
end
local function tenant_of(id)
  return redis.call('HGET', P .. ':job:' .. id, 'tenant') or 'default'
end
local function move(id, from, to)
  local t = tenant_of(id)
  redis.call('HINCRBY', P .. ':counts', from, -1)
  redis.call('HINCRBY', P .. ':counts', to, 1)
  redis.call('HINCRBY', P .. ':tcounts:' .. t, from, -1)
  redis.call('HINCRBY', P .. ':tcounts:' .. t, to, 1)
  redis.call('HSET', P .. ':job:' .. id, 'status', to)
  if from == 'queued' then
    redis.call('ZREM', P .. ':queued', id)
    redis.call('ZREM', P .. ':queued:' .. t, id)
    if redis.call('ZCARD', P .. ':queued:' .. t) == 0 then redis.call('SREM', P .. ':qtenants', t) end
  end
  if from == 'waiting_upload' then redis.call('ZREM', P .. ':waiting', id) end
end
local function enqueue(id, at)
  local t = tenant_of(id)
  local order = redis.call('INCR', P .. ':order')
  redis.call('HSET', P .. ':job:' .. id, 'queue_order', order, 'queued_at', at)
  redis.call('ZADD', P .. ':queued', order, id)
  redis.call('ZADD', P .. ':queued:' .. t, order, id)
  redis.call('SADD', P .. ':qtenants', t)
end
local function terminal(s)
  return s == 'succeeded' or s == 'failed' or s == 'canceled'
end
`;

/**
 * ARGV: P, id, status, at, created_ms, status_event_json, tenant, tenant_queue_limit, tenant_waiting_upload_limit,
 * queue_limit (-1: none), field, value, ... -> {'created', seq} | {'refused', limit, count, max}
 * The limits are checked here, in the script that stores the job, so concurrent submissions cannot overshoot them.
 */
const create = `
local id, status, at, t = ARGV[2], ARGV[3], ARGV[4], ARGV[7]
local key = P .. ':job:' .. id
if redis.call('EXISTS', key) == 1 then return redis.error_reply('job ' .. id .. ' exists') end
local tc = P .. ':tcounts:' .. t
local waiting = tonumber(redis.call('HGET', tc, 'waiting_upload') or '0')
local pending = waiting + tonumber(redis.call('HGET', tc, 'queued') or '0')
local tql, twl, ql = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
if tql >= 0 and pending >= tql then return {'refused', 'queue_limit', pending, tql} end
if status == 'waiting_upload' and twl >= 0 and waiting >= twl then return {'refused', 'waiting_upload_limit', waiting, twl} end
if ql >= 0 then
  local all = redis.call('HMGET', P .. ':counts', 'waiting_upload', 'queued')
  local n = tonumber(all[1] or '0') + tonumber(all[2] or '0')
  if n >= ql then return {'refused', 'server.queue_limit', n, ql} end
end
local fields = {}
for i = 11, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', key, unpack(fields))
local created = redis.call('INCR', P .. ':created')
redis.call('ZADD', P .. ':all', created, id)
redis.call('ZADD', P .. ':all:' .. t, created, id)
redis.call('HINCRBY', P .. ':counts', status, 1)
redis.call('HINCRBY', tc, status, 1)
if status == 'queued' then enqueue(id, at) else redis.call('ZADD', P .. ':waiting', ARGV[5], id) end
return {'created', emit(id, 'status', ARGV[6], at)}
`;

/** ARGV: P, id, from, at -> seq, or 0 when the job was not in `from` */
const markQueued = `
local id, from, at = ARGV[2], ARGV[3], ARGV[4]
if redis.call('HGET', P .. ':job:' .. id, 'status') ~= from then return 0 end
move(id, from, 'queued')
enqueue(id, at)
return emit(id, 'status', '{"status":"queued"}', at)
`;

/**
 * ARGV: P, delivery, at, worker, running_limits_json, free_after, reserved
 *   -> {'claimed', id, seq} | {'stalled', id, restarts} | {'wait', ''} | {'skip', ''}
 *
 * A BullMQ delivery is a turn, not a particular job: each queued job adds one entry, and whichever entry a worker
 * receives starts the job fair turns pick (src/fair-turns.ts: fewest running, then least recently served, then
 * oldest; tenants at their running limit are passed over, and so is a tenant already running a job when the
 * delivering worker would be left with fewer than `reserved` free slots: server.reserved_slots).
 * P:deliveries remembers which job a delivery started.
 * 'stalled': that job is still running, so the worker that had it died (BullMQ handed the delivery out again).
 * 'wait': jobs are queued but every tenant holding them is at its running limit (the delivery is tried later).
 * 'skip': nothing queued (a surplus turn).
 */
const claim = `
local delivery, at, worker = ARGV[2], ARGV[3], ARGV[4]
local limits = cjson.decode(ARGV[5])
local free_after, reserved = tonumber(ARGV[6] or '0'), tonumber(ARGV[7] or '0')
local mapped = redis.call('HGET', P .. ':deliveries', delivery)
if not mapped then
  -- a job stored before deliveries were recorded ran under its own id
  local own = P .. ':job:' .. delivery
  local d = redis.call('HGET', own, 'delivery')
  if redis.call('HGET', own, 'status') == 'running' and (not d or d == delivery) then mapped = delivery end
end
if mapped then
  local key = P .. ':job:' .. mapped
  if redis.call('HGET', key, 'status') == 'running' then
    return {'stalled', mapped, redis.call('HINCRBY', key, 'restarts', 1)}
  end
  redis.call('HDEL', P .. ':deliveries', delivery)
end
local best, best_id, best_running, best_served, best_first
for _, t in ipairs(redis.call('SMEMBERS', P .. ':qtenants')) do
  local running = tonumber(redis.call('HGET', P .. ':tcounts:' .. t, 'running') or '0')
  local limit = limits[t]
  if (not limit or running < limit) and (running == 0 or free_after >= reserved) then
    local first = redis.call('ZRANGE', P .. ':queued:' .. t, 0, 0, 'WITHSCORES')
    if first[1] then
      local served = tonumber(redis.call('HGET', P .. ':served', t) or '0')
      local order = tonumber(first[2])
      if not best or running < best_running or (running == best_running and (served < best_served or (served == best_served and order < best_first))) then
        best, best_id, best_running, best_served, best_first = t, first[1], running, served, order
      end
    end
  end
end
if not best then
  if redis.call('SCARD', P .. ':qtenants') > 0 then return {'wait', ''} end
  return {'skip', ''}
end
move(best_id, 'queued', 'running')
redis.call('HSET', P .. ':job:' .. best_id, 'started_at', at, 'worker', worker, 'delivery', delivery)
redis.call('HSET', P .. ':deliveries', delivery, best_id)
redis.call('HSET', P .. ':served', best, redis.call('INCR', P .. ':turn'))
return {'claimed', best_id, emit(best_id, 'status', '{"status":"running"}', at)}
`;

/** ARGV: P, id, status, at, status_event_json, field, value, ... -> seq, or 0 when already terminal (or gone) */
const finish = `
local id, status, at = ARGV[2], ARGV[3], ARGV[4]
local key = P .. ':job:' .. id
local s = redis.call('HGET', key, 'status')
if not s or terminal(s) then return 0 end
move(id, s, status)
redis.call('HSET', key, 'finished_at', at)
local d = redis.call('HGET', key, 'delivery')
if d and redis.call('HGET', P .. ':deliveries', d) == id then redis.call('HDEL', P .. ':deliveries', d) end
if #ARGV >= 6 then
  local fields = {}
  for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
  redis.call('HSET', key, unpack(fields))
end
return emit(id, 'status', ARGV[5], at)
`;

/** ARGV: P, id, type, data_json, at -> seq */
const appendEvent = `
return emit(ARGV[2], ARGV[3], ARGV[4], ARGV[5])
`;

/**
 * ARGV: P, id, at, canceled_event_json, error_json, reason -> {'canceled', seq} | {'stopping', seq} | {'final', 0}
 * A job that has not started ends at once; a running one gets a log line and its id on P:cancel for its worker.
 */
const requestCancel = `
local id, at = ARGV[2], ARGV[3]
local key = P .. ':job:' .. id
local s = redis.call('HGET', key, 'status')
if s == 'queued' or s == 'waiting_upload' then
  move(id, s, 'canceled')
  redis.call('HSET', key, 'finished_at', at, 'error_json', ARGV[5], 'reason', ARGV[6])
  return {'canceled', emit(id, 'status', ARGV[4], at)}
elseif s == 'running' then
  redis.call('HSET', key, 'cancel_requested', '1')
  local seq = emit(id, 'log', '{"stream":"skillrig","line":"cancel requested; stopping the engine"}', at)
  redis.call('PUBLISH', P .. ':cancel', id)
  return {'stopping', seq}
end
return {'final', 0}
`;

/** ARGV: P, tenant, day, bytes, max -> {1 | 0, bytes used before}: counts an upload against the tenant's bytes per day unless past max. */
const reserveUpload = `
local key = P .. ':usage:' .. ARGV[3]
local used = tonumber(redis.call('HGET', key, ARGV[2]) or '0')
local bytes, max = tonumber(ARGV[4]), tonumber(ARGV[5])
if used + bytes > max then return {0, used} end
redis.call('HINCRBY', key, ARGV[2], bytes)
redis.call('EXPIRE', key, 259200)
return {1, used}
`;

/** ARGV: P, tenant, day, bytes: gives back a refused upload's bytes. */
const releaseUpload = `
redis.call('HINCRBY', P .. ':usage:' .. ARGV[3], ARGV[2], -tonumber(ARGV[4]))
return 0
`;

/**
 * ARGV: P -> 1 when it moved anything. A store made before tenants: every job in it belongs to the tenant
 * `default` (records without a tenant field read as `default`); its counters, listing and queue become that
 * tenant's. Runs once (P:tenancy), when a node opens the store.
 */
const tenancy = `
if redis.call('EXISTS', P .. ':tenancy') == 1 then return 0 end
local counts = redis.call('HGETALL', P .. ':counts')
if #counts > 0 then redis.call('HSET', P .. ':tcounts:default', unpack(counts)) end
if redis.call('EXISTS', P .. ':all') == 1 then redis.call('ZUNIONSTORE', P .. ':all:default', 1, P .. ':all') end
if redis.call('ZCARD', P .. ':queued') > 0 then
  redis.call('ZUNIONSTORE', P .. ':queued:default', 1, P .. ':queued')
  redis.call('SADD', P .. ':qtenants', 'default')
end
redis.call('SET', P .. ':tenancy', '1')
return 1
`;

export const REDIS_SCRIPTS = {
  create: COMMON + create,
  markQueued: COMMON + markQueued,
  claim: COMMON + claim,
  finish: COMMON + finish,
  appendEvent: COMMON + appendEvent,
  requestCancel: COMMON + requestCancel,
  reserveUpload: COMMON + reserveUpload,
  releaseUpload: COMMON + releaseUpload,
  tenancy: COMMON + tenancy,
} as const;

export type RedisScriptName = keyof typeof REDIS_SCRIPTS;
