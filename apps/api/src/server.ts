import type { Server } from 'node:http';
import {
  createDatabase,
  ensureAdminAccount,
  createLogger,
  createMetrics,
  createRedis,
  createCallbacksQueue,
  createSsrfPolicy,
  createQrPaymentProviders,
  createVideoQueue,
  exitOnStartupError,
  loadCatalog,
  LruCache,
  loadConfig,
  onShutdown,
} from '@mediagate/shared';
import { buildApp } from './app';
import { apiEnvSchema } from './config';
import { createUpstreams } from './upstreams';
import { createMailer } from './mail/mailer';
import { drainUsageRecords } from './middleware/auth';
import { RateLimits, rateLimitConfig } from './middleware/rate-limit';
import { createDevPaymentProvider, type PaymentProvider } from './payments/provider';

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
  let accepting = true;
  const app = buildApp({
    mailer,
    rateLimits,
    paymentProviders,
    qrProviders,
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
    taskCache: config.TASK_CACHE_ENTRIES > 0 ? new LruCache(config.TASK_CACHE_ENTRIES) : undefined,
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
    // Let load balancers see /readyz fail, then stop taking connections and finish in-flight ones.
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, config.SHUTDOWN_GRACE_MS).unref();
    });
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
