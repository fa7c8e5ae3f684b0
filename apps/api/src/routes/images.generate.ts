import type { ImageModel, ModelCatalog } from '@mediagate/shared/catalog';
import { imagesResponse } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { type ImageJob, imageRequestSchema, parseImageRequest } from '@mediagate/shared/images';
import type { Request, Response, Router } from 'express';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';
import { parseBody } from '../middleware/body';
import { requireModelAllowed } from '../model-permission';
import { requirePublicUrls } from '../public-urls';
import { type ContractDeps, endpoint, type Route, type RouteContract } from '../route';

/** The request body as an object, or a 400 saying what an images request looks like. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('invalid_request', 'The request body must be a JSON object with model and prompt.');
  }
  return body as Record<string, unknown>;
}

/** The image model named `id`: 404 model_not_found when the catalog has no such model, 400 for a video model. */
export function imageModelFor(catalog: ModelCatalog, id: unknown): ImageModel {
  if (id === undefined || id === null || id === '') {
    throw new ApiError('invalid_request', "Missing required field 'model'.", 'model');
  }
  if (typeof id !== 'string') throw new ApiError('invalid_request', 'model must be a string.', 'model');
  const found = catalog.get(id);
  if (!found)
    throw new ApiError('model_not_found', `The model '${id.slice(0, 100)}' does not exist.`, 'model');
  if (found.kind !== 'image') {
    throw new ApiError(
      'invalid_request',
      `'${id}' is a video model; create videos with POST /v1/videos.`,
      'model',
    );
  }
  return found;
}

/**
 * Runs a checked job for the caller and sends the OpenAI images answer. Reference image URLs must be
 * public: the vendor fetches them on the gateway's behalf (data URLs travel inline).
 */
export async function answerImages(deps: ApiDeps, req: Request, res: Response, job: ImageJob): Promise<void> {
  await requirePublicUrls(
    deps.ssrf,
    job.images.map((ref, i) => [
      job.images.length > 1 ? `image[${i}]` : 'image',
      ref.startsWith('data:') ? undefined : ref,
    ]),
  );
  const { accountId, keyId } = principalOf(req);
  const result = await deps.images.generate(job, {
    accountId,
    keyId,
    requestId: String(req.id),
    log: req.log,
  });
  res.status(200).json(result);
}

/**
 * POST /v1/images/generations, synchronous: text-to-image, image-to-image (`image`), multi-image
 * fusion (`image` as an array) and batches (`n`), with the model's own parameters, answered in the
 * OpenAI images shape plus `requested` and `delivered`.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.post(
    '/images/generations',
    requireApiKey(deps),
    ...parseBody({ limitBytes: deps.config.IMAGE_BODY_LIMIT_BYTES }),
    async (req, res) => {
      const body = objectBody(req.body);
      const model = imageModelFor(deps.catalog, body.model);
      requireModelAllowed(req, model.id);
      await answerImages(deps, req, res, parseImageRequest(model, body));
    },
  );
}

/** The request body is the catalog's: every field some image model takes (`imageRequestSchema`). */
export const contracts = ({ catalog }: ContractDeps): RouteContract[] => [
  endpoint('POST /v1/images/generations', 'Generate or edit images synchronously', {
    tag: 'images',
    auth: 'apiKey',
    body: imageRequestSchema(catalog.images()),
    200: imagesResponse,
    402: 'balance or key quota too low',
    429: 'rate limited (Retry-After)',
  }),
];

export const route: Route = { mount: '/v1', contracts, register };
