import { ApiError, getTaskForAccount, isTerminal, TASK_ID_PATTERN, toTaskObject } from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { type AccountAuth, apiKeyAuth } from '../middleware/account-auth';

/**
 * GET /v1/videos/:taskId: the task object; another account's task is indistinguishable from none.
 * Terminal tasks never change, so their serialized answer is kept in `taskCache` and polls of
 * finished tasks cost no query.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth = apiKeyAuth(deps)): void {
  router.get('/videos/:taskId', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    const taskId = String(req.params.taskId);
    const cached = deps.taskCache?.get(taskId);
    if (cached && cached.accountId === accountId) {
      return void res.status(200).type('application/json').send(cached.json);
    }
    const row = TASK_ID_PATTERN.test(taskId)
      ? await getTaskForAccount(deps.database.db, taskId, accountId)
      : null;
    if (!row)
      throw new ApiError('not_found', `No video task found with id '${taskId.slice(0, 64)}'.`, 'task_id');
    const json = JSON.stringify(toTaskObject(row));
    if (isTerminal(row.status)) deps.taskCache?.set(taskId, { accountId, json });
    res.status(200).type('application/json').send(json);
  });
}
