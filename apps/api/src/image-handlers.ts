import type { ImageModel } from '@mediagate/shared/catalog';
import { ApiError } from '@mediagate/shared/errors';
import {
  coerceFormFields,
  imageRequestSchema,
  parseImageRequest,
  uploadToDataUrl,
} from '@mediagate/shared/images';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { ApiDeps } from './deps';
import { answerImages, imageModelFor, objectBody, type PresentImages } from './image-answers';
import { parseBody } from './middleware/body';
import { admitBody, leastPriceAmong } from './middleware/body-admission';
import { requireModelAllowed } from './model-permission';

// The handler chains of the two image routes after their authentication: POST /v1/images/* with a
// key, and the console's playground on the session (routes/playground.images.ts), so both are
// admitted, checked, charged and settled alike.

/**
 * An image generation after `authenticate` (handlers that set the request's principal and count its
 * rate limit): the one path of POST /v1/images/generations and of the console's playground, so both
 * are admitted, checked, charged and settled alike.
 */
export function generateImageHandlers(
  deps: ApiDeps,
  authenticate: RequestHandler[],
  present?: PresentImages,
): RequestHandler[] {
  return [
    ...authenticate,
    admitBody(deps, {
      limitBytes: deps.config.IMAGE_BODY_LIMIT_BYTES,
      models: 'image model',
      leastPrice: leastPriceAmong(deps.catalog.images().map((m) => ({ id: m.id, price: m.priceMicroUsd }))),
    }),
    ...parseBody({ limitBytes: deps.config.IMAGE_BODY_LIMIT_BYTES }),
    async (req, res) => {
      const body = objectBody(req.body);
      const model = imageModelFor(deps.catalog, body.model);
      requireModelAllowed(req, model.id);
      await answerImages(deps, req, res, parseImageRequest(model, body), present);
    },
  ];
}

/** The file fields of the form: `image` (one file) or `image[]` (several, as the openai client sends them). */
const FILE_FIELDS = ['image', 'image[]', 'mask'];

/**
 * An image edit after `authenticate` (handlers that set the request's principal and count its rate
 * limit): the one path of POST /v1/images/edits and of the console's playground.
 */
export function editImageHandlers(
  deps: ApiDeps,
  authenticate: RequestHandler[],
  present?: PresentImages,
): RequestHandler[] {
  const editModels = deps.catalog.images().filter((m) => m.input.max > 0);
  const defaultModel = editModels.find((m) => m.capabilities.includes('image-edit')) ?? editModels[0];
  const maxFiles = Math.max(1, ...editModels.map((m) => m.input.max));
  const maxFileBytes = Math.max(1, ...editModels.map((m) => m.input.maxBytes));
  return [
    ...authenticate,
    admitBody(deps, {
      limitBytes: deps.config.IMAGE_BODY_LIMIT_BYTES,
      models: 'image model that edits',
      leastPrice: leastPriceAmong(editModels.map((m) => ({ id: m.id, price: m.priceMicroUsd }))),
    }),
    ...parseBody({
      limitBytes: deps.config.IMAGE_BODY_LIMIT_BYTES,
      multipart: true,
      files: {
        fields: FILE_FIELDS,
        maxCount: maxFiles,
        maxFileBytes,
        // a form that names its model before its files hears of one file too many as it starts
        tooMany: (files, fields) => {
          const model = fields.model === undefined ? undefined : deps.catalog.image(fields.model);
          if (!model || model.input.max === 0 || files <= model.input.max) return undefined;
          const { min, max } = model.input;
          const range = min === max ? `${min}` : `${min} to ${max}`;
          return {
            message: `${model.id} takes ${range} image${max === 1 ? '' : 's'}; this form has more.`,
            param: 'image',
          };
        },
      },
    }),
    async (req, res) => {
      const body = objectBody(req.body);
      const model: ImageModel = imageModelFor(deps.catalog, body.model ?? defaultModel?.id);
      requireModelAllowed(req, model.id);
      if (model.input.max === 0) {
        throw new ApiError(
          'invalid_request',
          `${model.id} makes images from text only and cannot edit.`,
          'model',
        );
      }
      body.model = model.id;
      const files = (req.files ?? {}) as Record<string, Express.Multer.File[]>;
      if (files.mask) {
        throw new ApiError(
          'invalid_request',
          'mask is not supported; describe the change in the prompt.',
          'mask',
        );
      }
      if (req.is('multipart/form-data')) coerceFormFields(model, body);
      const uploads = [...(files.image ?? []), ...(files['image[]'] ?? [])];
      if (uploads.length > 0) {
        if (body.image !== undefined) {
          throw new ApiError(
            'invalid_request',
            'Send the images as files or as image URLs, not both.',
            'image',
          );
        }
        body.image = uploads.map((f, i) =>
          uploadToDataUrl(f.buffer, model.input, uploads.length > 1 ? `image[${i}]` : 'image'),
        );
      }
      if (body.image === undefined) {
        throw new ApiError(
          'invalid_request',
          "Missing required field 'image': the image(s) to edit.",
          'image',
        );
      }
      await answerImages(deps, req, res, parseImageRequest(model, body), present);
    },
  ];
}

/**
 * What the document shows of an edit request: the fields of the models that edit, with `image` as the
 * multipart form's files (a JSON request sends URLs or data URLs instead); `model` may be left out.
 */
export const editBody = (models: readonly ImageModel[]) =>
  imageRequestSchema(models).extend({
    model: z.string().optional().describe('defaults to the first image-edit model'),
    image: z
      .array(z.string().meta({ format: 'binary' }))
      .describe('the image files to edit (in JSON: URLs or data URLs)'),
  });
