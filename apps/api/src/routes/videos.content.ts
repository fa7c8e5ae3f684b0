import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { firstFrameOrMedia } from '../media/first-frame';
import { sendTaskMedia, taskMediaAnswers } from '../media/task-media-response';
import { principalOf, requireApiKey } from '../middleware/auth';
import { endpoint, type Route } from '../route';
import { ownVideoTask } from '../video-tasks';

export const contentQuerySchema = z.object({
  variant: z.string().optional(),
});

/**
 * GET /v1/videos/:taskId/content?variant=video|thumbnail: the bytes of a succeeded task's video
 * (MP4) or its first frame (JPEG), as the OpenAI client's `videos.downloadContent()` reads them.
 * Streams from storage through the API (Range requests work); while no copy exists yet, redirects
 * to the vendor's link. `spritesheet` is refused: this gateway makes no sprite sheets.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/videos/:taskId/content', requireApiKey(deps), async (req, res) => {
    const { accountId } = principalOf(req);
    const taskId = String(req.params.taskId);
    const { variant = 'video' } = contentQuerySchema.parse(req.query);
    const task = await ownVideoTask(deps, accountId, taskId, 'video_id');
    if (variant === 'spritesheet') {
      throw new ApiError(
        'invalid_request',
        "variant 'spritesheet' is not available: this gateway keeps the video and its first frame; use variant=video or variant=thumbnail.",
        'variant',
      );
    }
    if (variant !== 'video' && variant !== 'thumbnail') {
      throw new ApiError('invalid_request', "variant must be 'video' or 'thumbnail'.", 'variant');
    }
    if (task.status !== 'succeeded') {
      throw new ApiError(
        'video_not_ready',
        task.status === 'failed'
          ? 'This task failed; it has no video.'
          : `This task is ${task.status}; its video is not ready yet.`,
        'video_id',
      );
    }
    await sendTaskMedia(req, res, {
      storage: deps.media.storage,
      media: await firstFrameOrMedia(deps, res, taskId, variant),
      variant,
      redirectToStorage: false,
      disposition: 'attachment',
    });
  });
}

export const contract = endpoint(
  'GET /v1/videos/:taskId/content',
  "Download a succeeded task's video (variant=video, MP4) or first frame (variant=thumbnail, JPEG)",
  {
    tag: 'videos',
    auth: 'apiKey',
    query: contentQuerySchema,
    ...taskMediaAnswers,
    302: "not copied yet: the vendor's link",
    400: 'spritesheet or an unknown variant',
    404: 'no such task; video_not_ready, video_expired, video_deleted, thumbnail_unavailable',
  },
);

export const route: Route = { mount: '/v1', contracts: [contract], register };
