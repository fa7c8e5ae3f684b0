import { callbackDelivery } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { enqueueDelivery } from '@mediagate/shared/queue';
import { getDelivery, listTaskDeliveries, redeliverDelivery } from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { accountRoutes, endpoint, ok } from '../route';
import { toDeliveryObject } from './callback-views';

/**
 * POST /v1/videos/:taskId/callbacks/:deliveryId/redeliver: sends the delivery again now, with the
 * same webhook-id; a finished one starts a fresh retry schedule. Answers 202 with the delivery.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
  router.post('/videos/:taskId/callbacks/:deliveryId/redeliver', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    const taskId = String(req.params.taskId);
    const deliveryId = String(req.params.deliveryId);
    const found = /^msg_[0-9A-Z]{26}$/.test(deliveryId)
      ? await getDelivery(deps.database.db, deliveryId)
      : null;
    if (!found || found.accountId !== accountId || found.taskId !== taskId) {
      throw new ApiError(
        'not_found',
        `No callback delivery '${deliveryId.slice(0, 64)}' found for task '${taskId.slice(0, 64)}'.`,
        'delivery_id',
      );
    }
    await redeliverDelivery(deps.database.db, deliveryId, accountId);
    // Committed first, enqueued second: if Redis does not answer, the reconciler sends it.
    await enqueueDelivery(deps.callbacksQueue, deliveryId, {
      promote: true,
      timeoutMs: deps.config.ENQUEUE_TIMEOUT_MS,
    }).catch((err: unknown) =>
      req.log.warn({ err, deliveryId }, 'enqueue failed; the reconciler will enqueue the delivery'),
    );
    req.log.info({ deliveryId, taskId }, 'callback redelivery requested');
    const delivery = (await listTaskDeliveries(deps.database.db, taskId)).find((d) => d.id === deliveryId)!;
    res.status(202).json(toDeliveryObject(delivery));
  });
}

export const contract = endpoint(
  'POST /v1/videos/:taskId/callbacks/:deliveryId/redeliver',
  'Send a callback delivery again',
  { tag: 'callbacks', auth: 'apiKey', 202: ok(callbackDelivery, 'scheduled') },
);

export const routes = accountRoutes(register, [contract], ['Send a callback delivery again now']);
