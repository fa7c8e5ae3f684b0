import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import { VARIANT_OF_FILE } from '@mediagate/shared/media';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { firstFrameOrMedia } from '../media/first-frame';
import { sendTaskMedia, taskMediaAnswers } from '../media/task-media-response';
import { endpoint, type Route } from '../route';

const linkQuery = z.object({
  exp: z.string().regex(/^\d{1,12}$/, 'must be Unix seconds'),
  sig: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be the link signature'),
  /** `1`: answered as an attachment (a download button), with the task's file name */
  download: z.literal('1').optional(),
});

/**
 * GET /media/:taskId/:file (`video.mp4` or `thumbnail.jpg`) `?exp=&sig=`: a task's media by the
 * signed link its task object carries. No Authorization header (it works in `<video>` and `<img>`
 * tags): the signature is the permission, and the link stops working at `exp`, the end of
 * retention. With the S3 driver the answer is a redirect to a presigned (or CDN) link. With
 * `&download=1` the file comes as an attachment named after the task (the console's download button).
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/media/:taskId/:file', async (req, res) => {
    const taskId = String(req.params.taskId);
    const variant = VARIANT_OF_FILE[String(req.params.file)];
    const query = linkQuery.safeParse(req.query);
    if (!variant || !TASK_ID_PATTERN.test(taskId) || !query.success) {
      throw new ApiError('not_found', 'No such media link.', 'url');
    }
    const exp = Number(query.data.exp);
    if (!deps.media.signer.verify(taskId, variant, exp, query.data.sig)) {
      throw new ApiError('invalid_media_link', 'This media link is not valid.', 'sig');
    }
    if (exp * 1000 <= Date.now()) {
      throw new ApiError(
        'video_expired',
        'This media link has expired, and the video is no longer kept.',
        'exp',
      );
    }
    await sendTaskMedia(req, res, {
      storage: deps.media.storage,
      media: await firstFrameOrMedia(deps, res, taskId, variant),
      variant,
      redirectToStorage: true,
      disposition: query.data.download ? 'attachment' : 'inline',
    });
  });
}

export const contract = endpoint(
  'GET /media/:taskId/:file',
  "A task's video (video.mp4) or first frame (thumbnail.jpg) by its signed link (?exp=&sig=, &download=1 for an attachment), without a key",
  {
    tag: 'videos',
    auth: 'signature',
    ...taskMediaAnswers,
    302: 'S3 driver: a presigned or CDN link; not copied yet: the vendor link',
    403: 'invalid_media_link',
    404: 'video_expired, video_deleted, thumbnail_unavailable',
  },
);

export const route: Route = { mount: '', contracts: [contract], register };
