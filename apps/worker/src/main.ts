// First: starts tracing, which instruments the modules loaded after it.
import './tracing';
import {
  ChannelPool,
  channelsFromEnv,
  createDatabase,
  createHttpAgent,
  createLogger,
  createMetrics,
  createRedis,
  createCallbacksQueue,
  createSsrfPolicy,
  createSsrfSafeAgent,
  createVideoQueue,
  enqueueNewDeliveries,
  enqueueTaskCallbacks,
  DashScopeVideoClient,
  exitOnStartupError,
  imageSettleAfterMs,
  loadCatalog,
  loadConfig,
  onShutdown,
  QUEUE_NAMES,
} from '@mediagate/shared';
import { Worker } from 'bullmq';
import { envWithArgs, workerEnvSchema } from './config';
import { startHealthServer } from './http-server';
import { createCallbackProcessor } from './callbacks/dispatcher';
import { HostLimiter } from './callbacks/host-limiter';
import { startReconciler } from './reconciler';
import { tracing } from './tracing';
import { createVideoProcessor } from './video/processor';
import { UpstreamLimiter } from './video/upstream-limiter';

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
    const processor = createVideoProcessor({
      database,
      client: new DashScopeVideoClient(agent),
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
    const workerConnection = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
    const worker = new Worker(QUEUE_NAMES.video, processor, {
      connection: workerConnection,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.VIDEO_CONCURRENCY,
      lockDuration: config.VIDEO_LOCK_DURATION_MS,
      telemetry: tracing.bullmq,
      stalledInterval: config.VIDEO_LOCK_DURATION_MS,
    });
    worker.on('failed', (job, err) => logger.error({ err, taskId: job?.id }, 'video job run failed'));
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
      await tracing.shutdown();
    },
    config.SHUTDOWN_GRACE_MS + 5_000,
  );
}

main().catch((err: unknown) => exitOnStartupError(undefined, err));
