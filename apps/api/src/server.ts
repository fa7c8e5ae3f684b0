// First: starts tracing, which instruments the modules loaded after it.
import './tracing';
import type { Server } from 'node:http';
import { ensureAdminAccount, type Principal } from '@mediagate/shared/accounts';
import { loadCatalog } from '@mediagate/shared/catalog';
import { createDatabase, type Database } from '@mediagate/shared/db';
import { createLogger, type Logger } from '@mediagate/shared/log';
import { LruCache } from '@mediagate/shared/lru';
import { createMediaLinkSigner, createMediaStorage } from '@mediagate/shared/media';
import { createMetrics } from '@mediagate/shared/metrics';
import {
  type AccountPaymentProvider,
  createDevPaymentProvider,
  createQrPaymentProviders,
} from '@mediagate/shared/payments';
import { closeHttpServer, exitOnStartupError, onShutdown } from '@mediagate/shared/process';
import {
  createCallbacksQueue,
  createMediaQueue,
  createRedis,
  createVideoQueue,
  PendingEnqueues,
  type RedisClient,
} from '@mediagate/shared/queue';
import { TaskDurations } from '@mediagate/shared/tasks';
import { createSsrfPolicy } from '@mediagate/shared/webhooks';
import { buildApp } from './app';
import { type ApiConfig, loadApiConfig } from './config';
import type { ApiDeps } from './deps';
import { createApiServer } from './http-server';
import { listenForKeyChanges } from './key-revocations';
import { createMailer } from './mail/mailer';
import { drainUsageRecords } from './middleware/auth';
import { bodyBudgetFor } from './middleware/body-admission';
import { RateLimits, rateLimitConfig } from './middleware/rate-limit';
import { buildMetricsApp } from './routes/metrics';
import { TaskEventHub, taskEventHubOptions } from './task-events';
import { createApiLifecycle } from './task-lifecycle';
import { tracing } from './tracing';
import { createUpstreams } from './upstreams';

/** after the drain, the time to close the queues, pools and exporters before the process exits anyway */
const SHUTDOWN_CLOSE_MS = 10_000;

/**
 * This replica's caches and its task-event hub: principals of recently seen keys (kept in step
 * with revocations announced on Redis), answers of finished tasks, and the hub relaying task moves
 * to event streams and the cache of unfinished tasks.
 */
function startReplicaCaches(
  config: ApiConfig,
  { database, redis, logger }: { database: Database; redis: RedisClient; logger: Logger },
) {
  const authCache =
    config.AUTH_CACHE_TTL_MS > 0
      ? new LruCache<string, Principal>(10_000, config.AUTH_CACHE_TTL_MS)
      : undefined;
  const stopKeyListener = authCache
    ? listenForKeyChanges({
        subscriber: createRedis(config.REDIS_URL, 'producer', {
          cluster: config.REDIS_CLUSTER,
          subscriber: true,
        }),
        queuePrefix: config.QUEUE_PREFIX,
        cache: authCache,
        logger,
      })
    : undefined;
  const taskCache =
    config.TASK_CACHE_ENTRIES > 0
      ? new LruCache<string, { accountId: string; json: string; until?: number }>(config.TASK_CACHE_ENTRIES)
      : undefined;
  const taskEvents = new TaskEventHub(
    createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER, subscriber: true }),
    redis,
    config.QUEUE_PREFIX,
    taskEventHubOptions(config, database, Math.max(config.TASK_CACHE_ENTRIES, 1)),
    logger,
    taskCache,
  );
  taskEvents.start().catch((err: unknown) => logger.error({ err }, 'could not subscribe to task events'));
  return { authCache, stopKeyListener, taskCache, taskEvents };
}

/** /metrics on a listener of its own when METRICS_PORT is set (else on the API port with METRICS_TOKEN). */
function listenForMetrics(deps: ApiDeps, config: ApiConfig): Server | undefined {
  if (config.METRICS_PORT === undefined) return undefined;
  const server = createApiServer(buildMetricsApp({ ...deps }), config);
  server.listen(config.METRICS_PORT, config.METRICS_HOST, () => {
    const addr = server.address();
    deps.logger.info(
      { host: config.METRICS_HOST, port: typeof addr === 'object' && addr ? addr.port : config.METRICS_PORT },
      'metrics listening',
    );
  });
  server.on('error', (err) => exitOnStartupError(deps.logger, err));
  return server;
}

/** Process entry of the API: wires dependencies, listens, drains on SIGTERM. */
function main(): void {
  const config = loadApiConfig();
  const logger = createLogger({ service: 'api', level: config.LOG_LEVEL });
  if (tracing.enabled) logger.info('tracing: exporting spans over OTLP');
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX ?? 20,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    idleTimeoutMillis: config.DATABASE_POOL_IDLE_MS,
  });
  const redis = createRedis(config.REDIS_URL, 'producer', { cluster: config.REDIS_CLUSTER });
  const videoQueue = createVideoQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  const callbacksQueue = createCallbacksQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  const mediaQueue = createMediaQueue(redis, config.QUEUE_PREFIX);
  const metrics = createMetrics({ service: 'api' });
  const ssrf = createSsrfPolicy({
    allowCidrs: config.SSRF_ALLOW_CIDRS,
    dnsTimeoutMs: config.SSRF_DNS_TIMEOUT_MS,
  });
  const catalog = loadCatalog(config.MODEL_CATALOG_FILE);
  const upstreams = createUpstreams(config, { db: database.db, logger, metrics });
  const mailer = createMailer({
    smtpUrl: config.SMTP_URL,
    from: config.MAIL_FROM,
    logger,
    dir: config.MAIL_DIR,
  });
  const rateLimits = new RateLimits(redis, rateLimitConfig(config), logger);
  const paymentProviders: AccountPaymentProvider[] = config.PAYMENT_DEV_SECRET
    ? [createDevPaymentProvider(config.PAYMENT_DEV_SECRET, config.PAYMENT_SIGNATURE_TOLERANCE_S)]
    : [];
  const qrProviders = createQrPaymentProviders(config);
  if (qrProviders.size > 0 && !config.PAYMENT_NOTIFY_BASE_URL) {
    logger.warn(
      'QR top-ups need PAYMENT_NOTIFY_BASE_URL (the public URL providers notify); orders are refused',
    );
  }
  logger.info({ providers: [...qrProviders.keys()] }, 'QR top-up providers');
  if (config.ADMIN_EMAIL && config.ADMIN_PASSWORD) {
    ensureAdminAccount(database.db, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD }).then(
      (id) => logger.info({ accountId: id, email: config.ADMIN_EMAIL }, 'admin account ready'),
      (err: unknown) => logger.error({ err }, 'could not set up the admin account'),
    );
  }
  const { authCache, stopKeyListener, taskCache, taskEvents } = startReplicaCaches(config, {
    database,
    redis,
    logger,
  });
  let accepting = true;
  // tasks accepted while Redis was away leave as soon as it answers again, not at the next sweep
  const pendingEnqueues = new PendingEnqueues(redis, {
    onEnqueued: (taskId, waitedMs) =>
      logger.info({ taskId, waitedMs }, 'task enqueued after Redis came back'),
  });
  const lifecycle = createApiLifecycle({
    database,
    logger,
    metrics,
    videoQueue,
    callbacksQueue,
    pendingEnqueues,
    taskEvents,
    videoUpstream: { channels: upstreams.channels, client: upstreams.video },
    querySlots: { redis, prefix: config.QUEUE_PREFIX, queriesPerSecond: config.UPSTREAM_POLL_QPS },
    enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS,
  });
  const deps: ApiDeps = {
    mailer,
    rateLimits,
    bodyBudget: bodyBudgetFor(config),
    paymentProviders,
    qrProviders,
    database,
    redis,
    videoQueue,
    mediaQueue,
    lifecycle,
    callbacksQueue,
    ssrf,
    catalog,
    images: upstreams.images,
    videoUpstream: { channels: upstreams.channels, client: upstreams.video },
    logger,
    config,
    metrics,
    authCache,
    queuePrefix: config.QUEUE_PREFIX,
    taskCache,
    taskEvents,
    durations: new TaskDurations(redis, config.QUEUE_PREFIX),
    media: { storage: createMediaStorage(config), signer: createMediaLinkSigner(config, logger) },
    isAcceptingTraffic: () => accepting,
  };
  const app = buildApp(deps);
  const server: Server = createApiServer(app, config);
  server.listen(config.PORT, config.HOST, () => {
    const addr = server.address();
    logger.info({ port: typeof addr === 'object' && addr ? addr.port : config.PORT }, 'api listening');
  });
  server.on('error', (err) => exitOnStartupError(logger, err));
  const metricsServer = listenForMetrics(deps, config);
  if (!metricsServer && !config.METRICS_TOKEN) {
    logger.info('/metrics is off: set METRICS_TOKEN, or METRICS_PORT for a listener of its own');
  }

  onShutdown(
    logger,
    async (signal) => {
      accepting = false;
      // Readiness is false from now on; keep serving while load balancers notice it (an
      // interactive Ctrl-C skips the wait), then stop taking connections and finish in-flight ones.
      if (signal === 'SIGTERM' && config.SHUTDOWN_DELAY_MS > 0) {
        logger.info({ delayMs: config.SHUTDOWN_DELAY_MS }, 'not ready; serving until the delay ends');
        await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_MS));
      }
      taskEvents.closeStreams();
      metricsServer?.close();
      await closeHttpServer(server, config.SHUTDOWN_GRACE_MS);
      await stopKeyListener?.();
      await taskEvents.close();
      // one last try for the enqueues still kept (each bounded by ENQUEUE_TIMEOUT_MS); what is
      // left, the reconciler enqueues
      await pendingEnqueues.flush();
      pendingEnqueues.close();
      await videoQueue.close();
      await callbacksQueue.close();
      await mediaQueue.close();
      await upstreams.close();
      await mailer.drain(); // mails answered before the shutdown still leave
      mailer.close();
      redis.disconnect();
      await drainUsageRecords(database);
      await database.close();
      await tracing.shutdown();
    },
    // the delay, the drain, and 10 s to close queues and pools: the manifests give the pod more
    // (terminationGracePeriodSeconds, checked by validate-k8s), so this deadline, not a SIGKILL, ends a stuck close
    config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_GRACE_MS + SHUTDOWN_CLOSE_MS,
  );
}

try {
  main();
} catch (err) {
  exitOnStartupError(undefined, err);
}
