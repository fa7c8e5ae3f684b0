import { createAccount } from '@mediagate/shared/accounts';
import { usdToMicro } from '@mediagate/shared/billing';
import { createDatabase, type Database } from '@mediagate/shared/db';
import { newTaskId } from '@mediagate/shared/ids';
import { createLogger } from '@mediagate/shared/log';
import { createMailer, type Mailer } from '@mediagate/shared/mail';
import {
  createCallbacksQueue,
  createRedis,
  QUEUE_NAMES,
  queueKeyPrefix,
  type RedisClient,
} from '@mediagate/shared/queue';
import { createVideoTask, failTask } from '@mediagate/shared/tasks';
import { createTestDatabase, testQueuePrefix, testServiceUrls } from '@mediagate/shared/testing';
import {
  createSsrfPolicy,
  createSsrfSafeAgent,
  enqueueTaskCallbacks,
  getWebhookSettings,
  type Resolver,
} from '@mediagate/shared/webhooks';
import { type Queue, Worker } from 'bullmq';
import { createCallbackProcessor } from '../src/callbacks/dispatcher';
import { HostLimiter } from '../src/callbacks/host-limiter';

export interface DispatcherOptions {
  scheduleMs?: number[];
  timeoutMs?: number;
  concurrency?: number;
  perHost?: number;
  maxResponseBytes?: number;
  /** the SSRF allow-list; tests open loopback, where their receivers listen */
  allowCidrs?: string;
  resolve?: Resolver;
  /** failing endpoints: the disable period (default 5 days) and the mailer (default: the log's) */
  disableAfterMs?: number;
  mailer?: Mailer;
}

/**
 * A test database, queue prefix and account, with helpers that create callback deliveries the
 * way the video worker does (a task with metadata.callback_url ends; its outbox row is enqueued)
 * and that run the real dispatcher.
 */
export async function startCallbacksHarness() {
  const { redisUrl } = await testServiceUrls();
  const testDb = await createTestDatabase();
  const database: Database = createDatabase(testDb.url, { max: 10 });
  const prefix = testQueuePrefix();
  const redis: RedisClient = createRedis(redisUrl, 'worker');
  const queue: Queue = createCallbacksQueue(redis, prefix);
  const { accountId, key } = await createAccount(database.db, {
    email: `cb-${prefix}@example.test`,
    initialCreditMicroUsd: usdToMicro(100),
  });
  const closers: Array<() => Promise<void>> = [];
  const silent = createLogger({ service: 'callbacks-test', level: 'silent' });
  // one connection for every dispatcher started here (BullMQ makes each worker's blocking one itself)
  const workerConnection = createRedis(redisUrl, 'worker');

  /** A task that ended with `video.failed` towards `url`; returns the task and delivery ids. */
  const createDelivery = async (url: string, opts: { enqueue?: boolean } = {}) => {
    const taskId = newTaskId();
    await createVideoTask(database.db, {
      id: taskId,
      accountId,
      apiKeyId: key.id,
      model: 'wan2.6-i2v-flash-5s-720p',
      prompt: 'a cat',
      metadata: { input: { img_url: 'https://example.com/cat.png' }, callback_url: url },
      priceMicroUsd: 250_000,
      deadlineAt: new Date(Date.now() + 60_000),
    });
    await failTask(database.db, taskId, { code: 'DataInspectionFailed', message: 'refused upstream' });
    const { rows } = await database.pool.query('select id from callback_deliveries where task_id = $1', [
      taskId,
    ]);
    if (opts.enqueue !== false) await enqueueTaskCallbacks(database.db, queue, taskId);
    return { taskId, deliveryId: rows[0].id as string };
  };

  const startDispatcher = (opts: DispatcherOptions = {}) => {
    const agent = createSsrfSafeAgent(
      createSsrfPolicy({ allowCidrs: opts.allowCidrs ?? '127.0.0.0/8', resolve: opts.resolve }),
      {
        connectTimeoutMs: opts.timeoutMs ?? 5_000,
        headersTimeoutMs: opts.timeoutMs ?? 5_000,
        bodyTimeoutMs: opts.timeoutMs ?? 5_000,
        // at least the per-host limit, or requests would queue inside undici (as main.ts does)
        connections: opts.perHost ?? 10,
      },
    );
    const processor = createCallbackProcessor({
      database,
      agent,
      hosts: new HostLimiter(opts.perHost ?? 10),
      logger: silent,
      config: {
        retry: { scheduleMs: opts.scheduleMs ?? [20, 20, 20], jitter: 0.1, retryAfterMaxMs: 60_000 },
        timeoutMs: opts.timeoutMs ?? 5_000,
        maxResponseBytes: opts.maxResponseBytes ?? 4_096,
        hostBusyDelayMs: 50,
      },
      endpoints: {
        disableAfterMs: opts.disableAfterMs ?? 5 * 86_400_000,
        mailer: opts.mailer ?? createMailer({ from: 'mediagate <no-reply@example.test>', logger: silent }),
      },
    });
    const worker = new Worker(QUEUE_NAMES.callbacks, processor, {
      connection: workerConnection,
      prefix: queueKeyPrefix(prefix, QUEUE_NAMES.callbacks),
      concurrency: opts.concurrency ?? 50,
    });
    worker.on('error', () => {});
    const close = async () => {
      await worker.close(true);
      await agent.destroy(); // aborts requests still hanging on a slow receiver
    };
    closers.push(close);
    return { worker, close };
  };

  const delivery = async (id: string) =>
    (await database.pool.query('select * from callback_deliveries where id = $1', [id])).rows[0];
  const attempts = async (id: string) =>
    (
      await database.pool.query('select * from callback_attempts where delivery_id = $1 order by attempt', [
        id,
      ])
    ).rows;

  /** Ends, for the tests that follow, every delivery to `url` left pending (hanging receivers). */
  const abandon = async (url: string) => {
    const { rows } = await database.pool.query(
      `update callback_deliveries set status = 'failed' where url = $1 and status = 'pending' returning id`,
      [url],
    );
    for (const r of rows) await queue.remove(r.id).catch(() => 0);
  };

  return {
    database,
    redis,
    queue,
    abandon,
    prefix,
    accountId,
    email: `cb-${prefix}@example.test`,
    createDelivery,
    startDispatcher,
    delivery,
    attempts,
    secret: async () => (await getWebhookSettings(database.db, accountId)).secret,
    close: async () => {
      await Promise.all(closers.map((c) => c()));
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      workerConnection.disconnect();
      redis.disconnect();
      await database.close();
      await testDb.drop();
    },
  };
}
export type CallbacksHarness = Awaited<ReturnType<typeof startCallbacksHarness>>;
