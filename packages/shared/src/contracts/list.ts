import { z } from 'zod';

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
