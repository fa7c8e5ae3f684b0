import { createMetrics, type Metrics } from '@mediagate/shared/metrics';
import { createRedis, type RedisClient, redisKey, redisKeyGroup } from '@mediagate/shared/queue';
import { testQueuePrefix, testServiceUrls } from '@mediagate/shared/testing';
import { PollBudget } from './poll-budget';

/** the slots counted as left unused, by channel */
const lateSlots = async (metrics: Metrics) =>
  (await metrics.upstreamLateSlots.get()).values.map((v) => [v.labels.channel, v.value]);

let redis: RedisClient;
beforeAll(async () => {
  redis = createRedis((await testServiceUrls()).redisUrl, 'worker');
});
afterAll(() => redis.quit());

describe('PollBudget.acquire (every query, fleet-wide)', () => {
  it('spaces queries so that no sliding second holds more than the limit', async () => {
    const prefix = testQueuePrefix();
    // two "workers" sharing the budget through Redis
    const a = new PollBudget(redis, prefix, { queriesPerSecond: 10, plannedShare: 1, headroom: 0.05 });
    const b = new PollBudget(redis, prefix, { queriesPerSecond: 10, plannedShare: 1, headroom: 0.05 });
    const slots = await Promise.all(
      Array.from({ length: 25 }, (_, i) => (i % 2 ? a : b).reserve('ch', 5_000)),
    );
    const times = slots.map((s) => s.slotUs).sort((x, y) => x - y);
    expect(slots.every((s) => s.waitUs >= 0)).toBe(true);
    // on Redis's clock every slot comes at least 1 / (10 x 0.95) s after the previous one: any 11 span over a second
    for (let i = 1; i < times.length; i++) {
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(Math.ceil(1_000_000 / 9.5));
    }
    for (let i = 10; i < times.length; i++) expect(times[i]! - times[i - 10]!).toBeGreaterThan(1_000_000);
  });

  it('leaves a slot its wait overslept unused and takes the next one, so no query goes out late', async () => {
    const prefix = testQueuePrefix();
    const config = { queriesPerSecond: 2, plannedShare: 1, headroom: 0 };
    // 500 ms slots; the first wait of the late budget ends 400 ms after its slot (more than half a slot)
    let oversleep = 400;
    const metrics = createMetrics({ service: 'poll-budget-test', defaultMetrics: false });
    const late = new PollBudget(redis, prefix, config, {
      sleep: async (ms) => {
        await new Promise((r) => setTimeout(r, ms + oversleep));
        oversleep = 0;
      },
      metrics,
    });
    const onTime = new PollBudget(redis, prefix, config);
    expect(await onTime.acquire('ch', 5_000)).toBe(0);
    expect(await late.acquire('ch', 5_000)).toBe(0);
    // the overslept slot left unused (and, on a machine so busy that a wake comes 250 ms late,
    // any retaken one that was late too)
    const [[channel, left]] = (await lateSlots(metrics)) as [[string, number]];
    expect(channel).toBe('ch');
    expect(left).toBeGreaterThanOrEqual(1);
    // the slots taken on the shared calendar: the on-time one, those left unused, the one kept;
    // the next free slot comes after them
    const next = await onTime.reserve('ch', 5_000);
    expect(next.waitUs).toBeGreaterThan(0);
    const first =
      Number(await redis.get(redisKey(prefix, 'upstream-query-tat', 'ch'))) - (left + 3) * 500_000;
    expect(next.slotUs - first).toBe((left + 2) * 500_000);
  });

  it('never sends late: when no slot can be kept within maxWaitMs it sends nothing and answers a wait', async () => {
    const metrics = createMetrics({ service: 'poll-budget-test', defaultMetrics: false });
    const budget = new PollBudget(
      redis,
      testQueuePrefix(),
      // slots 500 ms apart, so every later acquire waits (unless the test itself lags 500 ms),
      // and every wait overslept by 300 ms: more than half a slot late
      { queriesPerSecond: 2, plannedShare: 1, headroom: 0 },
      { sleep: (ms) => new Promise((r) => setTimeout(r, ms + 300)), metrics },
    );
    // the first acquire waits nothing (its slot is now)
    expect(await budget.acquire('ch', 2_000)).toBe(0);
    // each later one oversleeps every wait: it leaves each slot unused until 2 s have passed, and
    // then sends nothing
    const began = performance.now();
    const wait = await budget.acquire('ch', 2_000);
    expect(performance.now() - began).toBeGreaterThanOrEqual(2_000);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(500);
    // a slot every 500 ms: 3 or 4 in 2 s (fewer only when the machine stalls the test for seconds)
    const [[channel, late]] = (await lateSlots(metrics)) as [[string, number]];
    expect(channel).toBe('ch');
    expect(late).toBeGreaterThanOrEqual(1);
  });

  it('counts a slow answer from Redis as lateness: the slot may have passed before the answer came', async () => {
    // answers come at once, except every fourth, which arrives 300 ms after Redis took the slot (a
    // busy event loop, a long GC): not the usual round trip, so it counts
    let answers = 0;
    const slow = new Proxy(redis, {
      get(target, prop, receiver) {
        if (prop !== 'eval') return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          const answer = await (target.eval as (...a: unknown[]) => Promise<unknown>)(...args);
          answers += 1;
          if (answers % 4 === 0) await new Promise((r) => setTimeout(r, 300));
          return answer;
        };
      },
    });
    const metrics = createMetrics({ service: 'poll-budget-test', defaultMetrics: false });
    const budget = new PollBudget(
      slow,
      testQueuePrefix(),
      { queriesPerSecond: 20, plannedShare: 1, headroom: 0, toleranceMs: 50 },
      { metrics },
    );
    for (let i = 0; i < 12; i++) expect(await budget.acquire('ch', 2_000)).toBe(0);
    // the slots whose answers came late were left unused, and the call took the next one
    expect((await lateSlots(metrics))[0]?.[1]).toBeGreaterThanOrEqual(3);
  });

  it('still sends when every answer from Redis comes 60 ms late (a Redis further away): that round trip is not lateness', async () => {
    const far = new Proxy(redis, {
      get(target, prop, receiver) {
        if (prop !== 'eval') return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          const answer = await (target.eval as (...a: unknown[]) => Promise<unknown>)(...args);
          await new Promise((r) => setTimeout(r, 60));
          return answer;
        };
      },
    });
    const budget = new PollBudget(far, testQueuePrefix(), {
      queriesPerSecond: 10,
      plannedShare: 1,
      headroom: 0.15,
      toleranceMs: 50,
    });
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push(await budget.acquire('ch', 2_000));
    // the first reservations, before their round trips are known, may be left unused; then each call sends
    expect(answers.slice(1)).toEqual([0, 0, 0, 0]);
  });

  it('waits for its slot before answering', async () => {
    const budget = new PollBudget(redis, testQueuePrefix(), {
      queriesPerSecond: 10,
      plannedShare: 1,
      headroom: 0,
    });
    const start = performance.now();
    for (let i = 0; i < 6; i++) expect(await budget.acquire('ch', 5_000)).toBe(0);
    // the 6th slot is 500 ms after the first
    expect(performance.now() - start).toBeGreaterThanOrEqual(490);
  });

  it('does not wait for a slot beyond maxWaitMs: it answers the wait and reserves nothing', async () => {
    const prefix = testQueuePrefix();
    const budget = new PollBudget(redis, prefix, { queriesPerSecond: 2, plannedShare: 1, headroom: 0 });
    const first = performance.now();
    expect(await budget.acquire('ch', 0)).toBe(0);
    // the next slot is 500 ms after the first: the wait is what is left of that (however slow the calls)
    const wait = await budget.acquire('ch', 100);
    expect(wait).toBeGreaterThan(500 - (performance.now() - first) - 60);
    expect(wait).toBeLessThanOrEqual(500);
    // nothing was reserved: the next slot is still 500 ms after the first
    const again = await budget.acquire('ch', 100);
    expect(again).toBeGreaterThan(500 - (performance.now() - first) - 60);
    expect(again).toBeLessThanOrEqual(wait);
    // another channel has its own budget
    expect(await budget.acquire('other', 0)).toBe(0);
  });

  it('costs no Redis call when unlimited', async () => {
    const budget = new PollBudget(redis, testQueuePrefix(), {
      queriesPerSecond: 0,
      plannedShare: 1,
      headroom: 0,
    });
    expect(budget.unlimited).toBe(true);
    expect(await budget.acquire('ch', 0)).toBe(0);
    expect(await budget.book('ch', 1234, 60_000)).toBe(1234);
  });
});

describe('PollBudget.book (planned polls, the fairness bound)', () => {
  it('books at the wanted time while the second has room', async () => {
    const budget = new PollBudget(redis, testQueuePrefix(), {
      queriesPerSecond: 20,
      plannedShare: 0.5,
      headroom: 0,
    });
    const delay = await budget.book('ch', 5_000, 60_000);
    expect(delay).toBeGreaterThanOrEqual(4_990);
    expect(delay).toBeLessThan(6_000);
  });

  it('keeps planned polls under their share per second and serves them in order, none starved', async () => {
    // 10 planned polls per second; 100 tasks all wanting a poll now
    const budget = new PollBudget(redis, testQueuePrefix(), {
      queriesPerSecond: 20,
      plannedShare: 0.5,
      headroom: 0,
    });
    const prefix = (budget as unknown as { prefix: string }).prefix;
    // each booking's slot lies within [before + delay, after + delay] on this machine's clock
    const slots: Array<{ earliest: number; latest: number }> = [];
    for (let i = 0; i < 100; i++) {
      const before = Date.now();
      const delay = await budget.book('ch', 0, 60_000);
      slots.push({ earliest: before + delay, latest: Date.now() + delay });
    }
    // no calendar second holds more than its 10 planned polls
    const keys = await redis.keys(`${redisKeyGroup(prefix, 'upstream-poll-calendar', 'ch')}:*`);
    expect(keys.length).toBeGreaterThanOrEqual(10);
    for (const key of keys) expect(Number(await redis.get(key))).toBeLessThanOrEqual(10);
    // later bookings never come before earlier ones (FIFO)
    for (let i = 1; i < slots.length; i++)
      expect(slots[i]!.latest + 2).toBeGreaterThanOrEqual(slots[i - 1]!.earliest);
    // all 100 fit in about 10 s from the first (or as long as the bookings themselves took)
    const took = slots[99]!.latest - slots[99]!.earliest;
    expect(slots[99]!.earliest - slots[0]!.earliest).toBeLessThanOrEqual(11_000 + took);
  });

  it('bounds every task’s interval when the tasks fit the planned budget', async () => {
    // 50 tasks re-planning every 5 s at most, 10 planned polls per second: each task's next poll is
    // booked within its wanted time plus what the tasks ahead of it take (50 / 10 = 5 s)
    const budget = new PollBudget(redis, testQueuePrefix(), {
      queriesPerSecond: 20,
      plannedShare: 0.5,
      headroom: 0,
    });
    const maxIntervalMs = 5_000;
    let worst = 0;
    for (let round = 0; round < 3; round++) {
      for (let task = 0; task < 50; task++) {
        worst = Math.max(worst, await budget.book('ch', maxIntervalMs, maxIntervalMs));
      }
    }
    expect(worst).toBeLessThanOrEqual(maxIntervalMs + (50 / 10) * 1_000 + 1_000);
  });
});
