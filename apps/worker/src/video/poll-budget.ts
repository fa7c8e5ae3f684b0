import type { Metrics } from '@mediagate/shared/metrics';
import { type RedisClient, redisKey, redisKeyGroup } from '@mediagate/shared/queue';
import { reserveSlot, sleep } from './fleet-slots';

/**
 * A fleet-wide calendar of planned polls: at most `ARGV[2]` per second. Books the first second at or
 * after `ARGV[1]` ms from now that has room (looking at most `ARGV[3]` seconds ahead) and answers the
 * booked time, in ms from now, spread evenly within its second.
 */
const BOOK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = now + tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local sec = math.floor(at / 1000)
local scan = tonumber(ARGV[3])
for i = 0, scan do
  local s = sec + i
  local k = KEYS[1] .. ':' .. s
  if tonumber(redis.call('GET', k) or '0') < cap then
    local c = redis.call('INCR', k)
    if c == 1 then redis.call('PEXPIRE', k, s * 1000 - now + 60000) end
    local slot = s * 1000 + math.floor((c - 1) * 1000 / cap)
    if slot < at then slot = at end
    return slot - now
  end
end
return (sec + scan + 1) * 1000 - now`;

/** how many times one acquire leaves a late slot unused before it sends anyway */
const LATE_RETAKES = 2;

export interface PollBudgetConfig {
  /** the vendor's queries per second for one channel (0 = unlimited) */
  queriesPerSecond: number;
  /**
   * fraction of the queries that planned polls may book; the rest stays free for the queries that
   * are known to be worth it (tasks a batch query found finished, the batch queries themselves)
   */
  plannedShare: number;
  /** the spacing keeps this fraction of the limit in reserve against network jitter */
  headroom: number;
}

/**
 * The query budget of the upstream's task APIs, shared by every worker through Redis:
 * - `acquire` takes the next free query slot (evenly spaced, so no sliding second ever holds more
 *   than the limit) and waits for it;
 * - `book` plans a task's next poll on a per-second calendar that keeps planned polls under
 *   `plannedShare` of the limit. A booking never fails: a full second sends it to the next one
 *   with room, so every task is polled, in the order its polls were wanted.
 */
export class PollBudget {
  private readonly intervalUs: number;
  private readonly plannedPerSecond: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly config: PollBudgetConfig,
    private readonly opts: {
      /** how a wait for a slot is slept (tests make it late) */
      sleep?: (ms: number) => Promise<void>;
      /** slots left unused are counted here, by channel */
      metrics?: Pick<Metrics, 'upstreamLateSlots'>;
    } = {},
  ) {
    const qps = config.queriesPerSecond;
    this.intervalUs = qps > 0 ? Math.ceil(1_000_000 / (qps * (1 - config.headroom))) : 0;
    this.plannedPerSecond =
      qps > 0 ? Math.max(1, Math.floor(qps * (1 - config.headroom) * config.plannedShare)) : 0;
  }

  get unlimited(): boolean {
    return this.intervalUs === 0;
  }

  /**
   * Takes a query slot on `channel`: waits for it when it comes within `maxWaitMs` and answers 0,
   * else reserves nothing and answers how long to wait (ms) before asking again.
   *
   * A wait that ends more than half a slot late (a busy event loop, a long GC) leaves its slot
   * unused and takes a new one, at most `LATE_RETAKES` times: a query sent that late could share
   * a sliding second with the on-time queries of the slots after it, one more than the vendor
   * allows. Sent within half a slot of its own, no second holds more than the limit.
   */
  async acquire(channel: string, maxWaitMs: number): Promise<number> {
    if (this.unlimited) return 0;
    for (let retakes = 0; ; retakes += 1) {
      const { waitUs } = await this.reserve(channel, maxWaitMs);
      if (waitUs < 0) return Math.max(1, Math.ceil((-waitUs - 1) / 1000));
      const due = performance.now() + waitUs / 1000;
      if (waitUs > 0) await (this.opts.sleep ?? sleep)(Math.ceil(waitUs / 1000));
      const lateMs = performance.now() - due;
      if (lateMs <= this.intervalUs / 2000 || retakes === LATE_RETAKES) return 0;
      this.opts.metrics?.upstreamLateSlots.inc({ channel });
    }
  }

  /**
   * The reservation under `acquire`, without the wait: `waitUs` (negative: nothing reserved) and
   * the slot's time on Redis's clock, in microseconds.
   */
  async reserve(channel: string, maxWaitMs: number): Promise<{ waitUs: number; slotUs: number }> {
    return reserveSlot(
      this.redis,
      redisKey(this.prefix, 'upstream-query-tat', channel),
      this.intervalUs,
      maxWaitMs,
    );
  }

  /** Books a planned poll on `channel` about `delayMs` from now; answers the booked delay (ms). */
  async book(channel: string, delayMs: number, horizonMs: number): Promise<number> {
    if (this.unlimited) return delayMs;
    const res = await this.redis.eval(
      BOOK,
      1,
      redisKeyGroup(this.prefix, 'upstream-poll-calendar', channel),
      Math.max(0, Math.round(delayMs)),
      this.plannedPerSecond,
      Math.max(1, Math.ceil(horizonMs / 1000)),
    );
    return Math.max(0, Number(res));
  }
}
