import { ApiError } from '@mediagate/shared/errors';
import { TaskLifecycle, taskEventOf } from '@mediagate/shared/tasks';
import { enqueueNewDeliveries, enqueueTaskCallbacks } from '@mediagate/shared/webhooks';
import type { ApiDeps } from './deps';

const built = new WeakMap<ApiDeps, TaskLifecycle>();

/**
 * The moves the API makes (cancels, operators' retries), one per app: published to this
 * replica's event hub (and through it to the others), counted, and their callback deliveries
 * enqueued at once within ENQUEUE_TIMEOUT_MS (the reconciler enqueues what this misses).
 */
export function taskLifecycle(deps: ApiDeps): TaskLifecycle {
  let lifecycle = built.get(deps);
  if (lifecycle) return lifecycle;
  const timeoutMs = deps.config.ENQUEUE_TIMEOUT_MS;
  const { channels, client } = deps.videoUpstream;
  lifecycle = new TaskLifecycle({
    db: deps.database.db,
    logger: deps.logger,
    metrics: deps.metrics,
    callbacks: {
      enqueueNew: (ids) => enqueueNewDeliveries(deps.callbacksQueue, ids, { timeoutMs }),
      enqueueForTask: (taskId) =>
        enqueueTaskCallbacks(deps.database.db, deps.callbacksQueue, taskId, { timeoutMs }),
    },
    events: deps.taskEvents && { publish: (row) => deps.taskEvents?.publish(taskEventOf(row)) },
    upstream: {
      cancel: async (channelName, upstreamTaskId) => {
        const channel = channels.get(channelName);
        if (!channel)
          throw new ApiError('server_error', 'The channel that runs this task is no longer configured.');
        await client.cancel(channel, upstreamTaskId);
      },
    },
  });
  built.set(deps, lifecycle);
  return lifecycle;
}
