import type { ImageModel } from '@mediagate/shared/catalog';
import { imagesResponse } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import {
  coerceFormFields,
  imageRequestSchema,
  parseImageRequest,
  uploadToDataUrl,
} from '@mediagate/shared/images';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { answerImages, imageModelFor, objectBody } from '../image-answers';
import { requireApiKey } from '../middleware/auth';
import { parseBody } from '../middleware/body';
import { admitBody, leastPriceAmong } from '../middleware/body-admission';
import { requireModelAllowed } from '../model-permission';
import { type ContractDeps, endpoint, type Route, type RouteContract } from '../route';

/** The file fields of the form: `image` (one file) or `image[]` (several, as the openai client sends them). */
const FILE_FIELDS = ['image', 'image[]', 'mask'];

/**
 * POST /v1/images/edits: the OpenAI edit endpoint. A multipart form with the image files and the
 * prompt (what the official client's `images.edit()` sends), or JSON with image URLs / data URLs.
 * Files are checked (an image of an accepted type within the model's limits) and sent to the vendor
 * as data URLs. Without `model`, the catalog's first image-edit model does the edit.
 */
export function register(router: Router, deps: ApiDeps): void {
  const editModels = deps.catalog.images().filter((m) => m.input.max > 0);
  const defaultModel = editModels.find((m) => m.capabilities.includes('image-edit')) ?? editModels[0];
  const maxFiles = Math.max(1, ...editModels.map((m) => m.input.max));
  const maxFileBytes = Math.max(1, ...editModels.map((m) => m.input.maxBytes));
  router.post(
    '/images/edits',
    requireApiKey(deps),
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
      await answerImages(deps, req, res, parseImageRequest(model, body));
    },
  );
}

/**
 * What the document shows of an edit request: the fields of the models that edit, with `image` as the
 * multipart form's files (a JSON request sends URLs or data URLs instead); `model` may be left out.
 */
const editBody = (models: readonly ImageModel[]) =>
  imageRequestSchema(models).extend({
    model: z.string().optional().describe('defaults to the first image-edit model'),
    image: z
      .array(z.string().meta({ format: 'binary' }))
      .describe('the image files to edit (in JSON: URLs or data URLs)'),
  });

export const contracts = ({ catalog }: ContractDeps): RouteContract[] => [
  endpoint('POST /v1/images/edits', 'Edit images given as files (the OpenAI multipart endpoint)', {
    tag: 'images',
    auth: 'apiKey',
    body: { schema: editBody(catalog.images().filter((m) => m.input.max > 0)), multipart: true, json: true },
    200: imagesResponse,
  }),
];

export const route: Route = { mount: '/v1', contracts, register };
