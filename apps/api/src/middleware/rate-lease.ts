import { LruCache } from '@mediagate/shared/lru';
import type { RedisClient } from '@mediagate/shared/queue';

/** What one counted request learnt of its window. */
export interface WindowOutcome {
  allowed: boolean;
  /** requests left in the window, as far as this replica knows */
  remaining: number;
  msBeforeReset: number;
}

/**
 * Takes up to `want` requests of a fixed window at once, and at least the `need` waiting (while
 * the window has room). The counter is the one rate-limiter-flexible keeps (an integer expiring
 * with its window), so replicas of either kind count together. What is taken beyond `need` is at
 * most an eighth of the room left: near the limit every request is taken alone, exactly as it
 * comes. Nothing is counted once the window is full. Returns {taken, count after, ms left}.
 */
const TAKE_SCRIPT = `
local limit = tonumber(ARGV[1])
local need = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local ttl = redis.call('PTTL', KEYS[1])
local count = 0
if ttl >= 0 then count = tonumber(redis.call('GET', KEYS[1]) or '0') end
local room = limit - count
if room <= 0 then return {0, count, ttl} end
local taken = math.min(room, math.max(need, math.min(want, math.floor(room / 8))))
if ttl < 0 then
  ttl = tonumber(ARGV[2])
  redis.call('SET', KEYS[1], taken, 'PX', ttl)
else
  redis.call('INCRBY', KEYS[1], taken)
end
return {taken, count + taken, ttl}
`;

/** how far back a replica looks to size what it takes: a lease covers about this much traffic */
const SPAN_MS = 250;
/** the most requests taken in one round trip */
const MAX_LEASE = 64;

interface Window {
  /** requests taken from Redis and not used yet; void once the window ends */
  left: number;
  /** the window's count in Redis after this replica's last take */
  count: number;
  /** the limit the count was last compared with (a per-account limit may change) */
  limit: number;
  endsAt: number;
  spanStart: number;
  spanCalls: number;
  lastSpanCalls: number;
  waiting: Array<{ resolve: (o: WindowOutcome) => void; reject: (err: unknown) => void }>;
  taking: boolean;
}

/**
 * Fixed-window request counters in Redis, shared by every replica, counted with a lease: a replica
 * takes from the window's counter as many requests as it has been receiving in about a quarter of a
 * second (at most 64, and at most an eighth of what the window has left) in one round trip, then
 * counts them down in memory. A busy key costs a round trip per lease instead of one per request,
 * and a request that finds the lease in hand waits for nothing. Near the limit, or for a key
 * making a request at a time, every request is its own round trip, as without the lease. Requests
 * taken and not used when the window ends are lost, so another replica may be refused up to a
 * quarter of a second's worth of this replica's traffic early; more than the limit is never
 * admitted. A full window refuses in memory until it ends (its count cannot fall). Requests that
 * arrive while a take is on its way wait for it and go together in the next one.
 */
export class LeasedWindows {
  private readonly windows = new LruCache<string, Window>(10_000);

  constructor(
    private readonly redis: RedisClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of the window `key` (`limit` per `windowMs`). Rejects when Redis does. */
  consume(key: string, limit: number, windowMs: number): Promise<WindowOutcome> {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w) {
      w = {
        left: 0,
        count: 0,
        limit,
        endsAt: 0,
        spanStart: now,
        spanCalls: 0,
        lastSpanCalls: 0,
        waiting: [],
        taking: false,
      };
      this.windows.set(key, w);
    }
    if (now - w.spanStart >= SPAN_MS) {
      w.lastSpanCalls = now - w.spanStart < 2 * SPAN_MS ? w.spanCalls : 0;
      w.spanStart = now;
      w.spanCalls = 0;
    }
    w.spanCalls += 1;
    if (now >= w.endsAt) {
      w.left = 0;
      w.count = 0;
    } else if (w.left > 0 && w.waiting.length === 0) {
      w.left -= 1;
      return Promise.resolve(this.outcome(w, limit, true, now));
    } else if (w.left === 0 && w.count >= limit && w.limit === limit) {
      return Promise.resolve(this.outcome(w, limit, false, now));
    }
    const window = w;
    return new Promise((resolve, reject) => {
      window.waiting.push({ resolve, reject });
      if (!window.taking) this.take(key, window, limit, windowMs);
    });
  }

  private outcome(w: Window, limit: number, allowed: boolean, now: number): WindowOutcome {
    return {
      allowed,
      remaining: allowed ? Math.max(0, limit - w.count + w.left) : 0,
      msBeforeReset: Math.max(0, w.endsAt - now),
    };
  }

  private take(key: string, w: Window, limit: number, windowMs: number): void {
    w.taking = true;
    const need = w.waiting.length;
    const want = Math.min(MAX_LEASE, Math.max(need, w.spanCalls, w.lastSpanCalls));
    this.redis.eval(TAKE_SCRIPT, 1, key, limit, windowMs, need, want).then(
      (reply) => {
        const [taken, count, ttl] = (reply as [number, number, number]).map(Number) as [
          number,
          number,
          number,
        ];
        const now = this.now();
        w.taking = false;
        w.left = taken;
        w.count = count;
        w.limit = limit;
        w.endsAt = now + ttl;
        const served = w.waiting.splice(0, Math.min(taken, w.waiting.length));
        w.left -= served.length;
        for (const s of served) s.resolve(this.outcome(w, limit, true, now));
        if (w.waiting.length === 0) return;
        if (taken < need) {
          // the window is full: every request still waiting is over the limit
          const refused = w.waiting.splice(0);
          for (const r of refused) r.resolve(this.outcome(w, limit, false, now));
        } else {
          this.take(key, w, limit, windowMs); // those that arrived while this take was on its way
        }
      },
      (err: unknown) => {
        w.taking = false;
        const failed = w.waiting.splice(0);
        for (const f of failed) f.reject(err);
      },
    );
  }
}
