import { z } from 'zod';
import type { ImageModel, ParamSpec } from '../catalog/image-models';

/**
 * The fields of an images request, declared once. `parseImageRequest` accepts exactly these keys
 * (the common ones, the sequential ones where the model groups, and the model's own parameters) and
 * checks each itself so that its messages name the model's rules; the OpenAPI document shows the same
 * fields through `imageRequestSchema`.
 */
export const COMMON_IMAGE_FIELDS = {
  model: z.string(),
  prompt: z.string(),
  n: z.number().int().min(1).optional(),
  size: z.string().optional().describe('WxH, or a named size (1K/2K/4K) where the model offers them; "auto"'),
  response_format: z.enum(['url', 'b64_json']).optional(),
  image: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('reference image URLs or data URLs'),
  user: z.string().optional().describe('accepted and ignored'),
  stream: z.literal(false).optional(),
};

/** Seedream 4.x's own way of asking for several images (another way of saying `n`). */
export const SEQUENTIAL_IMAGE_FIELDS = {
  sequential_image_generation: z.enum(['auto', 'disabled']).optional(),
  sequential_image_generation_options: z
    .strictObject({ max_images: z.number().int().min(1).optional() })
    .optional(),
};

/** The fields a request for `model` may carry, in the order the refusal of an unknown field lists them. */
export function acceptedFields(model: ImageModel): string[] {
  return [
    ...Object.keys(COMMON_IMAGE_FIELDS),
    ...(model.batch.mode === 'sequential' ? Object.keys(SEQUENTIAL_IMAGE_FIELDS) : []),
    ...Object.keys(model.params),
  ];
}

/** One model parameter as the document shows it, its bounds widened over every model that takes it. */
function paramSchema(name: string, takers: readonly ImageModel[]): z.ZodType {
  const specs = takers.map((m) => m.params[name] as ParamSpec);
  const first = specs[0]!;
  const description = `${first.description} (${takers.map((m) => m.id).join(', ')}; see GET /v1/models/{id})`;
  const bounds = (key: 'min' | 'max' | 'maxLength') =>
    specs.map((s) => (s as Record<string, unknown>)[key] as number);
  let schema: z.ZodType;
  switch (first.type) {
    case 'boolean':
      schema = z.boolean();
      break;
    case 'integer':
    case 'number': {
      const base = first.type === 'integer' ? z.number().int() : z.number();
      schema = base.min(Math.min(...bounds('min'))).max(Math.max(...bounds('max')));
      break;
    }
    case 'string':
      schema = z.string().max(Math.max(...bounds('maxLength')));
      break;
    case 'enum':
      schema = z.enum([...new Set(specs.flatMap((s) => (s.type === 'enum' ? s.values : [])))]);
      break;
  }
  return schema.optional().describe(description);
}

/** Every parameter some model in `models` takes, keyed by name. */
function paramFields(models: readonly ImageModel[]): Record<string, z.ZodType> {
  const names = [...new Set(models.flatMap((m) => Object.keys(m.params)))];
  return Object.fromEntries(
    names.map((name) => [
      name,
      paramSchema(
        name,
        models.filter((m) => name in m.params),
      ),
    ]),
  );
}

/** An images request for any of `models`, as the OpenAPI document shows it. */
export function imageRequestSchema(models: readonly ImageModel[]) {
  const grouping = models.some((m) => m.batch.mode === 'sequential');
  return z.strictObject({
    ...COMMON_IMAGE_FIELDS,
    ...(grouping ? SEQUENTIAL_IMAGE_FIELDS : {}),
    ...paramFields(models),
  });
}
