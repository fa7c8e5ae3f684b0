import type { ModelCatalog } from '@mediagate/shared/catalog';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';
import { endpoint, type Route, type RouteContract, type RouteName } from '../route';
import { ownVideoTask } from '../video-tasks';

/** What this gateway's video models do, for the answer to the operations they cannot do. */
function supportedSummary(catalog: ModelCatalog): string {
  const families = [
    ...new Set(catalog.models.flatMap((m) => (m.kind === 'video' ? [`${m.family}-i2v-flash-*`] : []))),
  ];
  return `This gateway's video models (${families.join(', ')}) make a new video from an image and a prompt: POST /v1/videos with metadata.input.img_url.`;
}

/**
 * The OpenAI video operations no model here can do: remix (POST /v1/videos/:id/remix), edits
 * (POST /v1/videos/edits), extensions (POST /v1/videos/extensions) and characters
 * (POST /v1/videos/characters, GET /v1/videos/characters/:id). Each answers 400
 * `unsupported_operation` naming what the models do support, rather than an unknown route.
 * Remix names a task in its path: another account's task (or none) is a 404 first.
 */
export function register(router: Router, deps: ApiDeps): void {
  const refuse = (sentence: string): never => {
    throw new ApiError('unsupported_operation', `${sentence} ${supportedSummary(deps.catalog)}`);
  };
  router.post('/videos/:taskId/remix', requireApiKey(deps), async (req) => {
    const { accountId } = principalOf(req);
    const taskId = String(req.params.taskId);
    const _task = await ownVideoTask(deps, accountId, taskId, 'video_id');
    refuse('Remixing a video is not supported.');
  });
  router.post('/videos/edits', requireApiKey(deps), () => refuse('Editing a video is not supported.'));
  router.post('/videos/extensions', requireApiKey(deps), () => refuse('Extending a video is not supported.'));
  router.post('/videos/characters', requireApiKey(deps), () => refuse('Video characters are not supported.'));
  router.get('/videos/characters/:characterId', requireApiKey(deps), () =>
    refuse('Video characters are not supported.'),
  );
}

const unsupported = (route: RouteName, summary: string): RouteContract =>
  endpoint(route, summary, { tag: 'videos', auth: 'apiKey', 400: 'unsupported_operation' });

export const contracts: RouteContract[] = [
  unsupported('POST /v1/videos/:taskId/remix', 'Remix a video (not supported by these models)'),
  unsupported('POST /v1/videos/edits', 'Edit a video (not supported by these models)'),
  unsupported('POST /v1/videos/extensions', 'Extend a video (not supported by these models)'),
  unsupported('POST /v1/videos/characters', 'Create a video character (not supported by these models)'),
  unsupported(
    'GET /v1/videos/characters/:characterId',
    'Retrieve a video character (not supported by these models)',
  ),
];

export const route: Route = { mount: '/v1', contracts, register };
