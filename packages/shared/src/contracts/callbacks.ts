import { z } from 'zod';
import { unixSeconds as unix } from './unix';

/** A callback delivery with its attempts. */
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
