import type { Queue } from 'bullmq';
import { createAccount, getAccount } from '../accounts';
import { findLedgerMismatches } from '../billing/ledger';
import type { Database } from '../db/client';
import type { TaskRow } from '../db/schema';
import { newTaskId } from '../ids';
import { createLogger } from '../log';
import { getTaskMedia } from '../media/task-media';
import { createMetrics, type Metrics } from '../metrics';
import { createCallbacksQueue } from '../queue/callbacks-queue';
import { createRedis, type RedisClient } from '../queue/connection';
import { testQueuePrefix, testServiceUrls, waitFor } from '../testing';
import { openTestDatabase } from '../testing/services';
import { enqueueNewDeliveries, enqueueTaskCallbacks } from '../webhooks/enqueue';
import { listTaskDeliveries } from '../webhooks/outbox';
import { updateWebhookEvents } from '../webhooks/settings';
import { IdempotencyInFlightError } from './idempotency';
import { TaskLifecycle, type TaskLifecycleDeps } from './lifecycle';
import {
  clearSubmitStarted,
  createVideoTask,
  failTask,
  getTask,
  markSubmitStarted,
  recordUpstreamTask,
  startTask,
} from './tasks';

let database: Database;
let redis: RedisClient;
let queue: Queue;
let accountId: string;
let keyId: string;
beforeAll(async () => {
  database = await openTestDatabase({ max: 10 });
  redis = createRedis((await testServiceUrls()).redisUrl, 'producer');
  queue = createCallbacksQueue(redis, testQueuePrefix());
  const account = await createAccount(database.db, {
    email: 'lifecycle@example.test',
    initialCreditMicroUsd: 100_000_000,
  });
  accountId = account.accountId;
  keyId = account.key.id;
});
afterAll(async () => {
  await queue.close();
  await redis.quit();
  await database.close();
});
afterEach(async () => {
  expect(await findLedgerMismatches(database.db)).toEqual([]);
});

const PRICE = 250_000;
async function newTask(
  opts: { callback?: boolean; account?: { accountId: string; key: { id: string } } } = {},
): Promise<TaskRow> {
  return createVideoTask(database.db, {
    id: newTaskId(),
    accountId: opts.account?.accountId ?? accountId,
    apiKeyId: opts.account?.key.id ?? keyId,
    model: 'wan2.6-i2v-flash-5s-720p',
    prompt: 'a cat',
    metadata: {
      input: { img_url: 'https://example.com/cat.png' },
      ...(opts.callback === false ? {} : { callback_url: 'https://hooks.example.test/video' }),
    },
    priceMicroUsd: PRICE,
    deadlineAt: new Date(Date.now() + 60_000),
  });
}

const jobState = (deliveryId: string) => queue.getJobState(deliveryId);

/**
 * A lifecycle on the real database and callbacks queue that records, as each after-effect runs,
 * what it can see: the task's status from another connection, whether the delivery's job exists.
 */
function recorded(extra: Partial<TaskLifecycleDeps> = {}) {
  const steps: string[] = [];
  const published: TaskRow[] = [];
  const metrics = createMetrics({ service: 'lifecycle-test', defaultMetrics: false });
  const lifecycle = new TaskLifecycle({
    db: database.db,
    metrics,
    logger: createLogger({ service: 'lifecycle-test', level: 'silent' }),
    callbacks: {
      enqueueNew: async (ids) => {
        const row = await database.pool.query(
          'select status from tasks where id = (select task_id from callback_deliveries where id = $1)',
          [ids[0]],
        );
        steps.push(`enqueue new (task ${row.rows[0]?.status})`);
        return enqueueNewDeliveries(queue, ids);
      },
      enqueueForTask: async (taskId) => {
        steps.push(`enqueue pending (task ${(await getTask(database.db, taskId))?.status})`);
        return enqueueTaskCallbacks(database.db, queue, taskId);
      },
    },
    events: {
      publish: (row) => {
        published.push(row);
        steps.push(`publish ${row.status}`);
      },
    },
    ...extra,
  });
  return { lifecycle, steps, published, metrics };
}

const transitions = async (metrics: Metrics) =>
  Object.fromEntries(
    (await metrics.taskTransitions.get()).values.map((v) => [String(v.labels.status), v.value]),
  );
const observations = async (histogram: Metrics['taskCompletionSeconds'] | Metrics['taskPickupSeconds']) =>
  (await histogram.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;

describe('TaskLifecycle', () => {
  it('commits a failure, then enqueues its delivery in the callbacks queue, then publishes and counts it', async () => {
    const { lifecycle, steps, metrics } = recorded();
    const slots = (await getAccount(database.db, accountId))!.activeVideoTasks;
    const task = await newTask();
    const failed = await lifecycle.fail(task.id, { code: 'DataInspectionFailed', message: 'refused' });
    expect(failed).toMatchObject({ id: task.id, status: 'failed', errorCode: 'DataInspectionFailed' });
    expect(steps).toEqual(['enqueue new (task failed)', 'publish failed']);
    const [delivery] = await listTaskDeliveries(database.db, task.id);
    expect(delivery?.eventType).toBe('video.failed');
    expect(['waiting', 'delayed', 'active']).toContain(await jobState(delivery!.id));
    expect(await transitions(metrics)).toEqual({ failed: 1 });
    expect((await metrics.billingMicroUsd.get()).values).toEqual([
      expect.objectContaining({ labels: expect.objectContaining({ kind: 'refund' }), value: PRICE }),
    ]);
    expect((await getAccount(database.db, accountId))?.activeVideoTasks).toBe(slots);
  });

  it('runs a task start to success: one count per move, the media copy enqueued after the commit', async () => {
    const copies: string[] = [];
    const { lifecycle, steps, metrics, published } = recorded({
      media: {
        linksFor: (taskId, completedAt) => ({
          videoUrl: `https://media.example.test/${taskId}.mp4`,
          thumbnailUrl: `https://media.example.test/${taskId}.jpg`,
          expiresAt: new Date(completedAt.getTime() + 3_600_000),
        }),
        copy: async (taskId) => {
          const media = await getTaskMedia(database.db, taskId);
          steps.push(`copy (media ${media?.status})`);
          copies.push(taskId);
        },
      },
    });
    const before = (await getAccount(database.db, accountId))!.balanceMicroUsd;
    const task = await newTask();
    const started = await lifecycle.start(task);
    expect(started?.status).toBe('processing');
    await lifecycle.progress(started!, 50);
    await lifecycle.progress({ ...started!, progress: 50 }, 50); // no move backwards or in place
    const succeeded = await lifecycle.succeed(
      { ...started!, progress: 50 },
      { videoUrl: 'https://vendor.example.test/v.mp4', usage: { duration: 5 } },
      { amountMicroUsd: 50_000, reason: 'shorter video' },
    );
    expect(succeeded).toMatchObject({
      status: 'succeeded',
      videoUrl: `https://media.example.test/${task.id}.mp4`,
    });
    // processing is opt-in: the start wrote no delivery, so nothing was enqueued for it
    expect(steps).toEqual([
      'publish processing',
      'publish processing', // progress 50
      'enqueue new (task succeeded)',
      'publish succeeded',
      'copy (media pending)',
    ]);
    expect(published.map((r) => [r.status, r.progress])).toEqual([
      ['processing', 0],
      ['processing', 50],
      ['succeeded', 100],
    ]);
    expect(copies).toEqual([task.id]);
    expect(await transitions(metrics)).toEqual({ processing: 1, succeeded: 1 });
    expect(await observations(metrics.taskPickupSeconds)).toBe(1);
    expect(await observations(metrics.taskCompletionSeconds)).toBe(1);
    expect((await getAccount(database.db, accountId))!.balanceMicroUsd).toBe(before - PRICE + 50_000);

    // a second success of the same task moves nothing and counts nothing
    steps.length = 0;
    expect(await lifecycle.succeed(started!, { videoUrl: 'https://vendor.example.test/w.mp4' })).toBeNull();
    expect(steps).toEqual(['enqueue pending (task succeeded)']);
    expect(await transitions(metrics)).toEqual({ processing: 1, succeeded: 1 });
  });

  it('enqueues the pending deliveries of a task another process moved first, and counts nothing', async () => {
    const { lifecycle, steps, metrics } = recorded();
    const task = await newTask();
    // another process fails the task and dies before enqueueing its delivery
    await failTask(database.db, task.id, { code: 'timeout', message: 'late' });
    const [delivery] = await listTaskDeliveries(database.db, task.id);
    expect(await jobState(delivery!.id)).toBe('unknown');

    expect(await lifecycle.timeOut(task.id)).toBeNull();
    expect(steps).toEqual(['enqueue pending (task failed)']);
    expect(['waiting', 'delayed', 'active']).toContain(await jobState(delivery!.id));
    expect(await transitions(metrics)).toEqual({});

    // a start lost to another process hands on what that start committed
    const other = await newTask();
    await startTask(database.db, other.id);
    steps.length = 0;
    expect(await lifecycle.start(other)).toBeNull();
    expect(steps).toEqual(['enqueue pending (task processing)']);
  });

  it('starts a task with its submit mark without waiting for its deliveries to reach Redis', async () => {
    const optedIn = await createAccount(database.db, {
      email: 'lifecycle-processing@example.test',
      initialCreditMicroUsd: 10_000_000,
    });
    await updateWebhookEvents(database.db, optedIn.accountId, { sendProcessing: true });
    const task = await newTask({ account: optedIn });
    // Redis answers the enqueue only once the gate opens (a slow or stalled Redis)
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const handed: string[] = [];
    const { lifecycle, steps } = recorded({
      callbacks: {
        enqueueNew: async (ids) => {
          handed.push(...ids);
          await gate;
          return enqueueNewDeliveries(queue, ids);
        },
        enqueueForTask: (taskId) => enqueueTaskCallbacks(database.db, queue, taskId),
      },
    });
    const started = await lifecycle.start(task, { submitOn: 'sim' });
    expect(started).toMatchObject({ status: 'processing', upstreamChannel: 'sim' });
    expect(started!.submitStartedAt).toEqual(started!.startedAt);
    expect(steps).toEqual(['publish processing']);
    const [delivery] = await listTaskDeliveries(database.db, task.id);
    expect(delivery?.eventType).toBe('video.processing');
    expect(handed).toEqual([delivery!.id]);
    expect(await jobState(delivery!.id)).toBe('unknown');
    open();
    await waitFor(async () => ['waiting', 'delayed', 'active'].includes(await jobState(delivery!.id)), {
      what: 'the processing delivery to be enqueued',
    });
  });

  it('times a task out with code timeout, refunded', async () => {
    const { lifecycle, metrics } = recorded();
    const task = await newTask({ callback: false });
    const before = (await getAccount(database.db, accountId))!.balanceMicroUsd;
    expect(await lifecycle.timeOut(task.id)).toMatchObject({ status: 'failed', errorCode: 'timeout' });
    expect((await getAccount(database.db, accountId))!.balanceMicroUsd).toBe(before + PRICE);
    expect(await listTaskDeliveries(database.db, task.id)).toEqual([]);
    expect(await transitions(metrics)).toEqual({ failed: 1 });
  });

  it('cancels a pending task: its video.failed delivery is enqueued at once', async () => {
    const { lifecycle, steps } = recorded();
    const task = await newTask();
    const outcome = await lifecycle.cancel(task.id, accountId);
    expect(outcome).toMatchObject({ kind: 'canceled', row: { status: 'failed', errorCode: 'canceled' } });
    expect(steps).toEqual(['enqueue new (task failed)', 'publish failed']);
    const [delivery] = await listTaskDeliveries(database.db, task.id);
    expect(['waiting', 'delayed', 'active']).toContain(await jobState(delivery!.id));
    expect(await lifecycle.cancel(task.id, accountId)).toMatchObject({ kind: 'not_cancelable' });
    expect(await lifecycle.cancel(task.id, 'acct_someone_else')).toEqual({ kind: 'not_found' });
  });

  it('keeps a move when its callbacks cannot be enqueued (Redis connection gone): the reconciler enqueues them', async () => {
    const gone = createRedis((await testServiceUrls()).redisUrl, 'producer');
    const unreachable = createCallbacksQueue(gone, testQueuePrefix());
    gone.disconnect();
    const warnings: string[] = [];
    const logger = createLogger({ service: 'lifecycle-test', level: 'silent' });
    logger.warn = ((_: unknown, message: string) => warnings.push(message)) as unknown as typeof logger.warn;
    const lifecycle = new TaskLifecycle({
      db: database.db,
      logger,
      callbacks: {
        enqueueNew: (ids) => enqueueNewDeliveries(unreachable, ids, { timeoutMs: 1_000 }),
        enqueueForTask: (taskId) =>
          enqueueTaskCallbacks(database.db, unreachable, taskId, { timeoutMs: 1_000 }),
      },
    });
    const task = await newTask();
    expect(await lifecycle.fail(task.id, { code: 'x', message: 'y' })).toMatchObject({ status: 'failed' });
    expect(warnings).toEqual(['callback enqueue failed; the reconciler will enqueue it']);
    expect((await listTaskDeliveries(database.db, task.id)).map((d) => d.status)).toEqual(['pending']);
  });

  it('enqueues and counts an operator retry of a failed task like a created one', async () => {
    const enqueued: string[] = [];
    const { lifecycle, metrics } = recorded({
      videoQueue: { enqueue: async (taskId) => enqueued.push(taskId) > 0 },
    });
    const task = await newTask({ callback: false });
    await failTask(database.db, task.id, { code: 'x', message: 'y' });
    const retried = await lifecycle.retry(task.id, { deadlineMs: 60_000 });
    expect(retried).toMatchObject({ created: true, enqueued: true, row: { status: 'pending' } });
    expect(await lifecycle.retry(task.id, { deadlineMs: 60_000 })).toMatchObject({ created: false });
    expect(enqueued).toEqual([retried!.row.id]);
    expect(await transitions(metrics)).toEqual({ pending: 1 });
    await failTask(database.db, retried!.row.id, { code: 'x', message: 'done' });
  });
});

describe('TaskLifecycle.create', () => {
  const input = (idempotencyKey?: string) => ({
    id: newTaskId(),
    accountId,
    apiKeyId: keyId,
    model: 'wan2.6-i2v-flash-5s-720p',
    prompt: 'a cat',
    metadata: { input: { img_url: 'https://example.com/cat.png' } },
    priceMicroUsd: PRICE,
    requestId: `req_${newTaskId()}`,
    deadlineAt: new Date(Date.now() + 60_000),
    idempotency: idempotencyKey ? { key: idempotencyKey, requestHash: 'h1' } : undefined,
  });

  it('commits the charged task, then hands its job to the queue, then counts and publishes it', async () => {
    const steps: string[] = [];
    const { lifecycle, metrics } = recorded({
      videoQueue: {
        enqueue: async (taskId, requestId) => {
          steps.push(`enqueue (task ${(await getTask(database.db, taskId))?.status}, ${requestId})`);
          return true;
        },
      },
      events: { publish: (row) => steps.push(`publish ${row.status}`) },
    });
    const before = (await getAccount(database.db, accountId))!.balanceMicroUsd;
    const task = input();
    const created = await lifecycle.create(task);
    expect(created).toMatchObject({ created: true, enqueued: true, row: { id: task.id, status: 'pending' } });
    // published for the console's live pages, after the job is handed over
    expect(steps).toEqual([`enqueue (task pending, ${task.requestId})`, 'publish pending']);
    expect(await transitions(metrics)).toEqual({ pending: 1 });
    expect((await getAccount(database.db, accountId))!.balanceMicroUsd).toBe(before - PRICE);
    await failTask(database.db, task.id, { code: 'x', message: 'done' });
  });

  it('accepts the task when the queue does not take its job (Redis away), and says so', async () => {
    const warnings: string[] = [];
    const logger = createLogger({ service: 'lifecycle-test', level: 'silent' });
    logger.warn = ((_: unknown, message: string) => warnings.push(message)) as unknown as typeof logger.warn;
    for (const enqueue of [
      async () => false,
      async () => Promise.reject(new Error('redis is unavailable')),
    ]) {
      const { lifecycle } = recorded({ logger, videoQueue: { enqueue } });
      const task = input();
      const created = await lifecycle.create(task);
      expect(created).toMatchObject({ created: true, enqueued: false, row: { status: 'pending' } });
      expect(await getTask(database.db, task.id)).toMatchObject({ status: 'pending' });
      await failTask(database.db, task.id, { code: 'x', message: 'done' });
    }
    expect(warnings).toEqual([
      'enqueue failed; made again once Redis answers',
      'enqueue failed; made again once Redis answers',
    ]);
  });

  it('makes nothing of a second create with the same Idempotency-Key: no charge, job or count', async () => {
    const enqueued: string[] = [];
    const { lifecycle, metrics } = recorded({
      videoQueue: { enqueue: async (taskId) => enqueued.push(taskId) > 0 },
    });
    const key = `idem-${newTaskId()}`;
    const first = await lifecycle.create(input(key));
    const balance = (await getAccount(database.db, accountId))!.balanceMicroUsd;
    // the route answers it with the first task (findIdempotentTask)
    await expect(lifecycle.create(input(key))).rejects.toThrow(IdempotencyInFlightError);
    expect(enqueued).toEqual([first.row.id]);
    expect(await transitions(metrics)).toEqual({ pending: 1 });
    expect((await getAccount(database.db, accountId))!.balanceMicroUsd).toBe(balance);
    await failTask(database.db, first.row.id, { code: 'x', message: 'done' });
  });
});

describe('the submit mark', () => {
  it('is taken by one run of a task at a time, again only once cleared, never after an upstream id', async () => {
    const row = await newTask({ callback: false });
    await startTask(database.db, row);
    // two runs of the same task racing to submit: exactly one may send
    const marks = await Promise.all(
      Array.from({ length: 6 }, () => markSubmitStarted(database.db, row.id, 'dashscope-a')),
    );
    expect(marks.filter(Boolean)).toHaveLength(1);
    expect(await markSubmitStarted(database.db, row.id, 'dashscope-b')).toBe(false);
    // a submit that certainly created nothing clears the mark; the next try may mark again
    const markOf = async () => (await getTask(database.db, row.id))!.submitStartedAt!;
    await clearSubmitStarted(database.db, row.id, await markOf());
    expect(await markSubmitStarted(database.db, row.id, 'dashscope-b')).toBe(true);
    expect(await recordUpstreamTask(database.db, row.id, 'up-1')).toBe(true);
    await clearSubmitStarted(database.db, row.id, await markOf());
    expect(await markSubmitStarted(database.db, row.id, 'dashscope-a')).toBe(false);
    expect((await getTask(database.db, row.id))!.upstreamChannel).toBe('dashscope-b');
    await failTask(database.db, row.id, { code: 'test', message: 'test over' });
  });

  it("cleared by its time is only the mark set at that time, never another run's", async () => {
    const row = await newTask({ callback: false });
    await startTask(database.db, row);
    const theirs = new Date();
    expect(await markSubmitStarted(database.db, row.id, 'dashscope-a', theirs)).toBe(true);
    // a run whose own mark failed clears by its own time: the mark another run holds stays
    await clearSubmitStarted(database.db, row.id, new Date(theirs.getTime() + 1));
    expect((await getTask(database.db, row.id))!.submitStartedAt).toEqual(theirs);
    await clearSubmitStarted(database.db, row.id, theirs);
    expect((await getTask(database.db, row.id))!.submitStartedAt).toBeNull();
    await failTask(database.db, row.id, { code: 'test', message: 'test over' });
  });
});
