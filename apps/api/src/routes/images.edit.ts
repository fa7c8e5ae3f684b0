import { imagesResponse } from '@mediagate/shared/contracts';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { editBody, editImageHandlers } from '../image-handlers';
import { requireApiKey } from '../middleware/auth';
import { type ContractDeps, endpoint, type Route, type RouteContract } from '../route';

/**
 * POST /v1/images/edits: the OpenAI edit endpoint. A multipart form with the image files and the
 * prompt (what the official client's `images.edit()` sends), or JSON with image URLs / data URLs.
 * Files are checked (an image of an accepted type within the model's limits) and sent to the vendor
 * as data URLs. Without `model`, the catalog's first image-edit model does the edit.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.post('/images/edits', ...editImageHandlers(deps, [requireApiKey(deps)]));
}

export const contracts = ({ catalog }: ContractDeps): RouteContract[] => [
  endpoint('POST /v1/images/edits', 'Edit images given as files (the OpenAI multipart endpoint)', {
    tag: 'images',
    auth: 'apiKey',
    body: { schema: editBody(catalog.images().filter((m) => m.input.max > 0)), multipart: true, json: true },
    200: imagesResponse,
  }),
];

export const route: Route = { mount: '/v1', contracts, register };
