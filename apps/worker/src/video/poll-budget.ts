import type { Metrics } from '@mediagate/shared/metrics';
import {
  type RedisClient,
  redisKeyGroup,
  reserveSlot,
  sleep,
  slotBacklogUs,
  upstreamQueryIntervalUs,
  upstreamQueryKey,
} from '@mediagate/shared/queue';

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

/** How many reservations' round trips `acquire` keeps, and how many it needs before it trusts their floor. */
const ROUND_TRIPS_KEPT = 32;
const MIN_ROUND_TRIPS = 8;

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
  /**
   * how late after its slot a query may still go, counted from the moment its reservation was
   * sent (default: half a slot); the spacing's headroom must cover it and the network's jitter
   */
  toleranceMs?: number;
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
  private readonly toleranceMs: number;
  private readonly plannedPerSecond: number;
  /** the round trips of the last reservations, ms (a ring), for the floor under each one's lateness */
  private readonly roundTrips: number[] = [];
  private roundTripAt = 0;

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
    this.intervalUs = upstreamQueryIntervalUs(qps, config.headroom);
    this.toleranceMs = config.toleranceMs ?? this.intervalUs / 2000;
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
   * A query never goes more than the tolerance after its slot. The lateness is counted from the
   * moment the reservation was sent, so a slow answer from Redis, a busy event loop or a long GC
   * count too: a query sent later could share a sliding second with the on-time queries of the
   * slots after it, one more than the vendor allows. A late slot is left unused and a new one
   * taken; when no slot could be kept within `maxWaitMs`, nothing is sent and the answer is one
   * slot's wait. So no sliding second holds more queries than the spacing allows, however loaded
   * the process: with N a second and a headroom h, any N + 1 queries leave over
   * 1 s / (1 - h) - tolerance apart, and what is left over a second absorbs the network's jitter.
   *
   * The round trip every reservation takes (a Redis further away, a loop that is always this busy)
   * shifts every query of the process alike and does not bring two closer: the smallest of the
   * last ROUND_TRIPS_KEPT round trips, once MIN_ROUND_TRIPS were seen, is not counted as lateness.
   * Without that floor a Redis answering 50 ms after every reservation would leave every slot
   * unused, and no query of the channel would go out at all.
   */
  async acquire(channel: string, maxWaitMs: number): Promise<number> {
    if (this.unlimited) return 0;
    const began = performance.now();
    for (;;) {
      const sent = performance.now();
      const { waitUs } = await this.reserve(channel, Math.max(0, maxWaitMs - (sent - began)));
      const floor = this.roundTripFloor();
      this.keepRoundTrip(performance.now() - sent);
      if (waitUs < 0) return Math.max(1, Math.ceil((-waitUs - 1) / 1000));
      // the slot lies between `sent + wait` and the answer's arrival + wait on this process's
      // clock: wait for the latest (never early), count lateness from the earliest, less the
      // round trip every reservation of this process takes
      if (waitUs > 0) await (this.opts.sleep ?? sleep)(Math.ceil(waitUs / 1000));
      const now = performance.now();
      if (now - (sent + waitUs / 1000) - floor <= this.toleranceMs) return 0;
      this.opts.metrics?.upstreamLateSlots.inc({ channel });
      if (now - began >= maxWaitMs) return Math.max(1, Math.ceil(this.intervalUs / 1000));
    }
  }

  private keepRoundTrip(ms: number): void {
    this.roundTrips[this.roundTripAt] = ms;
    this.roundTripAt = (this.roundTripAt + 1) % ROUND_TRIPS_KEPT;
  }

  /** The smallest recent round trip, or 0 until MIN_ROUND_TRIPS were seen. */
  private roundTripFloor(): number {
    return this.roundTrips.length < MIN_ROUND_TRIPS ? 0 : Math.min(...this.roundTrips);
  }

  /**
   * The reservation under `acquire`, without the wait: `waitUs` (negative: nothing reserved) and
   * the slot's time on Redis's clock, in microseconds.
   */
  async reserve(channel: string, maxWaitMs: number): Promise<{ waitUs: number; slotUs: number }> {
    return reserveSlot(
      this.redis,
      upstreamQueryKey(this.prefix, channel),
      this.intervalUs,
      maxWaitMs,
    );
  }

  /**
   * How many query slots of `channel` are still free within `ms` from now, after every slot
   * already taken (infinite without a limit). Reserves nothing: a caller that is about to make
   * that many queries happen (the sweeper running the jobs of finished tasks) keeps them from
   * queueing for slots further away than that.
   */
  async freeSlotsWithin(channel: string, ms: number): Promise<number> {
    if (this.unlimited) return Number.POSITIVE_INFINITY;
    const backlogUs = await slotBacklogUs(this.redis, upstreamQueryKey(this.prefix, channel));
    return Math.max(0, Math.floor((ms * 1000 - backlogUs) / this.intervalUs));
  }

  /** How long `slots` evenly spaced query slots of one channel take (0 without a limit). */
  msForSlots(slots: number): number {
    return (slots * this.intervalUs) / 1000;
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
