import { randomUUID } from 'node:crypto';
import type { Database } from '@mediagate/shared/db';
import { imageSettleAfterMs } from '@mediagate/shared/images';
import type { Logger } from '@mediagate/shared/log';
import type { MediaStorage } from '@mediagate/shared/media';
import type { Metrics } from '@mediagate/shared/metrics';
import { createQrPaymentProviders } from '@mediagate/shared/payments';
import { type RedisClient, redisKey } from '@mediagate/shared/queue';
import type { TaskLifecycle } from '@mediagate/shared/tasks';
import type { Queue } from 'bullmq';
import type { WorkerConfig } from '../config';
import { fleetSource } from '../fleet';
import { startReconciler } from '../reconciler';

export interface ReconcilerRoleDeps {
  config: WorkerConfig;
  logger: Logger;
  database: Database;
  redis: RedisClient;
  queues: { video: Queue; callbacks: Queue; media: Queue };
  storage: MediaStorage;
  /** every move of a task, with what follows it (see createWorkerLifecycle) */
  lifecycle: TaskLifecycle;
  metrics: Metrics;
}

/**
 * The reconciler role: one sweep at a time across the fleet (a Redis lock) of what a crash or an
 * outage left behind (tasks to enqueue or time out, deliveries and copies to enqueue, images to
 * settle, top-ups to query), and the fleet-wide gauges, reported by one reconciler of the fleet.
 */
export function startReconcilerRole(deps: ReconcilerRoleDeps): { close(): Promise<void> } {
  const { config, logger, database, redis, queues, metrics } = deps;
  const reconciler = startReconciler({
    database,
    redis,
    videoQueue: queues.video,
    callbacksQueue: queues.callbacks,
    logger,
    metrics,
    lifecycle: deps.lifecycle,
    media: { storage: deps.storage, mediaQueue: queues.media },
    topUps: { providers: createQrPaymentProviders(config), afterMs: config.TOPUP_RECONCILE_AFTER_MS },
    config: {
      intervalMs: config.RECONCILER_INTERVAL_MS,
      graceMs: config.RECONCILER_GRACE_MS,
      imageSettleAfterMs: imageSettleAfterMs(config),
      lockKey: redisKey(config.QUEUE_PREFIX, 'reconciler-lock'),
      queuePrefix: config.QUEUE_PREFIX,
    },
  });
  const fleet = fleetSource({
    database,
    redis,
    queues: [queues.video, queues.callbacks, queues.media],
    key: redisKey(config.QUEUE_PREFIX, 'fleet-reporter'),
    token: randomUUID(),
  });
  metrics.reportFleet(fleet);
  logger.info(
    { intervalMs: config.RECONCILER_INTERVAL_MS, imageSettleAfterMs: imageSettleAfterMs(config) },
    'reconciler started',
  );
  return {
    close: async () => {
      await reconciler.stop();
      await fleet.release().catch(() => undefined);
    },
  };
}
