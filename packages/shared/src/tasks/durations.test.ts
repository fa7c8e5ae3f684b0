import type { RedisClient } from '../queue/connection';
import { createRedis } from '../queue/connection';
import { testQueuePrefix, testServiceUrls } from '../testing';
import { summarize, TaskDurations } from './durations';

let redis: RedisClient;
beforeAll(async () => {
  redis = createRedis((await testServiceUrls()).redisUrl, 'producer');
});
afterAll(() => redis.quit());

describe('summarize', () => {
  it('reads quantiles and the mean from the histogram', () => {
    const s = summarize({ n: '4', b10: '2', b20: '2' }, 1_000)!;
    expect(s.samples).toBe(4);
    expect(s.meanMs).toBe(15_500);
    expect(s.quantileMs(0)).toBe(10_000);
    expect(s.quantileMs(0.5)).toBe(11_000);
    expect(s.quantileMs(1)).toBe(21_000);
    expect(summarize({ n: '0' }, 1_000)).toBeNull();
    expect(summarize({ b1: '2' }, 1_000, 5)).toBeNull();
  });
});

describe('TaskDurations', () => {
  it('learns per model from recorded durations, shared through Redis', async () => {
    const prefix = testQueuePrefix();
    const writer = new TaskDurations(redis, prefix);
    const reader = new TaskDurations(redis, prefix, { cacheMs: 0 });
    expect(await reader.summary('m')).toBeNull();
    for (let s = 30; s <= 180; s++) await writer.record('m', s * 1_000);
    await writer.record('other', 5_000);
    const m = (await reader.summary('m'))!;
    expect(m.samples).toBe(151);
    expect(m.quantileMs(0.5)).toBeGreaterThan(100_000);
    expect(m.quantileMs(0.5)).toBeLessThan(110_000);
    expect(m.meanMs).toBeCloseTo(105_500, -3);
    expect(await reader.summary('other')).toBeNull(); // under 5 samples
  });

  it('halves old samples past maxSamples, so a changed upstream shows quickly', async () => {
    const d = new TaskDurations(redis, testQueuePrefix(), { maxSamples: 100, cacheMs: 0 });
    for (let i = 0; i < 100; i++) await d.record('m', 60_000);
    for (let i = 0; i < 100; i++) await d.record('m', 10_000);
    const s = (await d.summary('m'))!;
    expect(s.samples).toBeLessThanOrEqual(100);
    expect(s.quantileMs(0.5)).toBeLessThan(11_000);
  });

  it('caches a summary for cacheMs and peeks without waiting', async () => {
    const prefix = testQueuePrefix();
    const d = new TaskDurations(redis, prefix, { cacheMs: 60_000, minSamples: 1 });
    expect(d.peek('m')).toBeUndefined();
    await d.summary('m');
    expect(d.peek('m')).toBeNull();
    await new TaskDurations(redis, prefix).record('m', 1_000);
    expect(await d.summary('m')).toBeNull(); // still the cached answer
    d.forget();
    expect((await d.summary('m'))?.samples).toBe(1);
    expect(d.peek('m')?.samples).toBe(1);
  });

  it('ignores impossible durations', async () => {
    const d = new TaskDurations(redis, testQueuePrefix(), { minSamples: 1, cacheMs: 0 });
    await d.record('m', -5);
    await d.record('m', Number.NaN);
    expect(await d.summary('m')).toBeNull();
  });
});

describe('estimates and events', () => {
  it('reads the fraction finished within a duration', () => {
    const s = summarize({ b10: '2', b20: '2' }, 1_000)!;
    expect(s.cdf(5_000)).toBe(0);
    expect(s.cdf(10_500)).toBe(0.25);
    expect(s.cdf(15_000)).toBe(0.5);
    expect(s.cdf(30_000)).toBe(1);
  });
});
