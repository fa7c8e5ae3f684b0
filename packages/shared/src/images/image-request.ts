import { type ImageModel, maxImagesPerRequest, type ParamSpec, type SizeRule } from '../catalog/image-models';
import { hasNulCharacter, InvalidInputError, NUL_CHARACTER_MESSAGE } from '../errors';
import { checkImageRef } from './image-input';
import { acceptedFields } from './image-request-fields';

/** A checked image request: everything the upstream call needs, in the gateway's terms. */
export interface ImageJob {
  model: ImageModel;
  prompt: string;
  /** images asked for (and charged) */
  n: number;
  /** reference images (URLs or data URLs), in order */
  images: string[];
  /** size to send the vendor (a named size or `WxH`); undefined = the vendor's default */
  size?: string;
  responseFormat: 'url' | 'b64_json';
  /** Seedream 4.x group generation when the client named it */
  sequential?: 'auto' | 'disabled';
  /** the model-specific parameters, checked */
  params: Record<string, unknown>;
}

const bad = (message: string, param: string) => new InvalidInputError(message, param);

function checkParam(name: string, spec: ParamSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'boolean':
      if (typeof value !== 'boolean') throw bad(`${name} must be true or false.`, name);
      return value;
    case 'integer':
    case 'number': {
      const ok =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (spec.type === 'number' || Number.isInteger(value)) &&
        value >= spec.min &&
        value <= spec.max;
      if (!ok)
        throw bad(
          `${name} must be ${spec.type === 'integer' ? 'an integer' : 'a number'} from ${spec.min} to ${spec.max}.`,
          name,
        );
      return value;
    }
    case 'string':
      if (typeof value !== 'string' || [...value].length > spec.maxLength) {
        throw bad(`${name} must be a string of at most ${spec.maxLength} characters.`, name);
      }
      if (hasNulCharacter(value)) throw bad(NUL_CHARACTER_MESSAGE, name);
      return value;
    case 'enum':
      if (typeof value !== 'string' || !spec.values.includes(value)) {
        throw bad(`${name} must be one of ${spec.values.join(', ')}.`, name);
      }
      return value;
  }
}

/** How the model's sizes read in an error message. */
export function describeSizes(rule: SizeRule): string {
  const named = Object.keys(rule.named);
  const sides =
    rule.minSide !== undefined
      ? `each side from ${rule.minSide} to ${rule.maxSide} px`
      : `${rule.minPixels} to ${rule.maxPixels} pixels in all`;
  return (
    `${named.length > 0 ? `${named.join(', ')}, or ` : ''}WIDTHxHEIGHT with ${sides} and an aspect ratio ` +
    `within 1:${rule.maxAspectRatio} and ${rule.maxAspectRatio}:1 (default ${rule.default.width}x${rule.default.height})`
  );
}

function checkSize(model: ImageModel, size: unknown): string | undefined {
  if (size === undefined || size === null || size === 'auto') return undefined;
  const rule = model.size;
  if (!rule) {
    throw bad(
      `${model.id} does not take size (the edited image keeps about the input's size); omit it or send "auto".`,
      'size',
    );
  }
  const reject = () =>
    bad(`size ${JSON.stringify(size)} is not allowed for ${model.id}: use ${describeSizes(rule)}.`, 'size');
  if (typeof size !== 'string') throw reject();
  if (rule.named[size]) return size;
  const match = /^(\d{1,5})[x×](\d{1,5})$/i.exec(size);
  if (!match) throw reject();
  const width = Number(match[1]);
  const height = Number(match[2]);
  const pixels = width * height;
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  if (
    pixels < rule.minPixels ||
    pixels > rule.maxPixels ||
    (rule.minSide !== undefined && short < rule.minSide) ||
    (rule.maxSide !== undefined && long > rule.maxSide) ||
    short === 0 ||
    long > short * rule.maxAspectRatio
  ) {
    throw reject();
  }
  return `${width}x${height}`;
}

function checkImages(model: ImageModel, image: unknown): string[] {
  const list = image === undefined || image === null ? [] : Array.isArray(image) ? image : [image];
  const { min, max } = model.input;
  if (max === 0 && list.length > 0) {
    throw bad(`${model.id} makes images from text only and takes no image.`, 'image');
  }
  if (list.length < min || list.length > max) {
    const range = min === max ? `${min}` : `${min} to ${max}`;
    throw bad(`${model.id} takes ${range} image${max === 1 ? '' : 's'}; got ${list.length}.`, 'image');
  }
  return list.map((ref, i) =>
    checkImageRef(ref, model.input, Array.isArray(image) ? `image[${i}]` : 'image'),
  );
}

/** `n` and Seedream's own way of saying it (`sequential_image_generation*`), reconciled. */
function checkCount(model: ImageModel, body: Record<string, unknown>, inputs: number) {
  let n: number | undefined;
  if (body.n !== undefined && body.n !== null) {
    if (typeof body.n !== 'number' || !Number.isInteger(body.n) || body.n < 1) {
      throw bad('n must be a positive integer.', 'n');
    }
    n = body.n;
  }
  let sequential: 'auto' | 'disabled' | undefined;
  if (body.sequential_image_generation !== undefined) {
    const v = body.sequential_image_generation;
    if (v !== 'auto' && v !== 'disabled') {
      throw bad('sequential_image_generation must be auto or disabled.', 'sequential_image_generation');
    }
    sequential = v;
  }
  const options = body.sequential_image_generation_options;
  if (options !== undefined) {
    const param = 'sequential_image_generation_options';
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      throw bad(`${param} must be an object.`, param);
    const unknown = Object.keys(options).filter((k) => k !== 'max_images');
    if (unknown.length > 0)
      throw bad(`Unrecognized field '${param}.${unknown[0]}'; only max_images is accepted.`, param);
    const max = (options as { max_images?: unknown }).max_images;
    if (max !== undefined) {
      if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
        throw bad(`${param}.max_images must be a positive integer.`, `${param}.max_images`);
      }
      if (n !== undefined && n !== max) {
        throw bad(`n (${n}) and ${param}.max_images (${max}) disagree; send one of them.`, 'n');
      }
      n = max;
    }
  }
  n ??= 1;
  if (sequential === 'disabled' && n > 1) {
    throw bad(
      'n > 1 needs sequential image generation; omit sequential_image_generation or set it to auto.',
      'n',
    );
  }
  const limit = maxImagesPerRequest(model, inputs);
  if (n > limit) {
    const why =
      model.batch.mode === 'sequential'
        ? `reference images plus n may be at most ${model.batch.maxTotalImages}, and this request has ${inputs} reference image${inputs === 1 ? '' : 's'}`
        : `${model.id} makes at most ${limit} images per request`;
    throw bad(`n is ${n}, but ${why}.`, 'n');
  }
  return { n, sequential };
}

/**
 * Checks an images request against its model's rules (spec/upstreams.md B and C as the catalog
 * states them) and returns the job to run. Throws an InvalidInputError whose message and `param` name the
 * first wrong field, including any field the model does not accept.
 */
export function parseImageRequest(model: ImageModel, body: Record<string, unknown>): ImageJob {
  const accepted = acceptedFields(model);
  const unknown = Object.keys(body).filter((k) => !accepted.includes(k));
  if (unknown.length > 0) {
    const names = unknown.map((k) => `'${k}'`).join(', ');
    throw bad(
      `Unrecognized parameter${unknown.length > 1 ? 's' : ''} ${names} for model ${model.id}. It accepts: ${accepted.join(', ')}.`,
      unknown[0]!,
    );
  }
  if (typeof body.prompt !== 'string' || body.prompt.trim().length === 0) {
    throw bad(
      body.prompt === undefined ? "Missing required field 'prompt'." : 'prompt must be a non-empty string.',
      'prompt',
    );
  }
  // Video prompts with a NUL are refused (Postgres cannot store them); image prompts the same way,
  // though they only travel upstream.
  if (hasNulCharacter(body.prompt)) throw bad(NUL_CHARACTER_MESSAGE, 'prompt');
  const prompt = body.prompt.trim();
  if ([...prompt].length > model.promptMaxChars) {
    throw bad(`prompt must be at most ${model.promptMaxChars} characters for ${model.id}.`, 'prompt');
  }
  if (body.stream !== undefined && body.stream !== false) {
    throw bad('Streaming is not supported; omit stream or set it to false.', 'stream');
  }
  if (body.user !== undefined && typeof body.user !== 'string') throw bad('user must be a string.', 'user');
  const responseFormat = body.response_format ?? 'url';
  if (responseFormat !== 'url' && responseFormat !== 'b64_json') {
    throw bad('response_format must be url or b64_json.', 'response_format');
  }
  const images = checkImages(model, body.image);
  const size = checkSize(model, body.size);
  const { n, sequential } = checkCount(model, body, images.length);
  const params: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(model.params)) {
    if (body[name] !== undefined) params[name] = checkParam(name, spec, body[name]);
  }
  return { model, prompt, n, images, size, responseFormat, sequential, params };
}

/**
 * Multipart forms carry every value as a string: reads `n`, the model's numeric and boolean
 * parameters and `sequential_image_generation_options.max_images` as what they spell, in place.
 * Values that do not parse stay strings, so the checks above report them.
 */
export function coerceFormFields(model: ImageModel, body: Record<string, unknown>): Record<string, unknown> {
  const toNumber = (v: unknown) =>
    typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
  const toBoolean = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : v);
  body.n = toNumber(body.n);
  if (body.n === undefined) delete body.n;
  body.stream = toBoolean(body.stream);
  if (body.stream === undefined) delete body.stream;
  for (const [name, spec] of Object.entries(model.params)) {
    if (body[name] === undefined) continue;
    if (spec.type === 'integer' || spec.type === 'number') body[name] = toNumber(body[name]);
    if (spec.type === 'boolean') body[name] = toBoolean(body[name]);
  }
  const options = body.sequential_image_generation_options as Record<string, unknown> | undefined;
  if (options && typeof options === 'object') options.max_images = toNumber(options.max_images);
  return body;
}
