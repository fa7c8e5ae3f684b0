import { createAccount } from '@mediagate/shared/accounts';
import { usdToMicro } from '@mediagate/shared/billing';
import { defaultCatalog } from '@mediagate/shared/catalog';
import { loadConfig } from '@mediagate/shared/config';
import { createDatabase, type Database } from '@mediagate/shared/db';
import { createHttpAgent } from '@mediagate/shared/http';
import { newTaskId } from '@mediagate/shared/ids';
import { createLogger } from '@mediagate/shared/log';
import type { Metrics } from '@mediagate/shared/metrics';
import {
  createCallbacksQueue,
  createRedis,
  createVideoQueue,
  enqueueVideoTask,
  type RedisClient,
} from '@mediagate/shared/queue';
import { createVideoTask } from '@mediagate/shared/tasks';
import {
  createTestDatabase,
  type RunningProcess,
  startUpstreamSim,
  testQueuePrefix,
  testServiceUrls,
  waitFor,
} from '@mediagate/shared/testing';
import type { ChannelConfig, UpstreamChannel } from '@mediagate/shared/upstream';
import type { Queue } from 'bullmq';
import type { Agent } from 'undici';
import { workerEnvSchema } from '../src/config';
import { createWorkerLifecycle } from '../src/task-lifecycle';
import { startVideoRole, type VideoRole } from '../src/video/role';

/** The upstream simulator as a real process (video tasks finish in about 150 ms), and its control API. */
export async function startSim(env: Record<string, string> = {}, fixedPort?: number) {
  const sim = await startUpstreamSim(
    { SIM_VIDEO_PENDING_MS: '50', SIM_VIDEO_RUNNING_MS: '100', ...env },
    fixedPort,
  );
  return { ...sim, outcome: (o: Record<string, unknown>) => sim.control('POST', '/video-outcomes', o) };
}
export type Sim = Awaited<ReturnType<typeof startSim>>;

export interface WorkerHarness {
  database: Database;
  redis: RedisClient;
  queue: Queue;
  prefix: string;
  channel: UpstreamChannel;
  agent: Agent;
  accountId: string;
  keyId: string;
  /** creates and charges a task, stores it pending and enqueues it (what the API does) */
  createTask: (opts?: { model?: string; deadlineMs?: number; enqueue?: boolean }) => Promise<string>;
  /**
   * Starts the video role as the worker process wires it, configured by environment variables:
   * the harness's (the test database and queue prefix, the fixed poll scheduler polling every 30
   * ms, no upstream rate limits, short retries), then `env`.
   */
  startWorker: (opts?: {
    /** worker environment variables over the harness's (see workerEnvSchema) */
    env?: Record<string, string>;
    /** the DashScope channels (default: `channel`, the simulator given) */
    channels?: ChannelConfig[];
    metrics?: Metrics;
    /** where the media copies of successes go; with it tasks carry the gateway's signed links */
    mediaQueue?: Queue;
  }) => VideoRole;
  close: () => Promise<void>;
}

export async function startWorkerHarness(
  sim: { url: string },
  opts: { upstreamTimeoutMs?: number } = {},
): Promise<WorkerHarness> {
  const { redisUrl } = await testServiceUrls();
  const testDb = await createTestDatabase();
  const database = createDatabase(testDb.url, { max: 10 });
  const prefix = testQueuePrefix();
  const redis = createRedis(redisUrl, 'worker');
  const queue = createVideoQueue(redis, prefix);
  const timeout = opts.upstreamTimeoutMs ?? 5_000;
  const agent = createHttpAgent({ connectMs: 2_000, headersMs: timeout, bodyMs: timeout });
  const channel = simChannel('sim', sim);
  const { accountId, key } = await createAccount(database.db, {
    email: `w-${prefix}@example.test`,
    initialCreditMicroUsd: usdToMicro(100),
  });
  const callbacksQueue = createCallbacksQueue(redis, prefix);
  const logger = createLogger({ service: 'worker-test', level: 'silent' });
  const roles: VideoRole[] = [];
  const catalog = defaultCatalog();
  return {
    database,
    redis,
    queue,
    prefix,
    channel,
    agent,
    accountId,
    keyId: key.id,
    createTask: async (opts = {}) => {
      const model = catalog.video(opts.model ?? 'wan2.6-i2v-flash-5s-720p')!;
      const id = newTaskId();
      await createVideoTask(database.db, {
        id,
        accountId,
        apiKeyId: key.id,
        model: model.id,
        prompt: 'a cat',
        metadata: {
          input: { img_url: 'https://example.com/cat.png' },
          parameters: { resolution: model.resolution, duration: model.durationSeconds, audio: true },
        },
        priceMicroUsd: 250_000,
        requestId: `req-${id}`,
        deadlineAt: new Date(Date.now() + (opts.deadlineMs ?? 60_000)),
      });
      if (opts.enqueue !== false) await enqueueVideoTask(queue, { taskId: id, requestId: `req-${id}` });
      return id;
    },
    startWorker: (opts = {}) => {
      const config = loadConfig(workerEnvSchema, {
        DATABASE_URL: testDb.url,
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'silent',
        UPSTREAM_CHANNELS: JSON.stringify(opts.channels ?? [channel]),
        UPSTREAM_BREAKER_FAILURES: '5',
        UPSTREAM_BREAKER_COOLDOWN_MS: '100',
        UPSTREAM_CONNECT_TIMEOUT_MS: '2000',
        UPSTREAM_TIMEOUT_MS: String(timeout),
        UPSTREAM_SUBMIT_RPS: '0',
        UPSTREAM_POLL_QPS: '0',
        UPSTREAM_RETRY_BASE_MS: '20',
        UPSTREAM_RETRY_MAX_MS: '200',
        VIDEO_CONCURRENCY: '20',
        VIDEO_POLL_SCHEDULER: 'fixed',
        VIDEO_POLL_INTERVAL_MS: '30',
        ...opts.env,
      });
      const lifecycle = createWorkerLifecycle({
        config,
        database,
        redis,
        logger,
        metrics: opts.metrics,
        queues: { callbacks: callbacksQueue, media: opts.mediaQueue },
      });
      const role = startVideoRole({
        config,
        logger,
        database,
        redis,
        queue,
        lifecycle,
        metrics: opts.metrics,
      });
      roles.push(role);
      return role;
    },
    close: async () => {
      await Promise.all(roles.map((r) => r.close({ force: true })));
      for (const q of [queue, callbacksQueue]) {
        await q.obliterate({ force: true }).catch(() => {});
        await q.close();
      }
      redis.disconnect();
      await agent.close();
      await database.close();
      await testDb.drop();
    },
  };
}

export type { RunningProcess };

/** A DashScope channel to a simulator. */
export function simChannel(name: string, sim: { url: string }, priority = 0): ChannelConfig {
  return { name, vendor: 'dashscope', baseUrl: sim.url, apiKey: 'sk-test-upstream', weight: 1, priority };
}

/**
 * Waits for a connection of this database to wait on a row lock (one the test holds), then ends
 * that connection as a failing server would: what the process using it sees is a lost connection.
 */
export async function terminateLockWaiter(pool: Database['pool'], what: string): Promise<void> {
  const waiting = await waitFor(
    async () => {
      // asked outside the holder's transaction, whose view of pg_stat_activity is fixed when first read
      const { rows } = await pool.query(
        `select pid from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
      );
      return rows[0]?.pid as number | undefined;
    },
    { what },
  );
  const { rows } = await pool.query('select pg_terminate_backend($1) as done', [waiting]);
  if (rows[0]?.done !== true) throw new Error(`could not end the connection of ${what}`);
}
