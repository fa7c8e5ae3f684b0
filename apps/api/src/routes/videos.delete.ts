import { ApiError } from '@mediagate/shared/errors';
import { deleteTaskMedia } from '@mediagate/shared/media';
import { getTaskForAccount, isTerminal, taskEventOf } from '@mediagate/shared/tasks';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';
import { endpoint, type Route } from '../route';
import { ownVideoTask } from '../video-tasks';

export const videoDeletedSchema = z
  .object({
    id: z.string(),
    object: z.literal('video.deleted'),
    deleted: z.literal(true),
  })
  .meta({ id: 'VideoDeleted' });

/**
 * DELETE /v1/videos/:taskId: deletes a finished task's kept video and first frame (their links stop
 * working at once) and answers what the OpenAI client expects, `{id, object: "video.deleted",
 * deleted: true}`. The task and its billing stay (its object shows no links). Idempotent. A task
 * still pending or processing is refused with 409: cancel it first.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.delete('/videos/:taskId', requireApiKey(deps), async (req, res) => {
    const { accountId } = principalOf(req);
    const taskId = String(req.params.taskId);
    const task = await ownVideoTask(deps, accountId, taskId, 'video_id');
    if (!isTerminal(task.status)) {
      throw new ApiError(
        'conflict',
        `This task is ${task.status}; only a finished task can be deleted. Cancel it first (POST /v1/videos/${taskId}/cancel).`,
        'video_id',
      );
    }
    if (task.status === 'succeeded') {
      await deleteTaskMedia(deps.database.db, deps.media.storage, taskId);
      req.log.info({ taskId }, 'video media deleted');
    }
    deps.taskCache?.delete(taskId);
    // every replica drops its cached answer, and the console's live pages show the task deleted
    const after = await getTaskForAccount(deps.database.db, taskId, accountId);
    if (after && task.status === 'succeeded') deps.taskEvents?.publish(taskEventOf(after));
    res.status(200).json(videoDeletedSchema.parse({ id: taskId, object: 'video.deleted', deleted: true }));
  });
}

export const contract = endpoint(
  'DELETE /v1/videos/:taskId',
  "Delete a finished task's kept video and first frame",
  {
    tag: 'videos',
    auth: 'apiKey',
    200: videoDeletedSchema,
    404: 'no such task for this account',
    409: 'the task is pending or processing',
  },
);

export const route: Route = { mount: '/v1', contracts: [contract], register };
