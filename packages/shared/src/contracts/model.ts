import { z } from 'zod';
import { unixSeconds as unix } from './unix';

/** A model of GET /v1/models: the OpenAI fields, then what it accepts and costs. */
export const modelObject = z
  .looseObject({
    id: z.string(),
    object: z.literal('model'),
    created: unix,
    owned_by: z.string(),
  })
  .meta({ id: 'Model' });
