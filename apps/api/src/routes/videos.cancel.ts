import {
  ApiError,
  cancelTask,
  enqueueTaskCallbacks,
  TASK_ID_PATTERN,
  taskEventOf,
  toTaskObject,
} from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';

/**
 * POST /v1/videos/:taskId/cancel: a pending task fails at once with code `canceled` and a full
 * refund; a task running upstream is canceled there first. 409 when it can no longer be canceled.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.post('/videos/:taskId/cancel', requireApiKey(deps), async (req, res) => {
    const { accountId } = principalOf(req);
    const taskId = String(req.params.taskId);
    const { channels, client } = deps.videoUpstream;
    const outcome = TASK_ID_PATTERN.test(taskId)
      ? await cancelTask(deps.database.db, taskId, accountId, async (channelName, upstreamTaskId) => {
          const channel = channels.get(channelName);
          if (!channel)
            throw new ApiError('server_error', 'The channel that runs this task is no longer configured.');
          await client.cancel(channel, upstreamTaskId);
        })
      : { kind: 'not_found' as const };
    if (outcome.kind === 'not_found') {
      throw new ApiError('not_found', `No video task found with id '${taskId.slice(0, 64)}'.`, 'task_id');
    }
    if (outcome.kind === 'not_cancelable') throw new ApiError('conflict', outcome.reason, 'task_id');
    // event streams and every replica's cache of the task see the end at once
    deps.taskEvents?.publish(taskEventOf(outcome.row));
    // The move committed the task's `video.failed` delivery: hand it to the dispatcher now
    // rather than at the reconciler's next sweep (which still enqueues it if this fails).
    await enqueueTaskCallbacks(deps.database.db, deps.callbacksQueue, taskId, {
      timeoutMs: deps.config.ENQUEUE_TIMEOUT_MS,
    }).catch((err: unknown) =>
      req.log.warn({ err, taskId }, 'callback enqueue failed; the reconciler will enqueue it'),
    );
    req.log.info({ taskId }, 'video task canceled');
    res.status(200).json(toTaskObject(outcome.row));
  });
}
