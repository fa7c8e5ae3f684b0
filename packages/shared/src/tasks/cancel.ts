import type { Db } from '../db/client';
import { UpstreamError } from '../errors';
import { failTask, getTask, getTaskForAccount, isTerminal, type TaskTransition } from './tasks';

export const CANCELED = { code: 'canceled', message: 'The task was canceled by the client.' } as const;

export type CancelOutcome =
  | { kind: 'canceled'; row: TaskTransition }
  | { kind: 'not_found' }
  | { kind: 'not_cancelable'; reason: string };

/**
 * Cancels an account's task. A pending task (or one not yet submitted upstream) fails at once
 * with code `canceled` and a full refund. A task running upstream is canceled there first
 * (`cancelUpstream`; the vendor cancels only tasks it has not started); if the upstream refuses
 * with a 4xx, the task is not cancelable. Compare-and-set moves make every race (a worker
 * starting, submitting or finishing the task) end in one consistent answer. Other upstream
 * failures are thrown as UpstreamError.
 */
export async function cancelTask(
  db: Db,
  id: string,
  accountId: string,
  cancelUpstream: (channel: string, upstreamTaskId: string) => Promise<void>,
): Promise<CancelOutcome> {
  let row = await getTaskForAccount(db, id, accountId);
  if (!row) return { kind: 'not_found' };
  if (isTerminal(row.status))
    return { kind: 'not_cancelable', reason: `The task has already ${row.status}.` };
  if (!row.upstreamTaskId) {
    const failed = await failTask(db, id, CANCELED, { unlessSubmitting: true });
    if (failed) return { kind: 'canceled', row: failed };
    row = (await getTask(db, id))!;
    if (isTerminal(row.status))
      return { kind: 'not_cancelable', reason: `The task has already ${row.status}.` };
    if (!row.upstreamTaskId) {
      return {
        kind: 'not_cancelable',
        reason: 'The task is being submitted upstream; retry the cancel in a moment.',
      };
    }
  }
  try {
    await cancelUpstream(row.upstreamChannel ?? '', row.upstreamTaskId);
  } catch (err) {
    const status = err instanceof UpstreamError ? err.details.status : undefined;
    if (status !== undefined && status >= 400 && status < 500 && status !== 429) {
      return {
        kind: 'not_cancelable',
        reason: 'The task is already running upstream and can no longer be canceled.',
      };
    }
    throw err;
  }
  const failed = await failTask(db, id, CANCELED);
  if (failed) return { kind: 'canceled', row: failed };
  const now = (await getTask(db, id))!;
  return { kind: 'not_cancelable', reason: `The task has already ${now.status}.` };
}
