import type { Database } from '@mediagate/shared/db';
import { ApiError, UpstreamRateLimitedError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { Metrics } from '@mediagate/shared/metrics';
import {
  enqueueVideoTask,
  type PendingEnqueues,
  type RedisClient,
  takeSlot,
  upstreamQueryIntervalUs,
  upstreamQueryKey,
} from '@mediagate/shared/queue';
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
  /** the channels' task-query budget, shared with the workers' polls (a cancel takes a slot of it) */
  querySlots: QuerySlots;
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
        await takeQuerySlot(parts.querySlots, channelName);
        await client.cancel(channel, upstreamTaskId);
      },
    },
  });
}

export interface QuerySlots {
  redis: RedisClient;
  /** QUEUE_PREFIX: the workers' keys */
  prefix: string;
  /** UPSTREAM_POLL_QPS */
  queriesPerSecond: number;
}

/** a cancel waits at most this long for a query slot of its channel */
const CANCEL_SLOT_WAIT_MS = 3_000;
/** how late after its slot a cancel may still go (as the workers' queries) */
const CANCEL_SLOT_TOLERANCE_US = 50_000;

/**
 * Takes a task-query slot of `channel` for a cancel: the vendor counts a cancel against the same
 * per-key limit as the workers' queries and batch queries, so it is spaced among them instead of
 * pushing a second past the limit (a 429 to a worker's poll, or to the cancel). When no slot comes
 * within CANCEL_SLOT_WAIT_MS the cancel is refused with 429 and the wait, and the task runs on.
 */
async function takeQuerySlot(slots: QuerySlots, channel: string): Promise<void> {
  const intervalUs = upstreamQueryIntervalUs(slots.queriesPerSecond);
  if (intervalUs === 0) return;
  const waitMs = await takeSlot(slots.redis, upstreamQueryKey(slots.prefix, channel), {
    intervalUs,
    maxWaitMs: CANCEL_SLOT_WAIT_MS,
    toleranceUs: CANCEL_SLOT_TOLERANCE_US,
    retakes: 2,
    late: 'send',
  });
  if (waitMs > 0) {
    throw new UpstreamRateLimitedError(
      'The upstream task queries of this task are at their limit; retry the cancel in a moment.',
      Math.ceil(waitMs / 1000),
    );
  }
}
