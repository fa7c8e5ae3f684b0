// First: starts tracing, which instruments the modules loaded after it.
import './tracing';
import { randomUUID } from 'node:crypto';
import { createDatabase } from '@mediagate/shared/db';
import { createHttpAgent } from '@mediagate/shared/http';
import { imageSettleAfterMs } from '@mediagate/shared/images';
import { createLogger } from '@mediagate/shared/log';
import { createMailer } from '@mediagate/shared/mail';
import { createMediaStorage, MediaSourceHosts } from '@mediagate/shared/media';
import { createMetrics } from '@mediagate/shared/metrics';
import { createQrPaymentProviders } from '@mediagate/shared/payments';
import { exitOnStartupError, onShutdown } from '@mediagate/shared/process';
import {
  createCallbacksQueue,
  createMediaQueue,
  createRedis,
  createVideoQueue,
  QUEUE_NAMES,
  redisKey,
} from '@mediagate/shared/queue';
import { channelsFromEnv } from '@mediagate/shared/upstream';
import { createSsrfPolicy, createSsrfSafeAgent } from '@mediagate/shared/webhooks';
import { createCallbackProcessor } from './callbacks/dispatcher';
import { HostLimiter } from './callbacks/host-limiter';
import { loadWorkerConfig } from './config';
import { fleetSource } from './fleet';
import { queueReadinessKeys, startHealthServer } from './http-server';
import { createMediaCopyProcessor } from './media/copy-processor';
import { startQueueWorker } from './queue-worker';
import { startReconciler } from './reconciler';
import { createWorkerLifecycle } from './task-lifecycle';
import { tracing } from './tracing';
import { startVideoRole } from './video/role';

/** Process entry of the workers: runs the roles named by --role / WORKER_ROLE. */
async function main(): Promise<void> {
  const config = loadWorkerConfig(process.argv.slice(2), process.env);
  const roles = new Set(config.WORKER_ROLE);
  const logger = createLogger({ service: `worker:${[...roles].join('+')}`, level: config.LOG_LEVEL });
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX ?? Math.min(config.VIDEO_CONCURRENCY + 5, 30),
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    idleTimeoutMillis: config.DATABASE_POOL_IDLE_MS,
  });
  const redis = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
  const videoQueue = createVideoQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  const callbacksQueue = createCallbacksQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  if (tracing.enabled) logger.info('tracing: exporting spans over OTLP');
  const mediaQueue = createMediaQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  const storage = createMediaStorage(config);
  const metrics = createMetrics({ service: `worker:${[...roles].join('+')}` });
  for (const role of roles) metrics.workerRoles.set({ role }, 1);
  const stops: Array<() => Promise<void>> = [];
  let accepting = true;
  // Every move of a task this process makes (video role, reconciler), with what follows it. Made
  // on first use: a callbacks dispatcher signs no media links and is given no signing secret.
  let made: ReturnType<typeof createWorkerLifecycle> | undefined;
  const lifecycleOf = () => {
    made ??= createWorkerLifecycle({
      config,
      database,
      redis,
      logger,
      metrics,
      queues: { callbacks: callbacksQueue, media: mediaQueue },
    });
    return made;
  };

  if (roles.has('video')) {
    const video = startVideoRole({
      config,
      logger,
      database,
      redis,
      queue: videoQueue,
      lifecycle: lifecycleOf(),
      metrics,
      telemetry: tracing.bullmq,
    });
    stops.push(() => video.close());

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
    const mediaWorker = startQueueWorker(QUEUE_NAMES.media, copyProcessor, {
      config,
      logger,
      label: 'media copy',
      idField: 'jobId',
      concurrency: config.MEDIA_COPY_CONCURRENCY,
      lockDurationMs: config.VIDEO_LOCK_DURATION_MS,
      telemetry: tracing.bullmq,
    });
    stops.push(async () => {
      await mediaWorker.close();
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
      lifecycle: lifecycleOf(),
      media: { storage, mediaQueue },
      topUps: { providers: createQrPaymentProviders(config), afterMs: config.TOPUP_RECONCILE_AFTER_MS },
      config: {
        intervalMs: config.RECONCILER_INTERVAL_MS,
        graceMs: config.RECONCILER_GRACE_MS,
        imageSettleAfterMs: imageSettleAfterMs(config),
        lockKey: redisKey(config.QUEUE_PREFIX, 'reconciler-lock'),
        queuePrefix: config.QUEUE_PREFIX,
      },
    });
    stops.push(reconciler.stop);
    // the fleet-wide gauges: reported by one reconciler of the fleet
    const fleet = fleetSource({
      database,
      redis,
      queues: [videoQueue, callbacksQueue, mediaQueue],
      key: redisKey(config.QUEUE_PREFIX, 'fleet-reporter'),
      token: randomUUID(),
    });
    metrics.reportFleet(fleet);
    stops.push(() => fleet.release().catch(() => undefined));
    logger.info(
      { intervalMs: config.RECONCILER_INTERVAL_MS, imageSettleAfterMs: imageSettleAfterMs(config) },
      'reconciler started',
    );
  }

  if (roles.has('callbacks')) {
    const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, logger });
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
      endpoints: { disableAfterMs: config.WEBHOOK_ENDPOINT_DISABLE_AFTER[0]!, mailer },
    });
    const worker = startQueueWorker(QUEUE_NAMES.callbacks, processor, {
      config,
      logger,
      label: 'callback',
      idField: 'deliveryId',
      concurrency: config.CALLBACK_CONCURRENCY,
      lockDurationMs: config.CALLBACK_LOCK_DURATION_MS,
      telemetry: tracing.bullmq,
    });
    stops.push(async () => {
      await worker.close();
      await agent.close();
      mailer.close();
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
          // ready while the Redis nodes of this process's queues answer (each queue's slot master)
          redisKeys: queueReadinessKeys(config.QUEUE_PREFIX, [
            ...(roles.has('video') ? [QUEUE_NAMES.video, QUEUE_NAMES.media] : []),
            ...(roles.has('callbacks') ? [QUEUE_NAMES.callbacks] : []),
            ...(roles.has('reconciler') ? [QUEUE_NAMES.video, QUEUE_NAMES.callbacks, QUEUE_NAMES.media] : []),
          ]),
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
