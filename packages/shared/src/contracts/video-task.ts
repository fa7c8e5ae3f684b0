import { z } from 'zod';
import { unixSeconds as unix } from './unix';

/** The task object of GET /v1/videos/{id}, its list, its events and its callbacks. */
export const videoTaskObject = z
  .object({
    id: z.string().describe('task_ + ULID'),
    task_id: z.string().describe('the same as id'),
    object: z.literal('video'),
    model: z.string(),
    prompt: z.string().describe('the prompt the task was created with'),
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
