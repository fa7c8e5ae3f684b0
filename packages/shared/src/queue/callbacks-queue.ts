import { Queue, type Telemetry } from 'bullmq';
import { withTimeout } from '../timeout';
import { JOB_CATALOG, QUEUE_NAMES } from './catalog';
import type { RedisClient } from './connection';
import { queueKeyPrefix } from './keys';

/** The producer side of the callbacks queue. Connection errors are retried by ioredis, not thrown. */
export function createCallbacksQueue(
  connection: RedisClient,
  prefix: string,
  opts: { telemetry?: Telemetry } = {},
): Queue {
  const queue = new Queue(QUEUE_NAMES.callbacks, {
    connection,
    prefix: queueKeyPrefix(prefix, QUEUE_NAMES.callbacks),
    telemetry: opts.telemetry,
  });
  queue.on('error', () => {});
  return queue;
}

/**
 * Makes sure a job exists that sends the delivery at `at` (or now): its job id is the delivery id,
 * so a job already waiting or running is left alone (adding is a no-op), a finished or dead one
 * is replaced, and with `promote` a delayed one is made due now (a manual redelivery). The
 * delivery row is the source of truth: the dispatcher reads it first, so an early or extra job
 * does no harm. Rejects after `timeoutMs` rather than hang when Redis does not answer. With
 * `fresh` (a delivery whose row was just committed, so no job can exist for it yet) the job is
 * added without first asking for an existing one's state.
 */
export async function enqueueDelivery(
  queue: Queue,
  deliveryId: string,
  opts: { at?: Date; promote?: boolean; fresh?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  const spec = JOB_CATALOG['callback.deliver'];
  const run = async () => {
    if (!opts.fresh) {
      const state = await queue.getJobState(deliveryId);
      if (state === 'failed' || state === 'completed') await queue.remove(deliveryId).catch(() => 0);
      if (state === 'delayed' && opts.promote) {
        await (await queue.getJob(deliveryId))?.promote().catch(() => {});
        return;
      }
    }
    const delay = opts.at ? Math.max(0, opts.at.getTime() - Date.now()) : 0;
    await queue.add('callback.deliver', spec.schema.parse({ deliveryId }), {
      ...spec.options,
      jobId: deliveryId,
      delay: delay > 0 ? delay : undefined,
    });
  };
  await withTimeout(run(), opts.timeoutMs ?? 2_000, { what: 'enqueue' });
}
