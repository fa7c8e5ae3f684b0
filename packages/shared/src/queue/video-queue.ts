import { Queue, type Telemetry } from 'bullmq';
import { withTimeout } from '../timeout';
import { JOB_CATALOG, type JobPayload, QUEUE_NAMES } from './catalog';
import type { RedisClient } from './connection';
import { queueKeyPrefix } from './keys';

/** The producer side of the video queue. Connection errors are retried by ioredis, not thrown. */
export function createVideoQueue(
  connection: RedisClient,
  prefix: string,
  opts: { telemetry?: Telemetry } = {},
): Queue {
  const queue = new Queue(QUEUE_NAMES.video, {
    connection,
    prefix: queueKeyPrefix(prefix, QUEUE_NAMES.video),
    telemetry: opts.telemetry,
  });
  queue.on('error', () => {});
  return queue;
}

/**
 * Adds the job that runs a video task; its job id is the task id, so adding twice is a no-op.
 * Rejects after `timeoutMs` rather than hang when Redis does not answer; the task row is the
 * source of truth and the reconciler enqueues what this could not.
 */
export async function enqueueVideoTask(
  queue: Queue,
  payload: JobPayload<'video.run'>,
  opts: { timeoutMs?: number; delayMs?: number } = {},
): Promise<void> {
  // Fail fast while Redis is away instead of queueing the command in ioredis' offline queue.
  const status = (queue.opts.connection as { status?: unknown } | undefined)?.status;
  if (status === 'reconnecting' || status === 'close' || status === 'end') {
    throw new Error(`redis is unavailable (${status})`);
  }
  const spec = JOB_CATALOG['video.run'];
  const add = queue.add('video.run', spec.schema.parse(payload), {
    ...spec.options,
    jobId: payload.taskId,
    delay: opts.delayMs,
  });
  await withTimeout(add, opts.timeoutMs ?? 2_000, { what: 'enqueue' });
}
