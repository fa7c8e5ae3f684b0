import { ChannelPool, createLogger, DashScopeVideoClient, getTask, TaskDurations } from '@mediagate/shared';
import { waitFor } from '@mediagate/shared/testing';
import { type Sim, simChannel, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';
import { PollBudget } from './poll-budget';
import { type AdaptivePollConfig, AdaptivePollScheduler } from './poll-scheduler';
import { createPollSweeper } from './poll-sweeper';

let sim: Sim;
let h: WorkerHarness;

beforeAll(async () => {
  // every task runs 1.5 to 2.5 s upstream; the sim enforces 20 queries per second
  sim = await startSim({
    SIM_VIDEO_PENDING_MS: '0',
    SIM_VIDEO_RUNNING_MS: '1500-2500',
    SIM_DASHSCOPE_QUERY_QPS: '20',
  });
  h = await startWorkerHarness(sim);
});
afterAll(async () => {
  await h?.close();
  await sim?.stop();
});

const logger = createLogger({ service: 'worker-test', level: 'silent' });
const finished = (ids: string[]) =>
  waitFor(
    async () => {
      const rows = await Promise.all(ids.map((id) => getTask(h.database.db, id)));
      return rows.every((r) => r?.status === 'succeeded') ? rows.map((r) => r!) : null;
    },
    { what: 'every task to succeed', timeoutMs: 30_000 },
  );

describe('adaptive polling against the simulator', () => {
  const budget = () =>
    new PollBudget(h.redis, h.prefix, { queriesPerSecond: 20, plannedShare: 0.5, headroom: 0.05 });
  const durations = () => new TaskDurations(h.redis, h.prefix, { cacheMs: 0 });
  const plan: AdaptivePollConfig = {
    fallbackMs: 60_000,
    minIntervalMs: 100,
    maxIntervalMs: 60_000,
    pollsPerSpread: 4,
    firstQuantile: 0.95,
    maxAdmitWaitMs: 5_000,
  };

  it('finds finished tasks with the batch query and runs their jobs at once, within the query limit', async () => {
    const b = budget();
    const worker = h.startWorker({ polls: new AdaptivePollScheduler(b, durations(), plan, logger) });
    const sweeper = createPollSweeper({
      database: h.database,
      redis: h.redis,
      queue: h.queue,
      client: new DashScopeVideoClient(h.agent),
      channels: new ChannelPool([simChannel('sim', sim)], { failureThreshold: 5, cooldownMs: 100 }),
      budget: b,
      logger,
      config: { intervalMs: 200, pageSize: 100, maxPages: 10, prefix: h.prefix },
    });
    sweeper.start();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await h.createTask());
      const rows = await finished(ids);
      // without the sweep, the first planned poll would come a minute after the submission
      for (const row of rows)
        expect(row.completedAt!.getTime() - row.submitStartedAt!.getTime()).toBeLessThan(10_000);
      const stats = (await sim.stats()).video;
      expect(stats.query_throttled).toBe(0);
      expect(stats.listed).toBeGreaterThan(0);
      // one query per task for its result, and no planned polls
      expect(stats.queried).toBe(20);
      // the durations were learned from the vendor's own times
      const learned = await durations().summary('wan2.6-i2v-flash-5s-720p');
      expect(learned?.samples).toBe(20);
      expect(learned!.quantileMs(0.05)).toBeGreaterThanOrEqual(1_000);
      expect(learned!.quantileMs(0.95)).toBeLessThanOrEqual(3_000);
    } finally {
      await sweeper.stop();
      await worker.close();
    }
  });

  it('without the batch query, polls each task near its learned completion time', async () => {
    await sim.control('POST', '/reset');
    // durations learned by the previous test: 1.5 to 2.5 s
    h.startWorker({
      polls: new AdaptivePollScheduler(budget(), durations(), { ...plan, firstQuantile: 0.05 }, logger),
    });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await h.createTask());
    const rows = await finished(ids);
    for (const row of rows)
      expect(row.completedAt!.getTime() - row.submitStartedAt!.getTime()).toBeLessThan(10_000);
    const stats = (await sim.stats()).video;
    expect(stats.query_throttled).toBe(0);
    expect(stats.listed).toBe(0);
    // a fixed 100 ms poller would spend about 20 queries per task here
    expect(stats.queried / ids.length).toBeLessThanOrEqual(6);
  });
});
