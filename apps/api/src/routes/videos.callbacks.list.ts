import { callbackDelivery, listOf } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import { getTaskForAccount } from '@mediagate/shared/tasks';
import { listTaskDeliveries } from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { accountRoutes, endpoint } from '../route';
import { toDeliveryObject } from './callback-views';

/**
 * GET /v1/videos/:taskId/callbacks: the task's callback deliveries with every attempt (time,
 * status code, latency, error). Another account's task is indistinguishable from none.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
  router.get('/videos/:taskId/callbacks', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    const taskId = String(req.params.taskId);
    const task = TASK_ID_PATTERN.test(taskId)
      ? await getTaskForAccount(deps.database.db, taskId, accountId)
      : null;
    if (!task) {
      throw new ApiError('not_found', `No video task found with id '${taskId.slice(0, 64)}'.`, 'task_id');
    }
    const deliveries = await listTaskDeliveries(deps.database.db, task.id);
    res.status(200).json({ object: 'list', data: deliveries.map(toDeliveryObject) });
  });
}

export const contract = endpoint(
  'GET /v1/videos/:taskId/callbacks',
  "A task's callback deliveries and their attempts",
  { tag: 'callbacks', auth: 'apiKey', 200: listOf(callbackDelivery, 'CallbackDeliveryList') },
);

export const routes = accountRoutes(register, [contract], ["A task's callback deliveries and every attempt"]);
