import type { Database } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import { createMediaLinkSigner, type MediaEnv, mediaRetentionMs } from '@mediagate/shared/media';
import type { Metrics } from '@mediagate/shared/metrics';
import { enqueueMediaCopy, type RedisClient } from '@mediagate/shared/queue';
import { TaskDurations, TaskEventPublisher, TaskLifecycle } from '@mediagate/shared/tasks';
import { enqueueNewDeliveries, enqueueTaskCallbacks } from '@mediagate/shared/webhooks';
import type { Queue } from 'bullmq';

export interface WorkerLifecycleDeps {
  config: MediaEnv & { QUEUE_PREFIX: string };
  database: Database;
  /** where moves are published (with a completion estimate from the learned durations) */
  redis: RedisClient;
  logger: Logger;
  metrics?: Metrics;
  queues: {
    /** the callbacks dispatcher's queue: a move's deliveries are enqueued once it commits */
    callbacks: Queue;
    /** the media copies of successes; without it a succeeded task keeps the vendor's link */
    media?: Queue;
  };
}

/**
 * The moves a worker process makes (video role, reconciler), with what follows each: its callback
 * deliveries enqueued, the move published and counted, a success's signed media links and copy.
 */
export function createWorkerLifecycle(deps: WorkerLifecycleDeps): TaskLifecycle {
  const { config, database, queues } = deps;
  const signer = createMediaLinkSigner(config, deps.logger);
  const media = queues.media;
  return new TaskLifecycle({
    db: database.db,
    logger: deps.logger,
    metrics: deps.metrics,
    callbacks: {
      enqueueForTask: (taskId) => enqueueTaskCallbacks(database.db, queues.callbacks, taskId),
      enqueueNew: (deliveryIds) => enqueueNewDeliveries(queues.callbacks, deliveryIds),
    },
    events: new TaskEventPublisher(
      deps.redis,
      config.QUEUE_PREFIX,
      new TaskDurations(deps.redis, config.QUEUE_PREFIX),
    ),
    media: media && {
      linksFor: (taskId, completedAt) =>
        signer.linksFor(taskId, new Date(completedAt.getTime() + mediaRetentionMs(config))),
      copy: (taskId) => enqueueMediaCopy(media, taskId),
    },
  });
}
