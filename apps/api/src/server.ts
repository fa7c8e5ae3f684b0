// First: starts tracing, which instruments the modules loaded after it.
import './tracing';
import type { Server } from 'node:http';
import {
  createDatabase,
  ensureAdminAccount,
  createLogger,
  createMetrics,
  createRedis,
  createCallbacksQueue,
  createSsrfPolicy,
  createVideoQueue,
  exitOnStartupError,
  loadCatalog,
  LruCache,
  loadConfig,
  onShutdown,
} from '@mediagate/shared';
import { buildApp } from './app';
import { apiEnvSchema } from './config';
import { tracing } from './tracing';
import { createUpstreams } from './upstreams';
import { createMailer } from './mail/mailer';
import { drainUsageRecords } from './middleware/auth';
import { RateLimits, rateLimitConfig } from './middleware/rate-limit';
import { createDevPaymentProvider, type PaymentProvider } from './payments/provider';

/** Process entry of the API: wires dependencies, listens, drains on SIGTERM. */
function main(): void {
  const config = loadConfig(apiEnvSchema);
  const logger = createLogger({ service: 'api', level: config.LOG_LEVEL });
  if (tracing.enabled) logger.info('tracing: exporting spans over OTLP');
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX ?? 20,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
  });
  const redis = createRedis(config.REDIS_URL, 'producer', { cluster: config.REDIS_CLUSTER });
  const videoQueue = createVideoQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
  const callbacksQueue = createCallbacksQueue(redis, config.QUEUE_PREFIX, { telemetry: tracing.bullmq });
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
    taskCache: config.TASK_CACHE_ENTRIES > 0 ? new LruCache(config.TASK_CACHE_ENTRIES) : undefined,
    isAcceptingTraffic: () => accepting,
  });
  const server: Server = app.listen(config.PORT, config.HOST, () => {
    const addr = server.address();
    logger.info({ port: typeof addr === 'object' && addr ? addr.port : config.PORT }, 'api listening');
  });
  server.keepAliveTimeout = 65_000;
  server.on('error', (err) => exitOnStartupError(logger, err));

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
      await tracing.shutdown();
    },
    config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_GRACE_MS + 15_000,
  );
}

try {
  main();
} catch (err) {
  exitOnStartupError(undefined, err);
}
