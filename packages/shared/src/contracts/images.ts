import { z } from 'zod';
import { unixSeconds as unix } from './unix';

/** The answer of POST /v1/images/generations and /v1/images/edits (OpenAI's shape). */
export const imagesResponse = z
  .looseObject({
    created: unix,
    data: z.array(z.object({ url: z.string().optional(), b64_json: z.string().optional() })),
    usage: z.looseObject({}).optional(),
    requested: z.number().int().optional().describe('images asked for'),
    delivered: z.number().int().optional().describe('images delivered (and billed)'),
  })
  .meta({ id: 'ImagesResponse' });
