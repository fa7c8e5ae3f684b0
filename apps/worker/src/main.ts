// First: starts tracing, which instruments the modules loaded after it.
import './tracing';
import {
  ChannelPool,
  channelsFromEnv,
  createCallbacksQueue,
  createDatabase,
  createHttpAgent,
  createLogger,
  createMediaLinkSigner,
  createMediaQueue,
  createMediaStorage,
  createMetrics,
  createQrPaymentProviders,
  createRedis,
  createSsrfPolicy,
  createSsrfSafeAgent,
  createVideoQueue,
  DashScopeVideoClient,
  enqueueMediaCopy,
  enqueueNewDeliveries,
  enqueueTaskCallbacks,
  exitOnStartupError,
  imageSettleAfterMs,
  loadCatalog,
  loadConfig,
  MediaSourceHosts,
  mediaRetentionMs,
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
import { createMediaCopyProcessor } from './media/copy-processor';
import { startReconciler } from './reconciler';
import { tracing } from './tracing';
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
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
  });
  const redis = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
  const videoQueue = createVideoQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  const callbacksQueue = createCallbacksQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  if (tracing.enabled) logger.info('tracing: exporting spans over OTLP');
  const mediaQueue = createMediaQueue(redis, config.QUEUE_PREFIX);
  const storage = createMediaStorage(config);
  const metrics = createMetrics({ service: `worker:${[...roles].join('+')}` });
  metrics.watchQueues(videoQueue, callbacksQueue, mediaQueue);
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
      media: {
        linksFor: (taskId, completedAt) =>
          signer.linksFor(taskId, new Date(completedAt.getTime() + mediaRetentionMs(config))),
        copy: (taskId) => enqueueMediaCopy(mediaQueue, taskId),
      },
    });
    const workerConnection = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
    const signer = createMediaLinkSigner(config);
    const worker = new Worker(QUEUE_NAMES.video, processor, {
      connection: workerConnection,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.VIDEO_CONCURRENCY,
      lockDuration: config.VIDEO_LOCK_DURATION_MS,
      telemetry: tracing.bullmq,
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

    // Copies of succeeded videos into storage: their own queue, so a slow download never holds
    // up the terminal moves.
    const ssrfPolicy = createSsrfPolicy({
      allowCidrs: config.SSRF_ALLOW_CIDRS,
      dnsTimeoutMs: config.SSRF_DNS_TIMEOUT_MS,
    });
    const copyTimeouts = {
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    };
    const mediaAgent = createHttpAgent({
      connectMs: copyTimeouts.connectTimeoutMs,
      headersMs: copyTimeouts.headersTimeoutMs,
      bodyMs: copyTimeouts.bodyTimeoutMs,
    });
    const mediaPublicAgent = createSsrfSafeAgent(ssrfPolicy, copyTimeouts);
    const copyProcessor = createMediaCopyProcessor({
      database,
      storage,
      hosts: new MediaSourceHosts(
        channelsFromEnv(config).filter((c) => c.vendor === 'dashscope'),
        config.MEDIA_ALLOWED_HOSTS,
      ),
      agent: mediaAgent,
      publicAgent: mediaPublicAgent,
      logger,
      metrics,
      config: {
        maxBytes: config.MEDIA_MAX_BYTES,
        timeoutMs: config.MEDIA_COPY_TIMEOUT_MS,
        attempts: config.MEDIA_COPY_ATTEMPTS,
        retryBaseMs: config.UPSTREAM_RETRY_BASE_MS,
        ffmpegPath: config.FFMPEG_PATH,
      },
    });
    const mediaConnection = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
    const mediaWorker = new Worker(QUEUE_NAMES.media, copyProcessor, {
      connection: mediaConnection,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.MEDIA_COPY_CONCURRENCY,
      lockDuration: config.VIDEO_LOCK_DURATION_MS,
      stalledInterval: config.VIDEO_LOCK_DURATION_MS,
    });
    mediaWorker.on('failed', (job, err) => logger.error({ err, jobId: job?.id }, 'media copy job failed'));
    mediaWorker.on('error', (err) => logger.error({ err }, 'media worker error'));
    stops.push(async () => {
      await mediaWorker.close();
      mediaConnection.disconnect();
      await mediaAgent.close();
      await mediaPublicAgent.close();
    });
    logger.info(
      { driver: storage.driver, concurrency: config.MEDIA_COPY_CONCURRENCY },
      'media copy worker started',
    );
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
      media: { storage, mediaQueue },
      topUps: { providers: createQrPaymentProviders(config), afterMs: config.TOPUP_RECONCILE_AFTER_MS },
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
    const workerConnection = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
    const worker = new Worker(QUEUE_NAMES.callbacks, processor, {
      connection: workerConnection,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.CALLBACK_CONCURRENCY,
      lockDuration: config.CALLBACK_LOCK_DURATION_MS,
      telemetry: tracing.bullmq,
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
          host: config.WORKER_HTTP_HOST,
          metricsToken: config.METRICS_TOKEN,
          database,
          redis,
          isAccepting: () => accepting,
          metrics,
        });
  if (health) {
    const addr = health.address();
    logger.info(
      { host: config.WORKER_HTTP_HOST, port: typeof addr === 'object' && addr ? addr.port : undefined },
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
      await mediaQueue.close();
      health?.close();
      redis.disconnect();
      await database.close();
      await tracing.shutdown();
    },
    config.SHUTDOWN_GRACE_MS + 5_000,
  );
}

main().catch((err: unknown) => exitOnStartupError(undefined, err));
