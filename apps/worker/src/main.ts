// First: starts tracing, which instruments the modules loaded after it.
import './tracing';
import { createDatabase } from '@mediagate/shared/db';
import { createLogger } from '@mediagate/shared/log';
import { createMediaStorage } from '@mediagate/shared/media';
import { createMetrics } from '@mediagate/shared/metrics';
import { exitOnStartupError, onShutdown } from '@mediagate/shared/process';
import {
  createCallbacksQueue,
  createMediaQueue,
  createRedis,
  createVideoQueue,
  QUEUE_NAMES,
} from '@mediagate/shared/queue';
import { getTask, TaskEventPublisher } from '@mediagate/shared/tasks';
import { startCallbacksRole } from './callbacks/role';
import { loadWorkerConfig } from './config';
import { queueReadinessKeys, startHealthServer } from './http-server';
import { startMediaCopyRole } from './media/role';
import { startReconcilerRole } from './reconciler/role';
import { createWorkerLifecycle } from './task-lifecycle';
import { tracing } from './tracing';
import { startVideoRole } from './video/role';

/**
 * Process entry of the workers: reads the configuration, opens the connections the roles share
 * (Postgres, Redis, the three queues, media storage, metrics, one task lifecycle), starts the roles
 * named by --role / WORKER_ROLE (each in its role.ts), serves health and metrics, and drains on
 * SIGTERM.
 */
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
    const storedMedia = new TaskEventPublisher(redis, config.QUEUE_PREFIX);
    const media = startMediaCopyRole({
      config,
      logger,
      database,
      storage,
      metrics,
      announceStored: async (taskId) => {
        const row = await getTask(database.db, taskId);
        if (row) storedMedia.publish(row);
      },
      telemetry: tracing.bullmq,
    });
    stops.push(media.close);
  }
  if (roles.has('reconciler')) {
    const reconciler = startReconcilerRole({
      config,
      logger,
      database,
      redis,
      queues: { video: videoQueue, callbacks: callbacksQueue, media: mediaQueue },
      storage,
      lifecycle: lifecycleOf(),
      metrics,
    });
    stops.push(reconciler.close);
  }
  if (roles.has('callbacks')) {
    const callbacks = startCallbacksRole({ config, logger, database, metrics, telemetry: tracing.bullmq });
    stops.push(callbacks.close);
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
