import { toTaskObject, videoTaskObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';
import { endpoint, type Route } from '../route';
import { videoTaskNotFound } from '../video-tasks';

/**
 * POST /v1/videos/:taskId/cancel: a pending task fails at once with code `canceled` and a full
 * refund; a task running upstream is canceled there first. 409 when it can no longer be canceled.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.post('/videos/:taskId/cancel', requireApiKey(deps), async (req, res) => {
    const { accountId } = principalOf(req);
    const taskId = String(req.params.taskId);
    // a canceled task is published, counted and its `video.failed` delivery enqueued at once
    const outcome = TASK_ID_PATTERN.test(taskId)
      ? await deps.lifecycle.cancel(taskId, accountId)
      : { kind: 'not_found' as const };
    if (outcome.kind === 'not_found') {
      throw videoTaskNotFound(taskId, 'task_id');
    }
    if (outcome.kind === 'not_cancelable') throw new ApiError('conflict', outcome.reason, 'task_id');
    req.log.info({ taskId }, 'video task canceled');
    res.status(200).json(toTaskObject(outcome.row));
  });
}

export const contract = endpoint('POST /v1/videos/:taskId/cancel', 'Cancel a task (full refund)', {
  tag: 'videos',
  auth: 'apiKey',
  200: videoTaskObject,
  409: 'no longer cancelable',
  429: "no task-query slot of the task's channel within 3 s (Retry-After)",
});

export const route: Route = { mount: '/v1', contracts: [contract], register };
