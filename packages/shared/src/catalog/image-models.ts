/**
 * The image models: Seedream on Ark (generation) and qwen-image-edit on DashScope (editing), with the
 * rules of spec/upstreams.md sections B and C and the list prices of section D. Everything the gateway
 * knows about an image model is here; validation, routing, pricing and GET /v1/models read it.
 */

/** A model-specific parameter the gateway passes through to the vendor after checking it. */
export type ParamSpec =
  | { type: 'boolean'; description: string }
  | { type: 'integer'; min: number; max: number; description: string }
  | { type: 'number'; min: number; max: number; description: string }
  | { type: 'string'; maxLength: number; description: string }
  | { type: 'enum'; values: readonly string[]; description: string };

export interface Dimensions {
  width: number;
  height: number;
}

/** What `size` may be: a named size of the model, or `WxH` within pixel (and side) bounds. */
export interface SizeRule {
  named: Readonly<Record<string, Dimensions>>;
  /** what the vendor makes when no size is sent */
  default: Dimensions;
  minPixels: number;
  maxPixels: number;
  minSide?: number;
  maxSide?: number;
  /** the longer side over the shorter one, at most */
  maxAspectRatio: number;
}

/** How many reference images the model takes, and what each must be. */
export interface ImageInputRule {
  min: number;
  max: number;
  maxBytes: number;
  minSide: number;
  maxSide?: number;
  maxPixels?: number;
  maxAspectRatio?: number;
}

/**
 * How `n` images are made: one sequential-generation call (`max_images: n`; inputs plus outputs at
 * most `maxTotalImages`), or `n` calls in parallel (each makes one image).
 */
export type BatchRule = { mode: 'sequential'; maxTotalImages: number } | { mode: 'parallel'; maxN: number };

export type ImageCapability =
  | 'text-to-image'
  | 'image-to-image'
  | 'multi-image-fusion'
  | 'batch'
  | 'image-edit'
  | 'style-transfer';

/** Which vendor API serves the model (decides the adapter and the channels). */
export type ImageUpstreamApi = 'ark-images' | 'dashscope-image-edit';

export interface ImageModel {
  id: string;
  kind: 'image';
  family: string;
  vendor: 'ark' | 'dashscope';
  upstreamApi: ImageUpstreamApi;
  upstreamModel: string;
  /** Unix seconds: when the upstream version was released (GET /v1/models `created`) */
  created: number;
  /** list price per delivered image, micro-USD */
  priceMicroUsd: number;
  capabilities: readonly ImageCapability[];
  promptMaxChars: number;
  /** null: the model takes no `size` (it keeps the input's size) */
  size: SizeRule | null;
  input: ImageInputRule;
  batch: BatchRule;
  /** vendor parameters accepted at the top level of the request, besides the OpenAI ones */
  params: Readonly<Record<string, ParamSpec>>;
}

const square = (side: number): Dimensions => ({ width: side, height: side });
const MB = 1024 * 1024;
const SEED_MAX = 2_147_483_647;

const watermark: ParamSpec = {
  type: 'boolean',
  description: 'add the vendor watermark (Seedream defaults to true)',
};

/** Seedream 4.x takes up to 14 reference images: side over 14 px, at most 36 MP, ratio within 1/16-16. */
const SEEDREAM_4_INPUT: ImageInputRule = {
  min: 0,
  max: 14,
  maxBytes: 10 * MB,
  minSide: 15,
  maxPixels: 36_000_000,
  maxAspectRatio: 16,
};

/**
 * Seedream 4.x also takes `sequential_image_generation` and `sequential_image_generation_options`;
 * they are another way of saying `n` (see images/image-request.ts), so they are not plain pass-through.
 */
const SEEDREAM_4_PARAMS = { watermark } as const satisfies Record<string, ParamSpec>;

export const IMAGE_MODELS: readonly ImageModel[] = [
  {
    id: 'seedream-4.5',
    kind: 'image',
    family: 'seedream',
    vendor: 'ark',
    upstreamApi: 'ark-images',
    upstreamModel: 'doubao-seedream-4-5-251128',
    created: 1_764_288_000,
    priceMicroUsd: 40_000,
    capabilities: ['text-to-image', 'image-to-image', 'multi-image-fusion', 'batch'],
    promptMaxChars: 4000,
    size: {
      named: { '2K': square(2048), '4K': square(4096) },
      default: square(2048),
      minPixels: 3_686_400,
      maxPixels: 16_777_216,
      maxAspectRatio: 16,
    },
    input: SEEDREAM_4_INPUT,
    batch: { mode: 'sequential', maxTotalImages: 15 },
    params: SEEDREAM_4_PARAMS,
  },
  {
    id: 'seedream-4.0',
    kind: 'image',
    family: 'seedream',
    vendor: 'ark',
    upstreamApi: 'ark-images',
    upstreamModel: 'doubao-seedream-4-0-250828',
    created: 1_756_339_200,
    priceMicroUsd: 30_000,
    capabilities: ['text-to-image', 'image-to-image', 'multi-image-fusion', 'batch'],
    promptMaxChars: 4000,
    size: {
      named: { '1K': square(1024), '2K': square(2048), '4K': square(4096) },
      default: square(2048),
      minPixels: 921_600,
      maxPixels: 16_777_216,
      maxAspectRatio: 16,
    },
    input: SEEDREAM_4_INPUT,
    batch: { mode: 'sequential', maxTotalImages: 15 },
    params: SEEDREAM_4_PARAMS,
  },
  {
    id: 'seedream-3.0',
    kind: 'image',
    family: 'seedream',
    vendor: 'ark',
    upstreamApi: 'ark-images',
    upstreamModel: 'doubao-seedream-3-0-t2i-250415',
    created: 1_744_675_200,
    priceMicroUsd: 30_000,
    capabilities: ['text-to-image', 'batch'],
    promptMaxChars: 4000,
    size: {
      named: {},
      default: square(1024),
      minPixels: 512 * 512,
      maxPixels: 2048 * 2048,
      minSide: 512,
      maxSide: 2048,
      maxAspectRatio: 16,
    },
    input: { min: 0, max: 0, maxBytes: 10 * MB, minSide: 15 },
    // 3.0 has no group generation: n images are n calls, so n is kept small.
    batch: { mode: 'parallel', maxN: 4 },
    params: {
      watermark,
      seed: { type: 'integer', min: -1, max: SEED_MAX, description: 'random seed; -1 picks one' },
      guidance_scale: {
        type: 'number',
        min: 1,
        max: 10,
        description: 'how closely the image follows the prompt',
      },
    },
  },
  {
    id: 'qwen-image-edit',
    kind: 'image',
    family: 'qwen-image-edit',
    vendor: 'dashscope',
    upstreamApi: 'dashscope-image-edit',
    upstreamModel: 'qwen-image-edit',
    created: 1_755_475_200,
    priceMicroUsd: 45_000,
    capabilities: ['image-edit', 'multi-image-fusion', 'style-transfer', 'batch'],
    promptMaxChars: 800,
    size: null,
    input: { min: 1, max: 3, maxBytes: 10 * MB, minSide: 384, maxSide: 3072 },
    // One call edits into one image; n images are n calls.
    batch: { mode: 'parallel', maxN: 4 },
    params: {
      negative_prompt: { type: 'string', maxLength: 500, description: 'what the image should not show' },
      watermark,
      seed: { type: 'integer', min: 0, max: SEED_MAX, description: 'random seed' },
    },
  },
];

/** The largest `n` a request with `inputImages` reference images may ask of the model. */
export function maxImagesPerRequest(model: ImageModel, inputImages: number): number {
  return model.batch.mode === 'sequential'
    ? Math.max(0, model.batch.maxTotalImages - inputImages)
    : model.batch.maxN;
}
