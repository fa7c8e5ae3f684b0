import {
  createLogger,
  createRedis,
  findLedgerMismatches,
  getAccount,
  getTask,
  QUEUE_NAMES,
} from '@mediagate/shared';
import { UnrecoverableError, Worker } from 'bullmq';
import { testServiceUrls, waitFor } from '@mediagate/shared/testing';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../test/harness';
import { reconcileOnce, type ReconcilerDeps } from './reconciler';

let sim: Sim;
let h: WorkerHarness;
let deps: ReconcilerDeps;

beforeAll(async () => {
  sim = await startSim();
  h = await startWorkerHarness(sim);
  deps = {
    database: h.database,
    redis: h.redis,
    videoQueue: h.queue,
    logger: createLogger({ service: 'reconciler-test', level: 'silent' }),
    config: { intervalMs: 1_000, graceMs: 0, lockKey: `${h.prefix}:reconciler-lock` },
  };
});
afterAll(async () => {
  await h?.close();
  await sim?.stop();
});
afterEach(async () => {
  expect(await findLedgerMismatches(h.database.db)).toEqual([]);
});

describe('reconciler', () => {
  it('enqueues a pending task whose job is gone, once, however often it runs', async () => {
    const id = await h.createTask({ enqueue: false });
    expect(await h.queue.getJob(id)).toBeUndefined();
    const first = await reconcileOnce(deps);
    expect(first.requeued).toBeGreaterThanOrEqual(1);
    expect((await h.queue.getJob(id))?.data).toMatchObject({ taskId: id });
    const second = await reconcileOnce(deps);
    expect(second.requeued).toBe(0);
    expect(
      await h.queue.getJobCountByTypes('waiting', 'delayed', 'active', 'prioritized'),
    ).toBeGreaterThanOrEqual(1);
  });

  it('re-enqueues every active task after Redis lost its jobs, and a worker finishes them', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => h.createTask()));
    await h.queue.obliterate({ force: true });
    for (const id of ids) expect(await h.queue.getJob(id)).toBeUndefined();
    const res = await reconcileOnce(deps);
    expect(res.requeued).toBeGreaterThanOrEqual(5);
    const worker = h.startWorker();
    try {
      for (const id of ids) {
        await waitFor(async () => (await getTask(h.database.db, id))?.status === 'succeeded', {
          what: `task ${id}`,
        });
      }
    } finally {
      await worker.close();
    }
  });

  it('replaces a job whose attempts ran out while its task is still active', async () => {
    const id = await h.createTask();
    // a worker whose every run fails for good stands for a job that exhausted its attempts
    const { redisUrl } = await testServiceUrls();
    const connection = createRedis(redisUrl, 'worker');
    const failing = new Worker(
      QUEUE_NAMES.video,
      async () => {
        throw new UnrecoverableError('database unreachable');
      },
      { connection, prefix: h.prefix },
    );
    await waitFor(async () => (await h.queue.getJobState(id)) === 'failed', { what: 'job to fail' });
    await failing.close();
    connection.disconnect();
    expect((await getTask(h.database.db, id))?.status).toBe('pending');
    const res = await reconcileOnce(deps);
    expect(res.requeued).toBeGreaterThanOrEqual(1);
    expect(await h.queue.getJobState(id)).toBe('waiting');
  });

  it('fails tasks past their deadline with a refund, idempotently', async () => {
    const before = (await getAccount(h.database.db, h.accountId))!.balanceMicroUsd;
    const id = await h.createTask({ enqueue: false, deadlineMs: -1_000 });
    const first = await reconcileOnce(deps);
    expect(first.expired).toBe(1);
    const row = await getTask(h.database.db, id);
    expect(row).toMatchObject({ status: 'failed', errorCode: 'timeout' });
    expect((await reconcileOnce(deps)).expired).toBe(0);
    expect((await getAccount(h.database.db, h.accountId))!.balanceMicroUsd).toBe(before);
  });

  it('leaves tasks younger than the grace period to the API', async () => {
    const id = await h.createTask({ enqueue: false });
    await reconcileOnce({ ...deps, config: { ...deps.config, graceMs: 60_000 } });
    expect(await h.queue.getJob(id)).toBeUndefined();
    await reconcileOnce(deps);
    expect(await h.queue.getJob(id)).toBeTruthy();
  });

  it('lets one replica sweep at a time', async () => {
    await h.createTask({ enqueue: false });
    const results = await Promise.all([reconcileOnce(deps), reconcileOnce(deps), reconcileOnce(deps)]);
    expect(results.filter((r) => !r.skipped)).toHaveLength(1);
  });
});

describe('reconciler housekeeping', () => {
  it('deletes Idempotency-Key records older than 24 hours and keeps the rest', async () => {
    const id = await h.createTask({ enqueue: false });
    await h.database.pool.query(
      `insert into idempotency_keys (account_id, key, request_hash, task_id, created_at)
       values ($1, 'old', 'h', $2, now() - interval '25 hours'), ($1, 'fresh', 'h', $2, now())`,
      [h.accountId, id],
    );
    await reconcileOnce(deps);
    const { rows } = await h.database.pool.query('select key from idempotency_keys where account_id = $1', [
      h.accountId,
    ]);
    expect(rows.map((r) => r.key)).toEqual(['fresh']);
  });
});
