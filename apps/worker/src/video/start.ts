import type { TaskRow } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import { getTask } from '@mediagate/shared/tasks';
import { ended, type PhaseDeps, type Step } from './step';

/**
 * The start phase of a pending task: pending → processing, then on to the submit in the same run.
 * When another run started it first, goes on with the task as it now is; when the task ended
 * meanwhile (canceled), the run is over.
 */
export async function startPhase(deps: PhaseDeps, row: TaskRow, log: Logger): Promise<Step> {
  const current = (await deps.lifecycle.start(row)) ?? (await getTask(deps.db, row.id));
  if (current?.status !== 'processing') return ended(null);
  log.info('task processing');
  return { kind: 'next', row: current };
}
