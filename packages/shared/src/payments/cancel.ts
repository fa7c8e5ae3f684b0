import { getTopUpOrder, markTopUpOrderCancelled } from '../billing/topup-orders';
import type { Db } from '../db/client';
import type { TopUpOrderRow } from '../db/schema';
import type { Logger } from '../log';
import type { Metrics } from '../metrics';
import { settleTopUpPayment } from './orders';
import { PaymentProviderError, type QrPaymentProvider } from './types';

/** The order cannot be cancelled as it stands (`status`: paid, credited, closed or expired). */
export class TopUpNotCancellableError extends Error {
  constructor(
    readonly orderId: string,
    readonly status: TopUpOrderRow['status'],
  ) {
    super(
      status === 'credited' || status === 'paid'
        ? `Top-up ${orderId} is already paid; a paid top-up cannot be cancelled.`
        : `Top-up ${orderId} is already ${status}; it can no longer be paid nor cancelled.`,
    );
    this.name = 'TopUpNotCancellableError';
  }
}

/**
 * The payer is completing the payment right now (WeChat Pay's close answers 202 USER_PAYING):
 * the order stays open, and is credited if the payment completes.
 */
export class TopUpPayerPayingError extends Error {
  constructor(readonly orderId: string) {
    super(
      `The payer is completing top-up ${orderId} right now, so it cannot be cancelled; if the payment completes, it is credited.`,
    );
    this.name = 'TopUpPayerPayingError';
  }
}

/**
 * The customer cancels an order still `created`: it is closed at its provider, then marked
 * `cancelled`, and no longer counts among the account's open orders. A code the provider has no
 * trade for (an Alipay code never scanned, `absent`) cannot be closed and stays payable until its
 * validity ends: the order is `cancelled` all the same, but stays on the reconciler's list
 * (`closed_at` null) until its code is surely dead, and a payment made meanwhile is credited.
 * Idempotent: an order already cancelled is returned as it is. Throws TopUpPayerPayingError when
 * the payer is paying (nothing changes), TopUpNotCancellableError when it was paid or had ended
 * (a payment the provider reports on the way is credited first), PaymentProviderError when the
 * provider cannot be reached (nothing changes).
 */
export async function cancelTopUpOrder(
  db: Db,
  provider: QrPaymentProvider,
  order: TopUpOrderRow,
  opts: { logger?: Logger; metrics?: Metrics } = {},
): Promise<TopUpOrderRow> {
  if (order.status === 'cancelled') return order;
  if (order.status !== 'created') throw new TopUpNotCancellableError(order.id, order.status);
  let outcome = await provider.close(order.id);
  if (outcome === 'open') throw new TopUpPayerPayingError(order.id);
  if (outcome === 'paid') {
    // not closable: paid (credit it now, by the rule every report follows, then refuse), or a
    // trade that had already closed on its own
    const state = await provider.query(order.id);
    if (state.state === 'paid') {
      await settleTopUpPayment(db, order, state, { ...opts, via: 'query' });
      const now = (await getTopUpOrder(db, order.id)) ?? order;
      throw new TopUpNotCancellableError(order.id, now.status === 'created' ? 'paid' : now.status);
    }
    if (state.state !== 'closed')
      throw new PaymentProviderError(
        provider.name,
        `close of ${order.id} reported it paid; its query does not`,
      );
    outcome = 'closed';
  }
  const cancelled = await markTopUpOrderCancelled(db, order.id, { codeDead: outcome === 'closed' });
  if (!cancelled) {
    // it moved meanwhile (a notification credited it, or the reconciler ended it)
    const now = (await getTopUpOrder(db, order.id)) ?? order;
    if (now.status === 'cancelled') return now;
    throw new TopUpNotCancellableError(order.id, now.status);
  }
  opts.metrics?.topUpOrders.inc({ provider: order.provider, outcome: 'cancelled' });
  return cancelled;
}
