import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { passFaults } from './faults';
import { countRejected, dataUrlBytes, imageRefKind, isObject, publicBase, requireKey } from './http-helpers';
import { probeDataUrlSize } from './image-probe';
import { imagePath } from './media';
import type { SimState } from './state';
import { dashscopeError, dashscopeRequestId, type VendorError } from './vendor-errors';

export const IMAGE_EDIT_PATH = '/api/v1/services/aigc/multimodal-generation/generation';
export const IMAGE_EDIT_MODEL = 'qwen-image-edit';
/** Size of every edited image the sim returns (the vendor keeps about a megapixel). */
export const IMAGE_EDIT_OUTPUT = { width: 1024, height: 1024 } as const;

const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
const SEED_MAX = 2_147_483_647;

const invalid = (message: string): VendorError => dashscopeError(400, 'InvalidParameter', message);
const rejectKey = (missing: boolean) =>
  dashscopeError(401, 'InvalidApiKey', missing ? 'No API-key provided.' : 'Invalid API-key provided.');

/** DashScope synchronous image editing with qwen-image-edit (spec section C). */
export function register(router: Router, state: SimState): void {
  router.use(
    IMAGE_EDIT_PATH,
    countRejected(() => {
      state.counters.image_edit.rejected += 1;
    }),
  );
  router.post(IMAGE_EDIT_PATH, async (req, res) => {
    try {
      await passFaults(state.faults, 'image_edit');
      requireKey(req, state, rejectKey);
      validateEditRequest(req.body);
      const { width, height } = IMAGE_EDIT_OUTPUT;
      const url = `${publicBase(req, state.config)}${imagePath(randomUUID(), width, height)}`;
      state.counters.image_edit.calls += 1;
      state.counters.image_edit.images += 1;
      res.json({
        output: {
          choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: [{ image: url }] } }],
        },
        usage: { image_count: 1, width, height },
        request_id: dashscopeRequestId(),
      });
    } catch (err) {
      state.counters.image_edit.rejected += 1;
      throw err;
    }
  });
}

/** Throws the vendor's 400 for the first rule `body` breaks: model, one user message, 1-3 images, one text. */
function validateEditRequest(body: unknown): void {
  if (!isObject(body)) throw invalid('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid('Field required: model');
  if (body.model !== IMAGE_EDIT_MODEL) throw invalid('Model not exist.');
  const input = body.input;
  if (!isObject(input) || !Array.isArray(input.messages) || input.messages.length === 0) {
    throw invalid('Field required: input.messages');
  }
  if (input.messages.length !== 1) throw invalid('input.messages must contain exactly one message');
  const message = input.messages[0];
  if (!isObject(message) || message.role !== 'user')
    throw invalid('The role of input.messages[0] must be user');
  if (!Array.isArray(message.content)) throw invalid('Field required: input.messages[0].content');
  let images = 0;
  let texts = 0;
  for (const item of message.content) {
    if (isObject(item) && 'image' in item && !('text' in item)) {
      checkImage(item.image);
      images += 1;
    } else if (isObject(item) && 'text' in item && !('image' in item)) {
      if (typeof item.text !== 'string' || item.text.trim().length === 0) {
        throw invalid('The text in input.messages[0].content must be a non-empty string');
      }
      texts += 1;
    } else {
      throw invalid('Each item of input.messages[0].content must be either {"image": ...} or {"text": ...}');
    }
  }
  if (images < 1 || images > 3)
    throw invalid(`The number of input images must be between 1 and 3, got ${images}`);
  if (texts !== 1) throw invalid(`input.messages[0].content must contain exactly one text, got ${texts}`);
  checkParameters(body.parameters);
}

function checkImage(image: unknown): void {
  if (typeof image !== 'string' || image.length === 0)
    throw invalid('The image in input.messages[0].content is empty');
  const kind = imageRefKind(image);
  if (kind === 'invalid') {
    throw dashscopeError(
      400,
      'InvalidURL',
      'The provided image URL is invalid; use a public http(s) URL or a base64 data URL.',
    );
  }
  if (kind === 'url') return;
  if (dataUrlBytes(image) > IMAGE_MAX_BYTES)
    throw invalid('The size of the input image exceeds the limit of 10MB');
  const size = probeDataUrlSize(image);
  if (size && (Math.min(size.width, size.height) < 384 || Math.max(size.width, size.height) > 3072)) {
    throw invalid(
      'The image resolution is invalid: each side of an input image must be between 384 and 3072 pixels.',
    );
  }
}

function checkParameters(params: unknown): void {
  if (params === undefined) return;
  if (!isObject(params)) throw invalid('parameters must be an object');
  const { negative_prompt: negative, watermark, seed } = params;
  if (negative !== undefined && (typeof negative !== 'string' || [...negative].length > 500)) {
    throw invalid('Range of parameters.negative_prompt length should be [0, 500]');
  }
  if (watermark !== undefined && typeof watermark !== 'boolean')
    throw invalid('parameters.watermark must be a boolean');
  if (
    seed !== undefined &&
    (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > SEED_MAX)
  ) {
    throw invalid(`Range of parameters.seed should be [0, ${SEED_MAX}]`);
  }
}
