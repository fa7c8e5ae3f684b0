import type { RedisClient } from './connection';
import { redisKey } from './keys';

/**
 * Spaces calls `ARGV[1]` microseconds apart, fleet-wide (GCRA on Redis's clock). Reserves the next
 * slot and answers its wait and the slot (both in microseconds) when it is at most `ARGV[2]` away;
 * otherwise reserves nothing and answers -(wait + 1).
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - now
if wait > tonumber(ARGV[2]) then return {-(wait + 1), 0} end
redis.call('SET', KEYS[1], string.format('%.0f', tat + tonumber(ARGV[1])), 'PX', math.floor((wait + tonumber(ARGV[1])) / 1000) + 1000)
return {wait, string.format('%.0f', tat)}`;

/** How far the next free slot of `KEYS[1]` is from now on Redis's clock, in microseconds (0: free now). */
const BACKLOG = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then return 0 end
return tat - now`;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Reserves the next slot of `key` (slots `intervalUs` apart, shared by every process on the same
 * Redis): `waitUs` until it (negative: nothing reserved, it was more than `maxWaitMs` away) and
 * the slot's time on Redis's clock, in microseconds.
 */
export async function reserveSlot(
  redis: RedisClient,
  key: string,
  intervalUs: number,
  maxWaitMs: number,
): Promise<{ waitUs: number; slotUs: number }> {
  const [wait, slot] = (await redis.eval(ACQUIRE, 1, key, intervalUs, maxWaitMs * 1000)) as [
    number,
    string | number,
  ];
  return { waitUs: Number(wait), slotUs: Number(slot) };
}

/** How long until the next free slot of `key` (µs; 0 when one is free now). Reserves nothing. */
export async function slotBacklogUs(redis: RedisClient, key: string): Promise<number> {
  return Number(await redis.eval(BACKLOG, 1, key));
}

/**
 * Takes a slot of `key` and waits for it: answers 0 once it has come, or (nothing reserved) how
 * many ms to wait before asking again when the next free slot is more than `maxWaitMs` away.
 *
 * A slot is used only when the wait for it ends at most `toleranceUs` late, counted from the
 * moment the reservation was sent (so a slow answer from Redis, a busy event loop or a long GC
 * count as lateness too): a later call could share a sliding second with the on-time calls of the
 * slots after it. The wait itself runs from Redis's answer, so a slot is never taken early. A late slot is
 * left unused and a new one taken, at most `retakes` times; then, with `late: 'send'`, the call
 * goes anyway, and with `late: 'wait'` it is told to ask again one interval later.
 */
export async function takeSlot(
  redis: RedisClient,
  key: string,
  opts: {
    intervalUs: number;
    maxWaitMs: number;
    toleranceUs: number;
    retakes: number;
    late: 'send' | 'wait';
    sleep?: (ms: number) => Promise<void>;
    /** called for every slot left unused because its wait ended late */
    onLate?: () => void;
  },
): Promise<number> {
  for (let retakes = 0; ; retakes += 1) {
    const sent = performance.now();
    const { waitUs } = await reserveSlot(redis, key, opts.intervalUs, opts.maxWaitMs);
    if (waitUs < 0) return Math.max(1, Math.ceil((-waitUs - 1) / 1000));
    // The slot is between `sent + wait` and `answered + wait` on this process's clock: wait for
    // the latest, count lateness from the earliest.
    if (waitUs > 0) await (opts.sleep ?? sleep)(Math.ceil(waitUs / 1000));
    const lateMs = performance.now() - (sent + waitUs / 1000);
    if (lateMs <= opts.toleranceUs / 1000) return 0;
    opts.onLate?.();
    if (retakes === opts.retakes) {
      return opts.late === 'send' ? 0 : Math.max(1, Math.ceil(opts.intervalUs / 1000));
    }
  }
}

/**
 * A channel's task-query budget at the vendor (query, list and cancel share one per-key limit):
 * slots on one Redis key per channel, taken by the workers' polls and batch queries and by the
 * API's cancels, `upstreamQueryIntervalUs` apart, so that together they stay under the limit.
 */
export const upstreamQueryKey = (prefix: string, channel: string): string =>
  redisKey(prefix, 'upstream-query-tat', channel);

/** the share of the vendor's query limit the spacing keeps unused, against network jitter */
export const UPSTREAM_QUERY_HEADROOM = 0.15;

/** How far apart a channel's query slots are for `queriesPerSecond` (0: unlimited). */
export function upstreamQueryIntervalUs(queriesPerSecond: number, headroom = UPSTREAM_QUERY_HEADROOM): number {
  return queriesPerSecond > 0 ? Math.ceil(1_000_000 / (queriesPerSecond * (1 - headroom))) : 0;
}
