import type { ImageModel, ModelCatalog } from '@mediagate/shared/catalog';
import { ApiError } from '@mediagate/shared/errors';
import type { ImageJob, ImagesResponse } from '@mediagate/shared/images';
import type { Request, Response } from 'express';
import type { ApiDeps } from './deps';
import { principalOf } from './middleware/auth';
import { requirePublicUrls } from './public-urls';

// What the two image routes (generations and edits) share: the body's shape, the model, the answer.

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

/** What a route adds to the images answer for its caller (the playground: a download link per image). */
export type PresentImages = (result: ImagesResponse, req: Request) => object;

/**
 * Runs a checked job for the caller and sends the OpenAI images answer (as `present` words it,
 * when given). Reference image URLs must be public: the vendor fetches them on the gateway's
 * behalf (data URLs travel inline).
 */
export async function answerImages(
  deps: ApiDeps,
  req: Request,
  res: Response,
  job: ImageJob,
  present?: PresentImages,
): Promise<void> {
  await requirePublicUrls(
    deps.ssrf,
    job.images.map((ref, i) => [
      job.images.length > 1 ? `image[${i}]` : 'image',
      ref.startsWith('data:') ? undefined : ref,
      'input',
    ]),
    deps.config.PUBLIC_BASE_URL,
  );
  const { accountId, keyId } = principalOf(req);
  const result = await deps.images.generate(job, {
    accountId,
    keyId,
    requestId: String(req.id),
    // the request's logger is made when the call first logs (see requestContext)
    log: () => req.log,
    logsInfo: deps.logger.isLevelEnabled('info'),
  });
  res.status(200).json(present ? present(result, req) : result);
}
