import { z } from 'zod';

/** Response shapes of the public API, as zod schemas: the OpenAPI document is generated from them. */

export const errorResponse = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().describe('invalid_request_error, authentication_error, insufficient_quota, ...'),
      code: z.string().describe('invalid_request, invalid_api_key, insufficient_quota, model_not_found, ...'),
      param: z.string().nullable().optional(),
    }),
  })
  .meta({ id: 'Error' });

const unix = z.number().int().describe('Unix seconds');

export const videoTaskObject = z
  .object({
    id: z.string().describe('task_ + ULID'),
    task_id: z.string().describe('the same as id'),
    object: z.literal('video'),
    model: z.string(),
    status: z.enum(['pending', 'processing', 'succeeded', 'failed']),
    progress: z.number().int().min(0).max(100),
    created_at: unix,
    updated_at: unix,
    completed_at: unix.nullable(),
    estimated_completion_at: unix
      .nullable()
      .optional()
      .describe(
        'an unfinished task: when it will likely finish, from the durations learned for its model; null while unknown',
      ),
    video_url: z
      .string()
      .optional()
      .describe('present when succeeded and until expires_at: a signed link of the gateway, no key needed'),
    thumbnail_url: z.string().optional().describe('the first frame (JPEG), signed like video_url'),
    expires_at: unix.nullable().optional().describe('succeeded tasks: when the links stop working'),
    error: z.object({ code: z.string(), message: z.string() }).optional().describe('present when failed'),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'VideoTask' });

/** The OpenAI list envelope around `item`. */
export function listOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean().optional(),
      first_id: z.string().nullable().optional(),
      last_id: z.string().nullable().optional(),
    })
    .meta({ id });
}

export const modelObject = z
  .looseObject({
    id: z.string(),
    object: z.literal('model'),
    created: unix,
    owned_by: z.string(),
  })
  .meta({ id: 'Model' });

export const imagesResponse = z
  .looseObject({
    created: unix,
    data: z.array(z.object({ url: z.string().optional(), b64_json: z.string().optional() })),
    usage: z.looseObject({}).optional(),
    requested: z.number().int().optional().describe('images asked for'),
    delivered: z.number().int().optional().describe('images delivered (and billed)'),
  })
  .meta({ id: 'ImagesResponse' });

export const callbackDelivery = z
  .looseObject({
    id: z.string(),
    object: z.literal('video.callback'),
    task_id: z.string(),
    event_type: z.string(),
    url: z.string(),
    status: z.string(),
    attempt_count: z.number().int(),
    attempts: z.array(
      z.looseObject({
        attempt: z.number().int(),
        started_at: unix.nullable(),
        status_code: z.number().int().nullable(),
        latency_ms: z.number().int().nullable(),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'CallbackDelivery' });

/** Console and admin answers: documented by their main fields, open to more. */
export const consoleObject = (id: string, fields: z.ZodRawShape = {}) =>
  z.looseObject({ object: z.string().optional(), ...fields }).meta({ id });

export const healthResponse = z.looseObject({ status: z.string() }).meta({ id: 'Health' });
