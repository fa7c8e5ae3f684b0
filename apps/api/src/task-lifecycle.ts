import type { Database } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { Metrics } from '@mediagate/shared/metrics';
import { enqueueVideoTask, type PendingEnqueues } from '@mediagate/shared/queue';
import { TaskLifecycle, taskEventOf } from '@mediagate/shared/tasks';
import type { ChannelPool, DashScopeVideoClient } from '@mediagate/shared/upstream';
import { enqueueNewDeliveries, enqueueTaskCallbacks } from '@mediagate/shared/webhooks';
import type { Queue } from 'bullmq';
import type { TaskEventHub } from './task-events';

export interface ApiLifecycleParts {
  database: Database;
  logger: Logger;
  metrics?: Metrics;
  videoQueue: Queue;
  callbacksQueue: Queue;
  /** enqueues that failed while Redis was away, made again as soon as it answers */
  pendingEnqueues: PendingEnqueues;
  /** this replica's event hub (and through it the others') */
  taskEvents?: TaskEventHub;
  videoUpstream: { channels: ChannelPool; client: DashScopeVideoClient };
  /** how long an enqueue may take before the task is left to PendingEnqueues and the reconciler */
  enqueueTimeoutMs: number;
}

/**
 * The moves the API makes (creates, cancels, operators' retries), built once by the process entry:
 * a new task's job is enqueued within `enqueueTimeoutMs` or kept until Redis answers; moves are
 * published to this replica's event hub (and through it to the others) and counted; their callback
 * deliveries are enqueued at once (the reconciler enqueues what this misses).
 */
export function createApiLifecycle(parts: ApiLifecycleParts): TaskLifecycle {
  const timeoutMs = parts.enqueueTimeoutMs;
  const { channels, client } = parts.videoUpstream;
  const { taskEvents } = parts;
  return new TaskLifecycle({
    db: parts.database.db,
    logger: parts.logger,
    metrics: parts.metrics,
    videoQueue: {
      enqueue: (taskId, requestId) =>
        parts.pendingEnqueues.run(taskId, () =>
          enqueueVideoTask(parts.videoQueue, { taskId, requestId }, { timeoutMs }),
        ),
    },
    callbacks: {
      enqueueNew: (ids) => enqueueNewDeliveries(parts.callbacksQueue, ids, { timeoutMs }),
      enqueueForTask: (taskId) =>
        enqueueTaskCallbacks(parts.database.db, parts.callbacksQueue, taskId, { timeoutMs }),
    },
    events: taskEvents && { publish: (row) => taskEvents.publish(taskEventOf(row)) },
    upstream: {
      cancel: async (channelName, upstreamTaskId) => {
        const channel = channels.get(channelName);
        if (!channel)
          throw new ApiError('server_error', 'The channel that runs this task is no longer configured.');
        await client.cancel(channel, upstreamTaskId);
      },
    },
  });
}
