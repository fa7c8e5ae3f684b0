import { createRedis, type RedisClient } from '@mediagate/shared/queue';
import { startRedisServer, testQueuePrefix, testServiceUrls } from '@mediagate/shared/testing';
import { spacingOf, UpstreamLimiter } from './upstream-limiter';

let redis: RedisClient;
beforeAll(async () => {
  redis = createRedis((await testServiceUrls()).redisUrl, 'worker');
});
afterAll(() => redis.disconnect());

/** The most calls any sliding second [t, t + 1000) holds, `times` in ms sorted. */
function busiestSecond(times: number[]): number {
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j]! - times[i]! >= 1_000) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/**
 * `callers` loops that each take a submit slot and record when it was granted, as many worker
 * processes would (every caller has a limiter and a connection of its own), until `until()`.
 * `onTime`: the calls that went at their slot. `late`: those a caller too slow to keep any slot
 * sent anyway after leaving three slots unused (the limiter's "no starving" rule: a process that
 * overloaded may send late, and only then may a sliding second hold more than the limit).
 */
async function hammer(
  url: string,
  prefix: string,
  perSecond: number,
  callers: number,
  until: () => boolean,
): Promise<{ onTime: number[]; late: number[] }> {
  const onTime: number[] = [];
  const late: number[] = [];
  const connections = Array.from({ length: callers }, () => createRedis(url, 'worker'));
  try {
    await Promise.all(
      connections.map(async (c) => {
        let unused = 0;
        const limiter = new UpstreamLimiter(
          c,
          prefix,
          { submitPerSecond: perSecond, pollPerSecond: 0 },
          { onLateSlot: () => (unused += 1) },
        );
        while (!until()) {
          const before = unused;
          const wait = await limiter.take('submit', 'ch');
          if (wait === 0) (unused - before === 3 ? late : onTime).push(performance.now());
          else await new Promise((r) => setTimeout(r, Math.min(wait, 50)));
        }
      }),
    );
  } finally {
    for (const c of connections) c.disconnect();
  }
  return { onTime: onTime.sort((a, b) => a - b), late: late.sort((a, b) => a - b) };
}

describe('UpstreamLimiter', () => {
  it('spaces calls so that N + 1 of them, the first one late by the whole tolerance, span a second', () => {
    for (const n of [1, 3, 10, 40, 50, 400]) {
      const s = spacingOf(n)!;
      expect(n * s.intervalUs - s.toleranceUs).toBeGreaterThanOrEqual(1_000_000);
      // and costs little of the limit: at least 95 % of N per second
      expect(1_000_000 / s.intervalUs).toBeGreaterThanOrEqual(n * 0.95);
    }
  });

  it('never lets more than the limit through in any sliding second, fleet-wide, and keeps close to it', async () => {
    const prefix = testQueuePrefix();
    const t0 = performance.now();
    const { onTime, late } = await hammer(
      (await testServiceUrls()).redisUrl,
      prefix,
      20,
      6,
      () => performance.now() - t0 > 3_500,
    );
    expect(busiestSecond(onTime)).toBeLessThanOrEqual(20);
    // no starving: 3.5 s at 20/s is about 70; a loaded machine leaves slots unused (late waits)
    expect(onTime.length + late.length).toBeGreaterThanOrEqual(30);
  });

  it('holds in every sliding second across a Redis outage, right after Redis returns included', async () => {
    const server = await startRedisServer();
    try {
      const prefix = testQueuePrefix();
      let stopAt = Number.POSITIVE_INFINITY;
      const running = hammer(server.url, prefix, 25, 8, () => performance.now() > stopAt);
      await new Promise((r) => setTimeout(r, 1_500));
      await server.stop('SIGKILL');
      await new Promise((r) => setTimeout(r, 1_500));
      const back = performance.now();
      await server.start();
      stopAt = performance.now() + 3_000;
      const { onTime, late } = await running;
      const after = [...onTime, ...late].filter((t) => t >= back);
      expect(after.length).toBeGreaterThan(25);
      expect(busiestSecond(onTime)).toBeLessThanOrEqual(25);
    } finally {
      await server.stop('SIGKILL');
    }
  });

  it('keeps separate budgets per channel and per kind, and says how long to wait when no slot is near', async () => {
    const prefix = testQueuePrefix();
    const unused: string[] = [];
    const a = new UpstreamLimiter(
      redis,
      prefix,
      { submitPerSecond: 2, pollPerSecond: 20 },
      { maxWaitMs: 0, onLateSlot: (kind, channel) => unused.push(`${kind}:${channel}`) },
    );
    // A budget's first slot is free at once: the call goes (0), or, when Redis's answer came more
    // than the tolerance late (a loaded machine), that slot was reserved and left unused, and the
    // next one, more than maxWaitMs away, is answered as a wait. A budget shared with another
    // channel or kind has no free slot: it answers a wait without reserving, so no slot is left unused.
    const freeAtOnce = async (kind: 'submit' | 'poll', channel: string) => {
      const before = unused.length;
      const wait = await a.take(kind, channel);
      expect(wait === 0 || unused.slice(before).includes(`${kind}:${channel}`)).toBe(true);
    };
    const first = performance.now();
    await freeAtOnce('submit', 'ch');
    // the next slot is 500 ms after the first (less the tolerance): the wait is what is left of that
    const before = unused.length;
    const wait = await a.take('submit', 'ch');
    expect(wait).toBeGreaterThan(450 - (performance.now() - first) - 60);
    expect(wait).toBeLessThanOrEqual(550);
    expect(unused.length).toBe(before);
    await freeAtOnce('submit', 'other');
    await freeAtOnce('poll', 'ch');
  });

  it('leaves a slot whose wait ended late unused, and sends anyway after three (no starving)', async () => {
    const prefix = testQueuePrefix();
    const unused: string[] = [];
    const late = new UpstreamLimiter(
      redis,
      prefix,
      { submitPerSecond: 2, pollPerSecond: 0 },
      {
        sleep: (ms) => new Promise((r) => setTimeout(r, ms + 200)),
        onLateSlot: (kind, channel) => unused.push(`${kind}:${channel}`),
      },
    );
    // the first slot is now (no sleep); the next ones (525 ms apart) are waited for, and every wait
    // ends 200 ms late: three slots are left unused, then the call goes
    // (the first slot, free at once, is left unused too when Redis answers it more than the
    // tolerance late, as on a loaded machine; that call goes all the same)
    expect(await late.take('submit', 'ch')).toBe(0);
    const first = unused.length;
    expect(first).toBeLessThanOrEqual(3);
    expect(await late.take('submit', 'ch')).toBe(0);
    expect(unused.slice(first)).toEqual(['submit:ch', 'submit:ch', 'submit:ch']);
  });

  it('never waits when unlimited', async () => {
    const l = new UpstreamLimiter(redis, testQueuePrefix(), { submitPerSecond: 0, pollPerSecond: 0 });
    const waits = await Promise.all(Array.from({ length: 50 }, () => l.take('submit', 'x')));
    expect(waits.every((w) => w === 0)).toBe(true);
  });
});
