import { randomUUID } from 'node:crypto';
import { createLogger } from '@mediagate/shared/log';
import { createRedis, type RedisClient } from '@mediagate/shared/queue';
import { testServiceUrls, waitFor } from '@mediagate/shared/testing';
import type { Response } from 'express';
import { LeasedWindows } from './rate-lease';
import { RateLimits } from './rate-limit';

/** Two replicas' counters over one real Redis, each window under a key of this file's own. */
let redis: RedisClient;
const prefix = `rl:test-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  redis = createRedis((await testServiceUrls()).redisUrl, 'producer');
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** Counts the scripts a replica runs (its round trips for the window). */
function counted(client: RedisClient): { client: RedisClient; trips: () => number } {
  let trips = 0;
  const original = client.eval.bind(client);
  const wrapped = Object.create(client) as RedisClient;
  wrapped.eval = ((...args: Parameters<typeof original>) => {
    trips += 1;
    return original(...args);
  }) as typeof client.eval;
  return { client: wrapped, trips: () => trips };
}

describe('leased request windows', () => {
  it('takes a request at a time near the limit: exact counts and remaining, refused past the limit', async () => {
    const key = `${prefix}:one-at-a-time`;
    const windows = new LeasedWindows(redis);
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await windows.consume(key, 3, 60_000));
    expect(seen.map((o) => [o.allowed, o.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    const refused = await windows.consume(key, 3, 60_000);
    expect(refused.allowed).toBe(false);
    expect(refused.msBeforeReset).toBeGreaterThan(50_000);
    expect(await redis.get(key)).toBe('3');
  });

  it('serves a busy key in leases: far fewer round trips than requests, never more than the limit', async () => {
    const key = `${prefix}:busy`;
    const replica = counted(redis);
    const windows = new LeasedWindows(replica.client);
    const outcomes = [];
    // 200 requests arriving 20 at a time (a key making 400 requests a second)
    for (let batch = 0; batch < 10; batch++) {
      outcomes.push(
        ...(await Promise.all(Array.from({ length: 20 }, () => windows.consume(key, 1_000_000, 60_000)))),
      );
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(outcomes.every((o) => o.allowed)).toBe(true);
    expect(replica.trips()).toBeLessThan(40);
    // what the replica took covers what it admitted, and no more than a lease beyond it
    const count = Number(await redis.get(key));
    expect(count).toBeGreaterThanOrEqual(200);
    expect(count).toBeLessThanOrEqual(200 + 64);
  });

  it('shares one window between replicas: together they admit the limit exactly', async () => {
    const key = `${prefix}:shared`;
    const a = new LeasedWindows(redis);
    const b = new LeasedWindows(redis);
    let admitted = 0;
    let refusedA = false;
    let refusedB = false;
    // both replicas keep calling, in bursts, until each is refused
    while (!refusedA || !refusedB) {
      const burst = await Promise.all([
        ...Array.from({ length: 10 }, () => a.consume(key, 500, 60_000).then((o) => ['a', o] as const)),
        ...Array.from({ length: 10 }, () => b.consume(key, 500, 60_000).then((o) => ['b', o] as const)),
      ]);
      for (const [who, o] of burst) {
        if (o.allowed) admitted += 1;
        else if (who === 'a') refusedA = true;
        else refusedB = true;
      }
    }
    expect(admitted).toBe(500);
    expect(await redis.get(key)).toBe('500');
  });

  it('refuses a full window in memory until it ends, then counts the next one', async () => {
    const key = `${prefix}:rollover`;
    const replica = counted(redis);
    const windows = new LeasedWindows(replica.client);
    expect((await windows.consume(key, 1, 1_000)).allowed).toBe(true);
    const trips = replica.trips();
    expect((await windows.consume(key, 1, 1_000)).allowed).toBe(false);
    expect((await windows.consume(key, 1, 1_000)).allowed).toBe(false);
    // a full window's count cannot fall: no round trip to refuse
    expect(replica.trips()).toBe(trips);
    // a raised limit (an operator's change) is asked of Redis
    expect((await windows.consume(key, 2, 1_000)).allowed).toBe(true);
    await waitFor(async () => (await windows.consume(key, 2, 1_000)).allowed, {
      timeoutMs: 5_000,
      intervalMs: 100,
      what: 'the next window',
    });
  });

  it('rejects the waiting requests when Redis fails, and counts again once it answers', async () => {
    const key = `${prefix}:failing`;
    let failing = true;
    const original = redis.eval.bind(redis);
    const flaky = Object.create(redis) as RedisClient;
    flaky.eval = ((...args: Parameters<typeof original>) =>
      failing ? Promise.reject(new Error('connection lost')) : original(...args)) as typeof redis.eval;
    const windows = new LeasedWindows(flaky);
    const results = await Promise.allSettled([
      windows.consume(key, 10, 60_000),
      windows.consume(key, 10, 60_000),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    failing = false;
    expect((await windows.consume(key, 10, 60_000)).allowed).toBe(true);
  });
});

describe('per-minute limits when Redis fails', () => {
  it('counts in memory a request whose count Redis refused to take, and still refuses past the limit', async () => {
    const flaky = Object.create(redis) as RedisClient;
    flaky.eval = (() => Promise.reject(new Error('connection lost'))) as typeof redis.eval;
    const limits = new RateLimits(
      flaky,
      {
        prefix: prefix.slice('rl:'.length),
        perKeyRpm: 2,
        consoleRpm: 2,
        authPerEmail: 5,
        authPerIp: 5,
        authWindowSeconds: 60,
        loginBackoffMaxSeconds: 60,
      },
      createLogger({ service: 'test', level: 'silent' }),
    );
    const headers = new Map<string, string>();
    const res = { setHeader: (k: string, v: string) => headers.set(k, v) } as unknown as Response;
    await limits.perMinute(res, 'key', 'key_flaky', 2);
    await limits.perMinute(res, 'key', 'key_flaky', 2);
    expect(headers.get('x-ratelimit-remaining')).toBe('0');
    await expect(limits.perMinute(res, 'key', 'key_flaky', 2)).rejects.toMatchObject({
      code: 'rate_limit_exceeded',
    });
  });
});
