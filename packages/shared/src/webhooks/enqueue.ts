import type { Queue } from 'bullmq';
import type { DbOrTx } from '../db/client';
import { enqueueDelivery } from '../queue/callbacks-queue';
import { pendingDeliveriesOfTask } from './outbox';

/**
 * Hands a task's pending deliveries to the dispatcher; called after the transaction that wrote
 * them has committed (commit, then enqueue). Safe to call any number of times. If it never runs
 * (a crash right after the commit) the reconciler enqueues the deliveries instead.
 */
export async function enqueueTaskCallbacks(
  db: DbOrTx,
  queue: Queue,
  taskId: string,
  opts: { timeoutMs?: number } = {},
): Promise<number> {
  const pending = await pendingDeliveriesOfTask(db, taskId);
  for (const d of pending)
    await enqueueDelivery(queue, d.id, { at: d.nextAttemptAt, timeoutMs: opts.timeoutMs });
  return pending.length;
}

/**
 * Hands deliveries written by a transaction that has just committed (their ids returned by
 * the task's move, due now) to the dispatcher: one add each, without reading them back.
 */
export async function enqueueNewDeliveries(
  queue: Queue,
  deliveryIds: readonly string[],
  opts: { timeoutMs?: number } = {},
): Promise<number> {
  for (const id of deliveryIds) await enqueueDelivery(queue, id, { fresh: true, timeoutMs: opts.timeoutMs });
  return deliveryIds.length;
}
