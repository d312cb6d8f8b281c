/**
 * The Redis store's status changes as Lua scripts. Redis runs a script atomically, so each script is what a SQLite
 * transaction is for the embedded store: the record, the counters, the queue-order set and the `status` event
 * (XADD to the job's stream, PUBLISH to its live channel) change together or not at all, and every change is
 * guarded by the status it leaves.
 *
 * Keys (P = the configured prefix):
 *   P:job:<id>      hash: the record (absent fields are null)
 *   P:all           sorted set: every job by creation order (GET /v1/jobs)
 *   P:counts        hash: jobs per status
 *   P:queued        sorted set: queued jobs by queue order (queue_position)
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
local function move(id, from, to)
  redis.call('HINCRBY', P .. ':counts', from, -1)
  redis.call('HINCRBY', P .. ':counts', to, 1)
  redis.call('HSET', P .. ':job:' .. id, 'status', to)
  if from == 'queued' then redis.call('ZREM', P .. ':queued', id) end
  if from == 'waiting_upload' then redis.call('ZREM', P .. ':waiting', id) end
end
local function enqueue(id, at)
  local order = redis.call('INCR', P .. ':order')
  redis.call('HSET', P .. ':job:' .. id, 'queue_order', order, 'queued_at', at)
  redis.call('ZADD', P .. ':queued', order, id)
end
local function terminal(s)
  return s == 'succeeded' or s == 'failed' or s == 'canceled'
end
`;

/** ARGV: P, id, status, at, created_ms, status_event_json, field, value, ... -> seq */
const create = `
local id, status, at = ARGV[2], ARGV[3], ARGV[4]
local key = P .. ':job:' .. id
if redis.call('EXISTS', key) == 1 then return redis.error_reply('job ' .. id .. ' exists') end
local fields = {}
for i = 7, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', key, unpack(fields))
redis.call('ZADD', P .. ':all', redis.call('INCR', P .. ':created'), id)
redis.call('HINCRBY', P .. ':counts', status, 1)
if status == 'queued' then enqueue(id, at) else redis.call('ZADD', P .. ':waiting', ARGV[5], id) end
return emit(id, 'status', ARGV[6], at)
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
 * ARGV: P, id, at, worker -> {'claimed', seq} | {'stalled', restarts} | {'skip', status}
 * 'stalled': the job is already running, so the worker that had it died (BullMQ handed it out again).
 */
const claim = `
local id, at, worker = ARGV[2], ARGV[3], ARGV[4]
local key = P .. ':job:' .. id
local s = redis.call('HGET', key, 'status')
if s == 'queued' then
  move(id, 'queued', 'running')
  redis.call('HSET', key, 'started_at', at, 'worker', worker)
  return {'claimed', emit(id, 'status', '{"status":"running"}', at)}
elseif s == 'running' then
  return {'stalled', redis.call('HINCRBY', key, 'restarts', 1)}
end
return {'skip', s or ''}
`;

/** ARGV: P, id, status, at, status_event_json, field, value, ... -> seq, or 0 when already terminal (or gone) */
const finish = `
local id, status, at = ARGV[2], ARGV[3], ARGV[4]
local key = P .. ':job:' .. id
local s = redis.call('HGET', key, 'status')
if not s or terminal(s) then return 0 end
move(id, s, status)
redis.call('HSET', key, 'finished_at', at)
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

export const REDIS_SCRIPTS = {
  create: COMMON + create,
  markQueued: COMMON + markQueued,
  claim: COMMON + claim,
  finish: COMMON + finish,
  appendEvent: COMMON + appendEvent,
  requestCancel: COMMON + requestCancel,
} as const;

export type RedisScriptName = keyof typeof REDIS_SCRIPTS;
