import { getAccount } from '@mediagate/shared/accounts';
import { chargeForCall, findLedgerMismatches, settleImageCall } from '@mediagate/shared/billing';
import { newImageCallId } from '@mediagate/shared/ids';
import { createLogger } from '@mediagate/shared/log';
import { createMetrics } from '@mediagate/shared/metrics';
import { createRedis, QUEUE_NAMES, queueKeyPrefix } from '@mediagate/shared/queue';
import { getTask } from '@mediagate/shared/tasks';
import { testServiceUrls, waitFor } from '@mediagate/shared/testing';
import { UnrecoverableError, Worker } from 'bullmq';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../test/harness';
import { type ReconcilerDeps, reconcileOnce } from './reconciler';

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
    config: {
      intervalMs: 1_000,
      graceMs: 0,
      imageSettleAfterMs: 15 * 60_000,
      lockKey: `${h.prefix}:reconciler-lock`,
    },
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
      { connection, prefix: queueKeyPrefix(h.prefix, QUEUE_NAMES.video) },
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

describe('reconciler: image calls left unsettled', () => {
  /** An image call charged as the API does, whose process then died (no settlement), `ageMs` ago. */
  async function abandonedImageCall(ageMs: number, amount = 90_000): Promise<string> {
    const ref = newImageCallId();
    await h.database.db.transaction((tx) =>
      chargeForCall(tx, {
        accountId: h.accountId,
        amountMicroUsd: amount,
        ref,
        units: 3,
        settlesLater: true,
      }),
    );
    await h.database.pool.query(
      `update usage_records set created_at = created_at - $2 * interval '1 millisecond' where ref = $1`,
      [ref, ageMs],
    );
    return ref;
  }
  const refunds = async (ref: string) =>
    (
      await h.database.pool.query(
        `select amount_micro_usd::int as a from ledger_entries where ref = $1 and kind = 'refund'`,
        [ref],
      )
    ).rows.map((r) => r.a);

  it('refunds in full, once, a call older than the bound, and leaves a younger one running', async () => {
    const bound = deps.config.imageSettleAfterMs;
    const before = (await getAccount(h.database.db, h.accountId))!.balanceMicroUsd;
    const old = await abandonedImageCall(bound + 60_000);
    const young = await abandonedImageCall(bound - 60_000, 60_000);
    const metrics = createMetrics({ service: 'reconciler-test', defaultMetrics: false });
    const first = await reconcileOnce({ ...deps, metrics });
    expect(first.imageCallsSettled).toBe(1);
    expect((await metrics.imageSettlements.get()).values).toEqual([
      expect.objectContaining({ labels: { outcome: 'swept' }, value: 1 }),
    ]);
    expect((await reconcileOnce(deps)).imageCallsSettled).toBe(0);
    expect(await refunds(old)).toEqual([90_000]);
    expect(await refunds(young)).toEqual([]);
    // the young call ends on its own: all three images delivered, nothing refunded
    expect(
      await settleImageCall(h.database.db, { accountId: h.accountId, ref: young, refundMicroUsd: 0 }),
    ).toEqual({ settled: true, refundedMicroUsd: 0 });
    expect((await getAccount(h.database.db, h.accountId))!.balanceMicroUsd).toBe(before - 60_000);
  });

  it('settles each call once when several reconcilers sweep at the same time', async () => {
    const refs = await Promise.all(
      Array.from({ length: 5 }, () => abandonedImageCall(deps.config.imageSettleAfterMs + 1_000)),
    );
    // distinct lock keys: as if the Redis lock had expired under a slow sweep
    const results = await Promise.all(
      [1, 2, 3].map((i) =>
        reconcileOnce({ ...deps, config: { ...deps.config, lockKey: `${deps.config.lockKey}:${i}` } }),
      ),
    );
    expect(results.reduce((sum, r) => sum + r.imageCallsSettled, 0)).toBe(5);
    for (const ref of refs) expect(await refunds(ref)).toEqual([90_000]);
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
