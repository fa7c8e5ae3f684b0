import {
  ChannelPool,
  channelsFromEnv,
  createCallbacksQueue,
  createDatabase,
  createHttpAgent,
  createLogger,
  createMetrics,
  createRedis,
  createSsrfPolicy,
  createSsrfSafeAgent,
  createVideoQueue,
  DashScopeVideoClient,
  enqueueNewDeliveries,
  enqueueTaskCallbacks,
  exitOnStartupError,
  imageSettleAfterMs,
  loadCatalog,
  loadConfig,
  onShutdown,
  QUEUE_NAMES,
  TaskDurations,
  TaskEventPublisher,
} from '@mediagate/shared';
import { Worker } from 'bullmq';
import { createCallbackProcessor } from './callbacks/dispatcher';
import { HostLimiter } from './callbacks/host-limiter';
import { envWithArgs, workerEnvSchema } from './config';
import { startHealthServer } from './http-server';
import { startReconciler } from './reconciler';
import { PollBudget } from './video/poll-budget';
import { AdaptivePollScheduler } from './video/poll-scheduler';
import { createPollSweeper } from './video/poll-sweeper';
import { createVideoProcessor } from './video/processor';
import { UpstreamLimiter } from './video/upstream-limiter';

/** the query spacing keeps this fraction of UPSTREAM_POLL_QPS unused, against network jitter */
const POLL_HEADROOM = 0.05;
/** a query slot further away than this is waited for as a delayed job, not in the worker */
const MAX_ADMIT_WAIT_MS = 10_000;
/** pages one batch-query sweep reads at most, per channel and status */
const SWEEP_MAX_PAGES = 50;

/** Process entry of the workers: runs the roles named by --role / WORKER_ROLE. */
async function main(): Promise<void> {
  const config = loadConfig(workerEnvSchema, envWithArgs(process.argv.slice(2), process.env));
  const roles = new Set(config.WORKER_ROLE);
  const logger = createLogger({ service: `worker:${[...roles].join('+')}`, level: config.LOG_LEVEL });
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX ?? Math.min(config.VIDEO_CONCURRENCY + 5, 30),
  });
  const redis = createRedis(config.REDIS_URL, 'worker');
  const videoQueue = createVideoQueue(redis, config.QUEUE_PREFIX);
  const callbacksQueue = createCallbacksQueue(redis, config.QUEUE_PREFIX);
  const metrics = createMetrics({ service: `worker:${[...roles].join('+')}` });
  metrics.watchQueues(videoQueue, callbacksQueue);
  const stops: Array<() => Promise<void>> = [];
  let accepting = true;

  if (roles.has('video')) {
    const channels = new ChannelPool(channelsFromEnv(config), {
      failureThreshold: config.UPSTREAM_BREAKER_FAILURES,
      cooldownMs: config.UPSTREAM_BREAKER_COOLDOWN_MS,
      logger,
    });
    const agent = createHttpAgent({
      connectMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersMs: config.UPSTREAM_TIMEOUT_MS,
      bodyMs: config.UPSTREAM_TIMEOUT_MS,
    });
    const client = new DashScopeVideoClient(agent);
    const adaptive = config.VIDEO_POLL_SCHEDULER === 'adaptive';
    const sweeping = adaptive && config.VIDEO_POLL_SWEEP_INTERVAL_MS > 0;
    const budget = new PollBudget(redis, config.QUEUE_PREFIX, {
      queriesPerSecond: config.UPSTREAM_POLL_QPS,
      plannedShare: config.VIDEO_POLL_PLANNED_SHARE ?? (sweeping ? 0.25 : 1),
      headroom: POLL_HEADROOM,
    });
    const durations = new TaskDurations(redis, config.QUEUE_PREFIX);
    const polls = adaptive
      ? new AdaptivePollScheduler(
          budget,
          durations,
          {
            fallbackMs: sweeping ? config.VIDEO_POLL_MAX_INTERVAL_MS : config.VIDEO_POLL_INTERVAL_MS,
            minIntervalMs: config.VIDEO_POLL_MIN_INTERVAL_MS,
            maxIntervalMs: config.VIDEO_POLL_MAX_INTERVAL_MS,
            pollsPerSpread: config.VIDEO_POLL_SPREAD_POLLS,
            firstQuantile: sweeping ? 0.95 : 0.05,
            maxAdmitWaitMs: MAX_ADMIT_WAIT_MS,
          },
          logger,
        )
      : undefined;
    const processor = createVideoProcessor({
      database,
      client,
      polls,
      events: new TaskEventPublisher(redis, config.QUEUE_PREFIX, durations),
      catalog: loadCatalog(config.MODEL_CATALOG_FILE),
      channels,
      limiter: new UpstreamLimiter(redis, config.QUEUE_PREFIX, {
        submitPerSecond: config.UPSTREAM_SUBMIT_RPS,
        pollPerSecond: config.UPSTREAM_POLL_QPS,
      }),
      logger,
      config: {
        pollIntervalMs: config.VIDEO_POLL_INTERVAL_MS,
        retryBaseMs: config.UPSTREAM_RETRY_BASE_MS,
        retryMaxMs: config.UPSTREAM_RETRY_MAX_MS,
      },
      callbacks: {
        enqueueForTask: (taskId) => enqueueTaskCallbacks(database.db, callbacksQueue, taskId),
        enqueueNew: (deliveryIds) => enqueueNewDeliveries(callbacksQueue, deliveryIds),
      },
      metrics,
    });
    const workerConnection = createRedis(config.REDIS_URL, 'worker');
    const worker = new Worker(QUEUE_NAMES.video, processor, {
      connection: workerConnection,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.VIDEO_CONCURRENCY,
      lockDuration: config.VIDEO_LOCK_DURATION_MS,
      stalledInterval: config.VIDEO_LOCK_DURATION_MS,
    });
    worker.on('failed', (job, err) => logger.error({ err, taskId: job?.id }, 'video job run failed'));
    if (sweeping) {
      const sweeper = createPollSweeper({
        database,
        redis,
        queue: videoQueue,
        client,
        channels,
        budget,
        logger,
        config: {
          intervalMs: config.VIDEO_POLL_SWEEP_INTERVAL_MS,
          pageSize: config.VIDEO_POLL_SWEEP_PAGE_SIZE,
          maxPages: SWEEP_MAX_PAGES,
          prefix: config.QUEUE_PREFIX,
        },
      });
      sweeper.start();
      stops.push(sweeper.stop);
    }
    worker.on('error', (err) => logger.error({ err }, 'video worker error'));
    stops.push(async () => {
      await worker.close();
      workerConnection.disconnect();
      await agent.close();
    });
    logger.info({ concurrency: config.VIDEO_CONCURRENCY }, 'video worker started');
  }

  if (roles.has('reconciler')) {
    const reconciler = startReconciler({
      database,
      redis,
      videoQueue,
      callbacksQueue,
      logger,
      metrics,
      events: new TaskEventPublisher(redis, config.QUEUE_PREFIX),
      config: {
        intervalMs: config.RECONCILER_INTERVAL_MS,
        graceMs: config.RECONCILER_GRACE_MS,
        imageSettleAfterMs: imageSettleAfterMs(config),
        lockKey: `${config.QUEUE_PREFIX}:reconciler-lock`,
      },
    });
    stops.push(reconciler.stop);
    logger.info(
      { intervalMs: config.RECONCILER_INTERVAL_MS, imageSettleAfterMs: imageSettleAfterMs(config) },
      'reconciler started',
    );
  }

  if (roles.has('callbacks')) {
    const agent = createSsrfSafeAgent(
      createSsrfPolicy({ allowCidrs: config.SSRF_ALLOW_CIDRS, dnsTimeoutMs: config.SSRF_DNS_TIMEOUT_MS }),
      {
        connectTimeoutMs: config.CALLBACK_TIMEOUT_MS,
        headersTimeoutMs: config.CALLBACK_TIMEOUT_MS,
        bodyTimeoutMs: config.CALLBACK_TIMEOUT_MS,
        connections: config.CALLBACK_PER_HOST_CONCURRENCY,
      },
    );
    const processor = createCallbackProcessor({
      database,
      agent,
      hosts: new HostLimiter(config.CALLBACK_PER_HOST_CONCURRENCY),
      logger,
      config: {
        retry: {
          scheduleMs: config.CALLBACK_RETRY_SCHEDULE,
          jitter: config.CALLBACK_RETRY_JITTER,
          retryAfterMaxMs: config.CALLBACK_RETRY_AFTER_MAX_MS,
        },
        timeoutMs: config.CALLBACK_TIMEOUT_MS,
        maxResponseBytes: config.CALLBACK_RESPONSE_MAX_BYTES,
        hostBusyDelayMs: config.CALLBACK_HOST_BUSY_DELAY_MS,
      },
      metrics,
    });
    const workerConnection = createRedis(config.REDIS_URL, 'worker');
    const worker = new Worker(QUEUE_NAMES.callbacks, processor, {
      connection: workerConnection,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.CALLBACK_CONCURRENCY,
      lockDuration: config.CALLBACK_LOCK_DURATION_MS,
      stalledInterval: config.CALLBACK_LOCK_DURATION_MS,
    });
    worker.on('failed', (job, err) => logger.error({ err, deliveryId: job?.id }, 'callback job run failed'));
    worker.on('error', (err) => logger.error({ err }, 'callbacks worker error'));
    stops.push(async () => {
      await worker.close();
      workerConnection.disconnect();
      await agent.close();
    });
    logger.info(
      { concurrency: config.CALLBACK_CONCURRENCY, perHost: config.CALLBACK_PER_HOST_CONCURRENCY },
      'callbacks worker started',
    );
  }

  const health =
    config.WORKER_HTTP_PORT === undefined
      ? undefined
      : await startHealthServer({
          port: config.WORKER_HTTP_PORT,
          database,
          redis,
          isAccepting: () => accepting,
          metrics,
        });
  if (health) {
    const addr = health.address();
    logger.info(
      { port: typeof addr === 'object' && addr ? addr.port : undefined },
      'health server listening',
    );
  }

  onShutdown(
    logger,
    async () => {
      accepting = false;
      await Promise.all(stops.map((s) => s()));
      await videoQueue.close();
      await callbacksQueue.close();
      health?.close();
      redis.disconnect();
      await database.close();
    },
    config.SHUTDOWN_GRACE_MS + 5_000,
  );
}

main().catch((err: unknown) => exitOnStartupError(undefined, err));
