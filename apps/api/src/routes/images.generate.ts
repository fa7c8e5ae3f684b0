import { imagesResponse } from '@mediagate/shared/contracts';
import { imageRequestSchema } from '@mediagate/shared/images';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { generateImageHandlers } from '../image-handlers';
import { requireApiKey } from '../middleware/auth';
import { type ContractDeps, endpoint, type Route, type RouteContract } from '../route';

/**
 * POST /v1/images/generations, synchronous: text-to-image, image-to-image (`image`), multi-image
 * fusion (`image` as an array) and batches (`n`), with the model's own parameters, answered in the
 * OpenAI images shape plus `requested` and `delivered`.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.post('/images/generations', ...generateImageHandlers(deps, [requireApiKey(deps)]));
}

/** The request body is the catalog's: every field some image model takes (`imageRequestSchema`). */
export const contracts = ({ catalog }: ContractDeps): RouteContract[] => [
  endpoint('POST /v1/images/generations', 'Generate or edit images synchronously', {
    tag: 'images',
    auth: 'apiKey',
    body: imageRequestSchema(catalog.images()),
    200: imagesResponse,
    402: 'balance or key quota too low (before the body is read when it cannot pay for the cheapest image)',
    403: 'the key may not use the model (or any image model)',
    429: 'rate limited, or too many request bodies in flight for the account or the server (Retry-After)',
  }),
];

export const route: Route = { mount: '/v1', contracts, register };
