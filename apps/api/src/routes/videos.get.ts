import {
  ApiError,
  getTaskForAccount,
  isTerminal,
  TASK_ID_PATTERN,
  taskEventOf,
  toTaskObject,
} from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';

/**
 * GET /v1/videos/:taskId: the task object; another account's task is indistinguishable from none.
 * Terminal tasks never change, so their serialized answer is kept in `taskCache`; an unfinished
 * task's answer is kept briefly in the event hub, which replaces it on every move the workers
 * publish. Either way a poll usually costs no query.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/videos/:taskId', requireApiKey(deps), async (req, res) => {
    const { accountId } = principalOf(req);
    const taskId = String(req.params.taskId);
    const cached = deps.taskCache?.get(taskId) ?? deps.taskEvents?.running?.get(taskId);
    if (cached && cached.accountId === accountId) {
      return void res.status(200).type('application/json').send(cached.json);
    }
    const row = TASK_ID_PATTERN.test(taskId)
      ? await getTaskForAccount(deps.database.db, taskId, accountId)
      : null;
    if (!row)
      throw new ApiError('not_found', `No video task found with id '${taskId.slice(0, 64)}'.`, 'task_id');
    if (isTerminal(row.status)) {
      const json = JSON.stringify(toTaskObject(row));
      deps.taskCache?.set(taskId, { accountId, json });
      return void res.status(200).type('application/json').send(json);
    }
    const event = taskEventOf(row, await deps.durations?.summary(row.model));
    deps.taskEvents?.remember(event);
    res.status(200).type('application/json').send(event.json);
  });
}
