import { createRedis, type RedisClient } from '@mediagate/shared/queue';
import { testQueuePrefix, testServiceUrls } from '@mediagate/shared/testing';
import { UpstreamLimiter } from './upstream-limiter';

let redis: RedisClient;
beforeAll(async () => {
  redis = createRedis((await testServiceUrls()).redisUrl, 'worker');
});
afterAll(() => redis.disconnect());

describe('UpstreamLimiter', () => {
  it('lets the configured number of calls per second through, fleet-wide, then says how long to wait', async () => {
    const prefix = testQueuePrefix();
    // two limiters on one Redis stand for two worker processes
    const a = new UpstreamLimiter(redis, prefix, { submitPerSecond: 5, pollPerSecond: 20 });
    const b = new UpstreamLimiter(redis, prefix, { submitPerSecond: 5, pollPerSecond: 20 });
    const waits = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).take('submit', 'ch')),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(5);
    for (const w of waits.filter((w) => w > 0)) expect(w).toBeLessThanOrEqual(1_000);
    // separate budgets per channel and per kind
    expect(await a.take('submit', 'other')).toBe(0);
    expect(await a.take('poll', 'ch')).toBe(0);
  });

  it('never waits when unlimited', async () => {
    const l = new UpstreamLimiter(redis, testQueuePrefix(), { submitPerSecond: 0, pollPerSecond: 0 });
    const waits = await Promise.all(Array.from({ length: 50 }, () => l.take('submit', 'x')));
    expect(waits.every((w) => w === 0)).toBe(true);
  });
});
