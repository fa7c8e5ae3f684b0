import { dataUrlBytes, imageRefKind, isObject } from './http-helpers';
import { probeDataUrlSize } from './image-probe';
import { dashscopeError, type VendorError } from './vendor-errors';

/** The image-to-video models the sim serves, with what each allows (spec section A). */
export const VIDEO_MODELS: Record<string, { durations: readonly number[]; silentAllowed: boolean }> = {
  'wan2.6-i2v-flash': { durations: [5, 10, 15], silentAllowed: true },
  'wan2.5-i2v-preview': { durations: [5, 10], silentAllowed: false },
};

export const PROMPT_MAX_CHARS = 1500;
export const NEGATIVE_PROMPT_MAX_CHARS = 500;
const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
const SEED_MAX = 2_147_483_647;

/** A create request that passed validation. */
export interface VideoRequest {
  model: string;
  prompt?: string;
  resolution: '720P' | '1080P';
  duration: number;
  audio: boolean;
  parameters: Record<string, unknown>;
}

const invalid = (message: string): VendorError => dashscopeError(400, 'InvalidParameter', message);
const invalidUrl = (field: string): VendorError =>
  dashscopeError(
    400,
    'InvalidURL',
    `The provided URL in ${field} is invalid; use a public http(s) URL or a base64 data URL.`,
  );

/**
 * Validates a DashScope video-synthesis body the way the vendor does: throws a 400 VendorError
 * (InvalidParameter or InvalidURL) naming the first wrong field. A prompt over 1500 characters is
 * truncated silently, like upstream.
 */
export function parseVideoRequest(body: unknown): VideoRequest {
  if (!isObject(body)) throw invalid('The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0) throw invalid('Field required: model');
  const spec = VIDEO_MODELS[model];
  if (!spec) throw invalid('Model not exist.');

  const input = body.input;
  if (!isObject(input)) throw invalid('Field required: input');
  const prompt = optionalString(input, 'prompt', 'input.prompt');
  const negative = optionalString(input, 'negative_prompt', 'input.negative_prompt');
  if (negative !== undefined && [...negative].length > NEGATIVE_PROMPT_MAX_CHARS) {
    throw invalid(`Range of input.negative_prompt length should be [0, ${NEGATIVE_PROMPT_MAX_CHARS}]`);
  }
  checkImage(input.img_url);
  const audioUrl = input.audio_url;
  if (audioUrl !== undefined && (typeof audioUrl !== 'string' || !/^https?:\/\/[^/\s]+/i.test(audioUrl))) {
    throw invalidUrl('input.audio_url');
  }

  const params = body.parameters ?? {};
  if (!isObject(params)) throw invalid('parameters must be an object');
  const resolution = params.resolution ?? '1080P';
  if (resolution !== '720P' && resolution !== '1080P') {
    throw invalid(`The resolution is invalid, valid values are [720P, 1080P] for model ${model}`);
  }
  const duration = params.duration ?? 5;
  if (typeof duration !== 'number' || !spec.durations.includes(duration)) {
    throw invalid(
      `The duration is invalid, valid values are [${spec.durations.join(', ')}] for model ${model}`,
    );
  }
  const audio = params.audio ?? true;
  if (typeof audio !== 'boolean') throw invalid('parameters.audio must be a boolean');
  if (!audio && !spec.silentAllowed)
    throw invalid(`Model ${model} always generates sound; parameters.audio must be true`);
  for (const flag of ['prompt_extend', 'watermark'] as const) {
    if (params[flag] !== undefined && typeof params[flag] !== 'boolean')
      throw invalid(`parameters.${flag} must be a boolean`);
  }
  const seed = params.seed;
  if (
    seed !== undefined &&
    (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > SEED_MAX)
  ) {
    throw invalid(`Range of parameters.seed should be [0, ${SEED_MAX}]`);
  }

  const request: VideoRequest = {
    model,
    resolution,
    duration,
    audio,
    parameters: { ...params, resolution, duration, audio },
  };
  if (prompt !== undefined) request.prompt = truncateChars(prompt, PROMPT_MAX_CHARS);
  return request;
}

function optionalString(obj: Record<string, unknown>, key: string, field: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${field} must be a string`);
  return v;
}

function checkImage(img: unknown): void {
  if (typeof img !== 'string' || img.length === 0) throw invalid('Field required: input.img_url');
  const kind = imageRefKind(img);
  if (kind === 'invalid') throw invalidUrl('input.img_url');
  if (kind === 'url') return;
  if (dataUrlBytes(img) > IMAGE_MAX_BYTES)
    throw invalid('The size of input.img_url exceeds the limit of 10MB');
  const size = probeDataUrlSize(img);
  if (size && (Math.min(size.width, size.height) < 360 || Math.max(size.width, size.height) > 2000)) {
    throw invalid(
      'The image resolution is invalid, please make sure that the largest length of image is smaller than 2000, ' +
        'and the smallest length of image is larger than 360.',
    );
  }
}

/** The first `max` characters (code points, not UTF-16 units) of `s`. */
function truncateChars(s: string, max: number): string {
  if (s.length <= max) return s;
  const chars = [...s];
  return chars.length <= max ? s : chars.slice(0, max).join('');
}
