import { dataUrlBytes, imageRefKind, isObject } from './http-helpers';
import { probeDataUrlSize } from './image-probe';
import { arkError, type VendorError } from './vendor-errors';

type Size = { width: number; height: number };

/** What a Seedream model allows (spec section B). */
export interface ArkModelSpec {
  version: '4.5' | '4.0' | '3.0';
  namedSizes: Record<string, Size>;
  defaultSize: Size;
  /** bounds on width*height for 4.x */
  minPixels: number;
  maxPixels: number;
  /** bounds on each side for 3.0 */
  minSide?: number;
  maxSide?: number;
  maxInputImages: number;
}

const SQUARE = (side: number): Size => ({ width: side, height: side });

/** Upstream ids (with the `doubao-` prefix of the China endpoint) and their rules. */
export const ARK_MODELS: Record<string, ArkModelSpec> = {
  'doubao-seedream-4-5-251128': {
    version: '4.5',
    namedSizes: { '2K': SQUARE(2048), '4K': SQUARE(4096) },
    defaultSize: SQUARE(2048),
    minPixels: 3_686_400,
    maxPixels: 16_777_216,
    maxInputImages: 14,
  },
  'doubao-seedream-4-0-250828': {
    version: '4.0',
    namedSizes: { '1K': SQUARE(1024), '2K': SQUARE(2048), '4K': SQUARE(4096) },
    defaultSize: SQUARE(2048),
    minPixels: 921_600,
    maxPixels: 16_777_216,
    maxInputImages: 14,
  },
  'doubao-seedream-3-0-t2i-250415': {
    version: '3.0',
    namedSizes: {},
    defaultSize: SQUARE(1024),
    minPixels: 512 * 512,
    maxPixels: 2048 * 2048,
    minSide: 512,
    maxSide: 2048,
    maxInputImages: 0,
  },
};

/** Most images one request may involve: input images plus generated ones. */
export const MAX_TOTAL_IMAGES = 15;
const IMAGE_MAX_BYTES = 10 * 1024 * 1024;

/** A generation request that passed validation. */
export interface ArkRequest {
  /** the model id as the client sent it (echoed back) */
  model: string;
  spec: ArkModelSpec;
  size: Size;
  /** how many images to produce */
  count: number;
  sequential: boolean;
  responseFormat: 'url' | 'b64_json';
  watermark: boolean;
}

/** Finds a model by its upstream id, with or without the `doubao-` prefix (international endpoint). */
export function findArkModel(id: string): ArkModelSpec | undefined {
  return ARK_MODELS[id.startsWith('doubao-') ? id : `doubao-${id}`];
}

const invalid = (param: string, detail: string): VendorError =>
  arkError(
    400,
    'InvalidParameter',
    `The parameter \`${param}\` specified in the request is not valid: ${detail}.`,
    param,
  );
const missing = (param: string): VendorError =>
  arkError(
    400,
    'MissingParameter',
    'The request failed because it is missing one or multiple required parameters.',
    param,
  );

/**
 * Validates an images/generations body with Seedream's rules; throws the vendor's 400 (or 404 for an
 * unknown model) naming the parameter.
 */
export function parseArkRequest(body: unknown): ArkRequest {
  if (!isObject(body)) throw arkError(400, 'InvalidParameter', 'The request body must be a JSON object.');
  const model = body.model;
  if (model === undefined || model === '') throw missing('model');
  if (typeof model !== 'string') throw invalid('model', 'must be a string');
  const spec = findArkModel(model);
  if (!spec) {
    throw arkError(
      404,
      'InvalidEndpointOrModel.NotFound',
      `The model or endpoint ${model} does not exist or you do not have access to it.`,
    );
  }
  if (body.prompt === undefined || body.prompt === '') throw missing('prompt');
  if (typeof body.prompt !== 'string') throw invalid('prompt', 'must be a string');
  if (body.stream !== undefined && body.stream !== false)
    throw invalid('stream', 'streaming is not supported by upstream-sim');

  const inputImages = parseImages(body.image, spec);
  const size = parseSize(body.size, spec);
  const is3 = spec.version === '3.0';

  let sequential = false;
  let count = 1;
  const seq = body.sequential_image_generation;
  const seqOptions = body.sequential_image_generation_options;
  for (const [param, value] of [
    ['sequential_image_generation', seq],
    ['sequential_image_generation_options', seqOptions],
  ] as const) {
    if (is3 && value !== undefined) throw invalid(param, `model ${model} does not support ${param}`);
  }
  if (seq !== undefined && seq !== 'auto' && seq !== 'disabled') {
    throw invalid('sequential_image_generation', 'must be one of auto, disabled');
  }
  let maxImages = MAX_TOTAL_IMAGES;
  if (seqOptions !== undefined) {
    if (!isObject(seqOptions)) throw invalid('sequential_image_generation_options', 'must be an object');
    const m = seqOptions.max_images;
    if (m !== undefined) {
      if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > MAX_TOTAL_IMAGES) {
        throw invalid(
          'sequential_image_generation_options.max_images',
          `must be an integer in [1, ${MAX_TOTAL_IMAGES}]`,
        );
      }
      maxImages = m;
    }
  }
  if (seq === 'auto') {
    sequential = true;
    // Input and output images together are at most 15: upstream generates fewer, it does not refuse.
    count = Math.max(1, Math.min(maxImages, MAX_TOTAL_IMAGES - inputImages));
  }

  const responseFormat = body.response_format ?? 'url';
  if (responseFormat !== 'url' && responseFormat !== 'b64_json')
    throw invalid('response_format', 'must be one of url, b64_json');
  const watermark = body.watermark ?? true;
  if (typeof watermark !== 'boolean') throw invalid('watermark', 'must be a boolean');

  const seed = body.seed;
  if (seed !== undefined) {
    if (!is3) throw invalid('seed', `model ${model} does not support seed`);
    if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < -1 || seed > 2_147_483_647) {
      throw invalid('seed', 'must be an integer in [-1, 2147483647]');
    }
  }
  const guidance = body.guidance_scale;
  if (guidance !== undefined) {
    if (!is3) throw invalid('guidance_scale', `model ${model} does not support guidance_scale`);
    if (typeof guidance !== 'number' || !Number.isFinite(guidance) || guidance < 1 || guidance > 10) {
      throw invalid('guidance_scale', 'must be a number in [1, 10]');
    }
  }
  return { model, spec, size, count, sequential, responseFormat, watermark };
}

/** Checks `image` (one reference or a list) and returns how many input images there are. */
function parseImages(image: unknown, spec: ArkModelSpec): number {
  if (image === undefined || image === null) return 0;
  if (spec.maxInputImages === 0) throw invalid('image', 'the model does not support image input');
  const list = Array.isArray(image) ? image : [image];
  if (list.length < 1 || list.length > spec.maxInputImages) {
    throw invalid('image', `the number of images must be in [1, ${spec.maxInputImages}]`);
  }
  for (const ref of list) {
    if (typeof ref !== 'string' || ref.length === 0)
      throw invalid('image', 'each image must be a URL or a data URL');
    const kind = imageRefKind(ref);
    if (kind === 'invalid') throw invalid('image', 'each image must be an http(s) URL or a base64 data URL');
    if (kind === 'url') continue;
    if (dataUrlBytes(ref) > IMAGE_MAX_BYTES) throw invalid('image', 'an image exceeds the 10 MB limit');
    const dims = probeDataUrlSize(ref);
    if (dims && !ratioOk(dims))
      throw invalid('image', 'the aspect ratio of an image must be within [1/16, 16]');
    if (dims && (Math.min(dims.width, dims.height) <= 14 || dims.width * dims.height > 36_000_000)) {
      throw invalid(
        'image',
        'each side of an image must be over 14 px and the total at most 6000x6000 pixels',
      );
    }
  }
  return list.length;
}

function ratioOk(s: Size): boolean {
  return s.width * 16 >= s.height && s.height * 16 >= s.width;
}

/** Resolves `size` to pixels: a named size of the model, `WxH` within its bounds, or the model's default. */
function parseSize(size: unknown, spec: ArkModelSpec): Size {
  if (size === undefined) return spec.defaultSize;
  if (typeof size !== 'string') throw invalid('size', 'must be a string');
  const named = spec.namedSizes[size];
  if (named) return named;
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  const names = Object.keys(spec.namedSizes);
  const allowed = `${names.length > 0 ? `${names.join(', ')} or ` : ''}WxH`;
  if (!match) throw invalid('size', `must be ${allowed}`);
  const s = { width: Number(match[1]), height: Number(match[2]) };
  if (spec.minSide !== undefined && spec.maxSide !== undefined) {
    const { minSide: lo, maxSide: hi } = spec;
    if (s.width < lo || s.height < lo || s.width > hi || s.height > hi) {
      throw invalid('size', `width and height must be within [${lo}, ${hi}]`);
    }
  }
  const pixels = s.width * s.height;
  if (pixels < spec.minPixels || pixels > spec.maxPixels) {
    throw invalid('size', `the total pixels must be within [${spec.minPixels}, ${spec.maxPixels}]`);
  }
  if (!ratioOk(s)) throw invalid('size', 'the aspect ratio must be within [1/16, 16]');
  return s;
}
