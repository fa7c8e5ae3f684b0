import { Queue, type Telemetry } from 'bullmq';
import { withTimeout } from '../timeout';
import { JOB_CATALOG, QUEUE_NAMES } from './catalog';
import type { RedisClient } from './connection';
import { queueKeyPrefix } from './keys';

/** The producer side of the media-copy queue. Connection errors are retried by ioredis, not thrown. */
export function createMediaQueue(
  connection: RedisClient,
  prefix: string,
  opts: { telemetry?: Telemetry } = {},
): Queue {
  const queue = new Queue(QUEUE_NAMES.media, {
    connection,
    prefix: queueKeyPrefix(prefix, QUEUE_NAMES.media),
    telemetry: opts.telemetry,
  });
  queue.on('error', () => {});
  return queue;
}

/**
 * Adds the job that copies a succeeded task's video into storage; its job id is derived from the
 * task id, so a copy already waiting or running is not added twice. The media row is the source
 * of truth: what this cannot add, the reconciler adds. Rejects after `timeoutMs`.
 */
export async function enqueueMediaCopy(
  queue: Queue,
  taskId: string,
  opts: { timeoutMs?: number } = {},
): Promise<void> {
  const spec = JOB_CATALOG['media.copy'];
  await withTimeout(
    queue.add('media.copy', spec.schema.parse({ taskId }), { ...spec.options, jobId: `media.${taskId}` }),
    opts.timeoutMs ?? 2_000,
    { what: 'enqueue' },
  );
}
