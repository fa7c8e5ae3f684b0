import {
  type ChannelConfig,
  ChannelPool,
  createAccount,
  createDatabase,
  createHttpAgent,
  createLogger,
  createRedis,
  createVideoQueue,
  createVideoTask,
  DashScopeVideoClient,
  type Database,
  defaultCatalog,
  enqueueVideoTask,
  type Metrics,
  newTaskId,
  QUEUE_NAMES,
  type TaskRow,
  type RedisClient,
  type UpstreamChannel,
  usdToMicro,
} from '@mediagate/shared';
import {
  createTestDatabase,
  type RunningProcess,
  startUpstreamSim,
  testQueuePrefix,
  testServiceUrls,
} from '@mediagate/shared/testing';
import { type Queue, Worker } from 'bullmq';
import type { Agent } from 'undici';
import type { PollScheduler } from '../src/video/poll-scheduler';
import { createVideoProcessor, type VideoProcessorDeps } from '../src/video/processor';
import { UpstreamLimiter } from '../src/video/upstream-limiter';

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
  /** `channels`: the DashScope channels to use (default: `channel`, the simulator given) */
  startWorker: (opts?: {
    pollIntervalMs?: number;
    submitRps?: number;
    channels?: ChannelConfig[];
    metrics?: Metrics;
    /** when running tasks are polled (default: every pollIntervalMs) */
    polls?: PollScheduler;
    /** where every move is published */
    events?: { publish: (row: TaskRow) => void };
    /** the media of successes (signed links, copy enqueue); without it tasks keep the vendor's link */
    media?: VideoProcessorDeps['media'];
  }) => Worker;
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
  const workers: Worker[] = [];
  const connections: RedisClient[] = [];
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
      const processor = createVideoProcessor({
        metrics: opts.metrics,
        polls: opts.polls,
        events: opts.events,
        database,
        client: new DashScopeVideoClient(agent),
        catalog,
        channels: new ChannelPool(opts.channels ?? [channel], { failureThreshold: 5, cooldownMs: 100 }),
        limiter: new UpstreamLimiter(redis, prefix, {
          submitPerSecond: opts.submitRps ?? 0,
          pollPerSecond: 0,
        }),
        logger: createLogger({ service: 'worker-test', level: 'silent' }),
        config: { pollIntervalMs: opts.pollIntervalMs ?? 30, retryBaseMs: 20, retryMaxMs: 200 },
        media: opts.media,
      });
      const connection = createRedis(redisUrl, 'worker');
      connections.push(connection);
      const worker = new Worker(QUEUE_NAMES.video, processor, {
        connection,
        prefix,
        concurrency: 20,
      });
      worker.on('error', () => {});
      workers.push(worker);
      return worker;
    },
    close: async () => {
      await Promise.all(workers.map((w) => w.close(true)));
      for (const c of connections) c.disconnect();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
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
