import { z } from 'zod';

/** The error envelope of every non-2xx answer of the API (OpenAI's shape). */
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
