import type { Server } from 'node:http';
import {
  createCallbacksQueue,
  createDatabase,
  createLogger,
  createMetrics,
  createRedis,
  createSsrfPolicy,
  createVideoQueue,
  ensureAdminAccount,
  exitOnStartupError,
  LruCache,
  loadCatalog,
  loadConfig,
  onShutdown,
  TaskDurations,
} from '@mediagate/shared';
import { buildApp } from './app';
import { apiEnvSchema } from './config';
import { createMailer } from './mail/mailer';
import { drainUsageRecords } from './middleware/auth';
import { RateLimits, rateLimitConfig } from './middleware/rate-limit';
import { createDevPaymentProvider, type PaymentProvider } from './payments/provider';
import { TaskEventHub } from './task-events';
import { createUpstreams } from './upstreams';

/** Process entry of the API: wires dependencies, listens, drains on SIGTERM. */
function main(): void {
  const config = loadConfig(apiEnvSchema);
  const logger = createLogger({ service: 'api', level: config.LOG_LEVEL });
  const database = createDatabase(config.DATABASE_URL, { max: config.DATABASE_POOL_MAX ?? 20 });
  const redis = createRedis(config.REDIS_URL, 'producer');
  const videoQueue = createVideoQueue(redis, config.QUEUE_PREFIX);
  const callbacksQueue = createCallbacksQueue(redis, config.QUEUE_PREFIX);
  const metrics = createMetrics({ service: 'api' });
  metrics.watchQueues(videoQueue, callbacksQueue);
  const ssrf = createSsrfPolicy({
    allowCidrs: config.SSRF_ALLOW_CIDRS,
    dnsTimeoutMs: config.SSRF_DNS_TIMEOUT_MS,
  });
  const catalog = loadCatalog(config.MODEL_CATALOG_FILE);
  const upstreams = createUpstreams(config, { db: database.db, logger, metrics });
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, logger });
  const rateLimits = new RateLimits(redis, rateLimitConfig(config), logger);
  const paymentProviders: PaymentProvider[] = config.PAYMENT_DEV_SECRET
    ? [createDevPaymentProvider(config.PAYMENT_DEV_SECRET, config.PAYMENT_SIGNATURE_TOLERANCE_S)]
    : [];
  if (config.ADMIN_EMAIL && config.ADMIN_PASSWORD) {
    ensureAdminAccount(database.db, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD }).then(
      (id) => logger.info({ accountId: id, email: config.ADMIN_EMAIL }, 'admin account ready'),
      (err: unknown) => logger.error({ err }, 'could not set up the admin account'),
    );
  }
  const taskCache =
    config.TASK_CACHE_ENTRIES > 0
      ? new LruCache<string, { accountId: string; json: string }>(config.TASK_CACHE_ENTRIES)
      : undefined;
  const taskEvents = new TaskEventHub(
    createRedis(config.REDIS_URL, 'worker'),
    redis,
    config.QUEUE_PREFIX,
    {
      runningCacheMs: config.TASK_RUNNING_CACHE_MS,
      runningCacheEntries: Math.max(config.TASK_CACHE_ENTRIES, 1),
      maxStreamsPerKey: config.SSE_MAX_STREAMS_PER_KEY,
    },
    logger,
    taskCache,
  );
  taskEvents.start().catch((err: unknown) => logger.error({ err }, 'could not subscribe to task events'));
  let accepting = true;
  const app = buildApp({
    mailer,
    rateLimits,
    paymentProviders,
    database,
    redis,
    videoQueue,
    callbacksQueue,
    ssrf,
    catalog,
    images: upstreams.images,
    videoUpstream: { channels: upstreams.channels, client: upstreams.video },
    logger,
    config,
    metrics,
    authCache: config.AUTH_CACHE_TTL_MS > 0 ? new LruCache(10_000, config.AUTH_CACHE_TTL_MS) : undefined,
    taskCache,
    taskEvents,
    durations: new TaskDurations(redis, config.QUEUE_PREFIX),
    isAcceptingTraffic: () => accepting,
  });
  const server: Server = app.listen(config.PORT, config.HOST, () => {
    const addr = server.address();
    logger.info({ port: typeof addr === 'object' && addr ? addr.port : config.PORT }, 'api listening');
  });
  server.keepAliveTimeout = 65_000;
  server.on('error', (err) => exitOnStartupError(logger, err));

  onShutdown(logger, async () => {
    accepting = false;
    taskEvents.closeStreams();
    // Let load balancers see /readyz fail, then stop taking connections and finish in-flight ones.
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, config.SHUTDOWN_GRACE_MS).unref();
    });
    await taskEvents.close();
    await videoQueue.close();
    await callbacksQueue.close();
    await upstreams.close();
    mailer.close();
    redis.disconnect();
    await drainUsageRecords(database);
    await database.close();
  });
}

try {
  main();
} catch (err) {
  exitOnStartupError(undefined, err);
}
