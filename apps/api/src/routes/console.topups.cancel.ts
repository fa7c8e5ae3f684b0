import { getTopUpOrder } from '@mediagate/shared/billing';
import { ApiError } from '@mediagate/shared/errors';
import {
  cancelTopUpOrder,
  PaymentProviderError,
  TopUpNotCancellableError,
  TopUpPayerPayingError,
} from '@mediagate/shared/payments';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireSession, sessionOf } from '../middleware/session';
import { endpoint, type Route } from '../route';
import { topUpObject, topUpObjectSchema } from './account-views';

/**
 * POST /console/api/topups/:id/cancel: the customer gives up an unpaid order. It is closed at its
 * provider and becomes `cancelled`, and no longer counts among the account's open orders, so a new
 * one can be made at once. 409 while the payer is completing the payment (WeChat Pay's
 * USER_PAYING: the order stays open, credited if paid) and for an order paid or ended; 404 for
 * another account's order; 503 when the provider cannot be reached (nothing changes).
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  const providers = deps.qrProviders ?? new Map();
  router.post('/topups/:id/cancel', requireSession(deps), async (req, res) => {
    const id = String(req.params.id);
    const order = await getTopUpOrder(db, id);
    if (!order || order.accountId !== sessionOf(req).accountId) {
      throw new ApiError('not_found', `No top-up ${id.slice(0, 64)}.`);
    }
    const provider = providers.get(order.provider);
    if (!provider) {
      throw new ApiError('service_unavailable', `The payment provider '${order.provider}' is not available.`);
    }
    try {
      const cancelled = await cancelTopUpOrder(db, provider, order, {
        logger: req.log,
        metrics: deps.metrics,
      });
      req.log.info(
        { orderId: id, provider: order.provider, codeDead: cancelled.closedAt !== null },
        'top-up cancelled by its owner',
      );
      res.status(200).json(topUpObject(cancelled));
    } catch (err) {
      if (err instanceof TopUpPayerPayingError || err instanceof TopUpNotCancellableError) {
        throw new ApiError('conflict', err.message, 'status');
      }
      if (err instanceof PaymentProviderError) {
        req.log.warn({ err, orderId: id, provider: order.provider }, 'top-up cancel: provider unavailable');
        throw new ApiError(
          'service_unavailable',
          `The payment provider '${order.provider}' could not be reached; the top-up was not cancelled. Try again.`,
        );
      }
      throw err;
    }
  });
}

export const contract = endpoint(
  'POST /console/api/topups/:id/cancel',
  'Cancel an unpaid top-up: closed at the provider; it no longer counts among open orders',
  {
    tag: 'console',
    auth: 'session',
    200: topUpObjectSchema,
    404: 'not found',
    409: 'paid, ended, or the payer is completing the payment (the order stays open)',
    503: 'the payment provider could not be reached; nothing changed',
  },
);

export const route: Route = { mount: '/console/api', contracts: [contract], register };
