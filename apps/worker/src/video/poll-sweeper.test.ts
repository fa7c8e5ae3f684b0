import { getTask, TaskDurations } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';

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

const finished = (ids: string[]) =>
  waitFor(
    async () => {
      const rows = await Promise.all(ids.map((id) => getTask(h.database.db, id)));
      return rows.every((r) => r?.status === 'succeeded') ? rows.map((r) => r!) : null;
    },
    { what: 'every task to succeed', timeoutMs: 30_000 },
  );

describe('adaptive polling against the simulator', () => {
  const durations = () => new TaskDurations(h.redis, h.prefix, { cacheMs: 0 });
  /** the adaptive scheduler within the sim's 20 queries per second, half of them for planned polls */
  const adaptive = {
    VIDEO_POLL_SCHEDULER: 'adaptive',
    UPSTREAM_POLL_QPS: '20',
    VIDEO_POLL_PLANNED_SHARE: '0.5',
    VIDEO_POLL_MIN_INTERVAL_MS: '100',
    VIDEO_POLL_MAX_INTERVAL_MS: '60000',
    VIDEO_POLL_INTERVAL_MS: '60000',
    VIDEO_POLL_SPREAD_POLLS: '4',
  };

  it('finds finished tasks with the batch query and runs their jobs at once, within the query limit', async () => {
    const worker = h.startWorker({
      env: { ...adaptive, VIDEO_POLL_SWEEP_INTERVAL_MS: '200', VIDEO_POLL_SWEEP_PAGE_SIZE: '100' },
    });
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
      await worker.close();
    }
  });

  it('without the batch query, polls each task near its learned completion time', async () => {
    await sim.control('POST', '/reset');
    // durations learned by the previous test: 1.5 to 2.5 s
    h.startWorker({ env: { ...adaptive, VIDEO_POLL_SWEEP_INTERVAL_MS: '0' } });
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
