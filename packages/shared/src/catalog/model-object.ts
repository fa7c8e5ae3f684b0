import type { ImageModel } from './image-models';
import type { CatalogModel } from './model-catalog';
import type { VideoModel } from './video-models';

/**
 * A model as GET /v1/models shows it: the OpenAI model object (`id`, `object`, `created`, `owned_by`)
 * plus what the model is for, what it accepts and what it costs. The official client keeps extra fields.
 */
export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  type: 'image' | 'video';
  endpoints: string[];
  capabilities: string[];
  pricing: Record<string, number | string>;
  parameters: Record<string, unknown>;
}

const OWNER = 'mediagate';

function imageObject(m: ImageModel): ModelObject {
  const parameters: Record<string, unknown> = {
    prompt: { type: 'string', required: true, maxLength: m.promptMaxChars },
    n: {
      type: 'integer',
      min: 1,
      max: m.batch.mode === 'sequential' ? m.batch.maxTotalImages : m.batch.maxN,
      default: 1,
      ...(m.batch.mode === 'sequential'
        ? { note: `reference images plus n at most ${m.batch.maxTotalImages}` }
        : {}),
    },
    image: {
      type: 'string or array of http(s) URLs or data URLs',
      min: m.input.min,
      max: m.input.max,
      maxBytes: m.input.maxBytes,
      minSide: m.input.minSide,
      ...(m.input.maxSide ? { maxSide: m.input.maxSide } : {}),
    },
    response_format: { type: 'enum', values: ['url', 'b64_json'], default: 'url' },
  };
  if (m.size) {
    parameters.size = {
      type: 'string',
      named: Object.keys(m.size.named),
      default: `${m.size.default.width}x${m.size.default.height}`,
      minPixels: m.size.minPixels,
      maxPixels: m.size.maxPixels,
      ...(m.size.minSide ? { minSide: m.size.minSide, maxSide: m.size.maxSide } : {}),
      maxAspectRatio: m.size.maxAspectRatio,
    };
  }
  if (m.batch.mode === 'sequential') {
    parameters.sequential_image_generation = { type: 'enum', values: ['auto', 'disabled'] };
    parameters.sequential_image_generation_options = { max_images: 'same as n' };
  }
  for (const [name, spec] of Object.entries(m.params)) parameters[name] = { ...spec };
  const endpoints = ['/v1/images/generations'];
  if (m.input.max > 0) endpoints.push('/v1/images/edits');
  return {
    id: m.id,
    object: 'model',
    created: m.created,
    owned_by: OWNER,
    type: 'image',
    endpoints,
    capabilities: [...m.capabilities],
    pricing: { unit: 'image', price_micro_usd: m.priceMicroUsd },
    parameters,
  };
}

function videoObject(m: VideoModel): ModelObject {
  return {
    id: m.id,
    object: 'model',
    created: m.created,
    owned_by: OWNER,
    type: 'video',
    endpoints: ['/v1/videos'],
    capabilities: ['image-to-video'],
    pricing: {
      unit: 'second',
      with_audio_micro_usd: m.pricePerSecondMicroUsd.withAudio,
      silent_micro_usd: m.pricePerSecondMicroUsd.silent,
    },
    parameters: {
      duration_seconds: m.durationSeconds,
      resolution: m.resolution,
      audio: m.audioOptional ? 'optional (default true)' : 'always',
    },
  };
}

/** The public description of a catalog model (GET /v1/models, GET /v1/models/{id}). */
export function toModelObject(model: CatalogModel): ModelObject {
  return model.kind === 'image' ? imageObject(model) : videoObject(model);
}
