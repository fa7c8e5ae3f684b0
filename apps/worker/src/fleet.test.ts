import { createLogger } from '@mediagate/shared/log';
import { createMetrics, type Metrics } from '@mediagate/shared/metrics';
import { createMediaQueue, enqueueVideoTask, queueFacts } from '@mediagate/shared/queue';
import type { Queue } from 'bullmq';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../test/harness';
import { fleetSource } from './fleet';
import { reconcileOnce } from './reconciler';

let sim: Sim;
let h: WorkerHarness;
let mediaQueue: Queue;

beforeAll(async () => {
  sim = await startSim();
  h = await startWorkerHarness(sim);
  mediaQueue = createMediaQueue(h.redis, h.prefix);
});
afterAll(async () => {
  await mediaQueue?.close();
  await h?.close();
  await sim?.stop();
});

/** A process's metrics reporting the fleet through the lease `key`, as main.ts wires a reconciler. */
const reporter = (key: string, token: string) => {
  const metrics = createMetrics({ service: `reconciler-${token}`, defaultMetrics: false, fleetTtlMs: 0 });
  const source = fleetSource({
    database: h.database,
    redis: h.redis,
    queues: [h.queue, mediaQueue],
    key,
    token,
  });
  metrics.reportFleet(source);
  return { metrics, source };
};
const value = async (m: Metrics, name: string, labels: Record<string, string> = {}) => {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const found = (metric?.values ?? []).find((v) =>
    Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
  );
  return found?.value;
};

describe('fleet gauges', () => {
  it('are reported by one process of the fleet, so a sum counts each fact once; another takes over', async () => {
    const key = `${h.prefix}:fleet-reporter`;
    const a = reporter(key, 'a');
    const b = reporter(key, 'b');
    await h.createTask();
    const [textA, textB] = [await a.metrics.registry.metrics(), await b.metrics.registry.metrics()];
    expect(textA).toMatch(/^mediagate_fleet_reporter\{service="reconciler-a"\} 1$/m);
    expect(textB).toMatch(/^mediagate_fleet_reporter\{service="reconciler-b"\} 0$/m);
    expect(textA).toMatch(
      /^mediagate_queue_jobs\{queue="video-tasks",state="waiting",service="reconciler-a"\} \d+$/m,
    );
    expect(textA).toMatch(/^mediagate_queue_jobs\{queue="media-copy",state="waiting",/m);
    expect(textB).not.toContain('mediagate_queue_jobs{');
    expect(textB).not.toContain('mediagate_video_tasks{');
    // the reporter leaves (shutdown): the other one reports from its next scrape
    await a.source.release();
    expect(await value(b.metrics, 'mediagate_fleet_reporter')).toBe(1);
    expect(await value(a.metrics, 'mediagate_fleet_reporter')).toBe(0);
    expect(await value(b.metrics, 'mediagate_video_tasks', { state: 'pending' })).toBeGreaterThanOrEqual(1);
    await b.source.release();
  });

  it('count unfinished tasks by state, those past their deadline, and the age of the oldest', async () => {
    const { metrics, source } = reporter(`${h.prefix}:fleet-tasks`, 't');
    const stuck = await h.createTask({ enqueue: false });
    await h.database.pool.query(
      `update tasks set deadline_at = now() - interval '1 minute', created_at = now() - interval '2 hours' where id = $1`,
      [stuck],
    );
    expect(await value(metrics, 'mediagate_video_tasks_stuck', { state: 'pending' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      await value(metrics, 'mediagate_video_task_oldest_age_seconds', { state: 'pending' }),
    ).toBeGreaterThanOrEqual(7_200);
    expect(await value(metrics, 'mediagate_video_tasks', { state: 'processing' })).toBe(0);
    expect(await value(metrics, 'mediagate_callback_backlog', { state: 'pending' })).toBe(0);
    expect(await value(metrics, 'mediagate_media_copy_backlog', { state: 'failed' })).toBe(0);
    expect(await value(metrics, 'mediagate_ledger_mismatched_accounts')).toBe(0);
    expect(await value(metrics, 'mediagate_webhook_endpoints_disabled')).toBe(0);
    // the reconciler times it out, and counts what it did
    await reconcileOnce({
      database: h.database,
      redis: h.redis,
      videoQueue: h.queue,
      metrics,
      logger: createLogger({ service: 'fleet-test', level: 'silent' }),
      config: {
        intervalMs: 1_000,
        graceMs: 0,
        imageSettleAfterMs: 60_000,
        lockKey: `${h.prefix}:fleet-lock`,
      },
    });
    expect(await value(metrics, 'mediagate_video_tasks_stuck', { state: 'pending' })).toBe(0);
    expect(
      await value(metrics, 'mediagate_reconciler_actions_total', { action: 'timed_out' }),
    ).toBeGreaterThanOrEqual(1);
    expect(await value(metrics, 'mediagate_reconciler_sweeps_total', { outcome: 'done' })).toBe(1);
    expect(await value(metrics, 'mediagate_ledger_check_timestamp_seconds')).toBeGreaterThan(0);
    await source.release();
  });
});

describe('queueFacts', () => {
  it('reads the age of the next job to run, of a delayed job no worker promoted, and of the oldest running', async () => {
    const queue = createMediaQueue(h.redis, `${h.prefix}-facts`);
    try {
      await enqueueVideoTask(queue, { taskId: 'task-a' });
      const now = Date.now();
      const waiting = await queueFacts(queue, now + 60_000);
      expect(waiting.counts.waiting).toBe(1);
      expect(waiting.oldestWaitingSeconds).toBeGreaterThanOrEqual(59);
      expect(waiting.oldestWaitingSeconds).toBeLessThan(120);
      expect(waiting.oldestActiveSeconds).toBe(0);
      await queue.obliterate({ force: true });
      await enqueueVideoTask(queue, { taskId: 'task-b' }, { delayMs: 30_000 });
      // not due yet: nothing waits; 90 s on, it is 60 s past due
      expect((await queueFacts(queue, now)).oldestWaitingSeconds).toBe(0);
      const late = await queueFacts(queue, Date.now() + 90_000);
      expect(late.oldestWaitingSeconds).toBeGreaterThanOrEqual(59);
      expect(late.oldestWaitingSeconds).toBeLessThan(65);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
