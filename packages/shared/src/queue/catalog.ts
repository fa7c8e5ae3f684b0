import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

export const QUEUE_NAMES = {
  video: 'video-tasks',
  callbacks: 'callbacks',
  media: 'media-copy',
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

interface JobSpec {
  queue: QueueName;
  schema: z.ZodType;
  options: JobsOptions;
}

/**
 * Every job the gateway runs: its queue, payload schema and retry policy. Producers and consumers
 * both import it. Payloads carry ids, never data; the job id is the id of the row it works on, so
 * adding the same job twice is a no-op.
 */
export const JOB_CATALOG = {
  'video.run': {
    queue: QUEUE_NAMES.video,
    schema: z.object({ taskId: z.string(), requestId: z.string().optional() }),
    options: {
      // Upstream retries and database faults of the moment (isTransientDbError) are scheduled by
      // the processor itself (delayed re-runs, no attempt used); these attempts cover unexpected
      // failures (a bug, a constraint, Redis). The reconciler picks up the rest.
      attempts: 8,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  },
  'callback.deliver': {
    queue: QUEUE_NAMES.callbacks,
    schema: z.object({ deliveryId: z.string() }),
    options: {
      // The retry schedule of a delivery is data (configuration) applied by the dispatcher, which
      // re-schedules the job itself, as it does after a database fault of the moment
      // (isTransientDbError); these attempts cover unexpected failures (a bug, Redis).
      // A job that runs out of them is re-enqueued by the reconciler while its delivery is pending.
      attempts: 5,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  },
  'media.copy': {
    queue: QUEUE_NAMES.media,
    schema: z.object({ taskId: z.string() }),
    options: {
      // The copy retries within its run and records every failure on its media row; the
      // reconciler enqueues it again when the row is due. A job is one try of that.
      attempts: 1,
      removeOnComplete: true,
      removeOnFail: true,
    },
  },
} as const satisfies Record<string, JobSpec>;

export type JobName = keyof typeof JOB_CATALOG;
export type JobPayload<N extends JobName> = z.output<(typeof JOB_CATALOG)[N]['schema']>;
