import { listTaskDeliveries } from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { accountRoutes, endpoint } from '../route';
import { ownVideoTask } from '../video-tasks';
import { deliveryListSchema } from './account-views';
import { toDeliveryObject } from './callback-views';

/**
 * GET /v1/videos/:taskId/callbacks: the task's callback deliveries with every attempt (time,
 * status code, latency, error). Another account's task is indistinguishable from none.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
  router.get('/videos/:taskId/callbacks', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    const taskId = String(req.params.taskId);
    const task = await ownVideoTask(deps, accountId, taskId, 'task_id');
    const deliveries = await listTaskDeliveries(deps.database.db, task.id);
    res.status(200).json({ object: 'list', data: deliveries.map(toDeliveryObject) });
  });
}

export const contract = endpoint(
  'GET /v1/videos/:taskId/callbacks',
  "A task's callback deliveries and their attempts",
  { tag: 'callbacks', auth: 'apiKey', 200: deliveryListSchema },
);

export const routes = accountRoutes(register, [contract], ["A task's callback deliveries and every attempt"]);
