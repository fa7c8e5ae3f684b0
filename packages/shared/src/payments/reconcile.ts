import {
  closeTopUpOrder,
  listOpenTopUpOrders,
  markCancelledTopUpOrderDead,
  markTopUpOrderPaid,
} from '../billing/topup-orders';
import type { Db } from '../db/client';
import type { TopUpOrderRow } from '../db/schema';
import type { Logger } from '../log';
import type { Metrics } from '../metrics';
import { settleTopUpPayment } from './orders';
import type { QrPaymentProvider } from './types';

export interface TopUpReconcileResult {
  checked: number;
  credited: number;
  expired: number;
  /** cancelled orders whose code is now known dead (they leave the sweep) */
  closed: number;
  failed: number;
}

/**
 * The fallback for lost notifications and the end of unpaid orders: every order still `created`
 * after `afterMs` is queried at its provider; a paid one is settled as its notification would have
 * been (settleTopUpPayment); an unpaid one past `expires_at` is closed at the provider and marked
 * `expired` once its code can no longer be paid (if the provider answers that it was paid
 * meanwhile, the next pass credits it; a code it has no trade for stays open until its validity is
 * surely over, `codeGraceMs` after `expires_at`). A cancelled order whose code may still be paid is
 * queried (a payment is credited) and closed at the provider as soon as it can be, then forgotten.
 */
export async function reconcileTopUpOrders(
  db: Db,
  providers: ReadonlyMap<string, QrPaymentProvider>,
  opts: { afterMs: number; limit?: number; concurrency?: number; logger?: Logger; metrics?: Metrics },
): Promise<TopUpReconcileResult> {
  const result: TopUpReconcileResult = { checked: 0, credited: 0, expired: 0, closed: 0, failed: 0 };
  if (providers.size === 0) return result;
  const orders = await listOpenTopUpOrders(db, new Date(Date.now() - opts.afterMs), opts.limit ?? 200);
  let next = 0;
  const worker = async () => {
    while (next < orders.length) {
      const order = orders[next++]!;
      const provider = providers.get(order.provider);
      if (!provider) continue;
      result.checked += 1;
      try {
        const outcome = await syncTopUpOrder(db, provider, order, {
          closeIfExpired: true,
          logger: opts.logger,
          metrics: opts.metrics,
        });
        if (outcome === 'credited') result.credited += 1;
        else if (outcome === 'expired') result.expired += 1;
        else if (outcome === 'closed') result.closed += 1;
        else if (outcome === 'mismatch') result.failed += 1;
      } catch (err) {
        result.failed += 1;
        opts.logger?.warn(
          { err, orderId: order.id, provider: order.provider },
          'top-up reconciliation failed',
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 8, orders.length) }, worker));
  return result;
}

/**
 * Asks the provider about one order still `created`: a payment is settled by the rule every report
 * follows (settleTopUpPayment: credited once with the order's amount, held for an operator with
 * another); a payment already refunded (WeChat Pay's REFUND) is held for an operator, never
 * credited; and with `closeIfExpired` closes it at the provider past `expires_at` and marks it
 * `expired` once its code can no longer be paid. A `cancelled` order (whose code may still be
 * paid) is closed at once, without waiting for its expiry, and marked dead (`closed`) once its
 * code can no longer be paid. Returns what happened.
 */
export async function syncTopUpOrder(
  db: Db,
  provider: QrPaymentProvider,
  order: TopUpOrderRow,
  opts: { closeIfExpired: boolean; logger?: Logger; metrics?: Metrics },
): Promise<'credited' | 'expired' | 'closed' | 'mismatch' | 'unchanged'> {
  const state = await provider.query(order.id);
  if (state.state === 'refunded') {
    // paid and refunded before we credited it: never credited automatically; held for an operator
    const held = await markTopUpOrderPaid(db, {
      orderId: order.id,
      tradeId: state.tradeId,
      paidAt: state.paidAt,
    });
    if (held) {
      opts.logger?.warn(
        { orderId: order.id, provider: order.provider },
        'top-up paid and refunded before it was credited: marked paid, not credited, needs an operator',
      );
      opts.metrics?.topUpOrders.inc({ provider: order.provider, outcome: 'refunded_uncredited' });
    }
    return held ? 'mismatch' : 'unchanged';
  }
  if (state.state === 'paid') {
    const outcome = await settleTopUpPayment(db, order, state, { ...opts, via: 'query' });
    if (outcome === 'credited')
      opts.logger?.info({ orderId: order.id, provider: order.provider }, 'top-up credited after a query');
    return outcome;
  }
  const cancelled = order.status === 'cancelled';
  if (!opts.closeIfExpired || (!cancelled && order.expiresAt.getTime() > Date.now())) return 'unchanged';
  // past its expiry the order ends only once its code can no longer be paid: closed at the
  // provider (or reported closed), or, for a code the provider has no trade for, once the
  // validity it was given is surely over; until then it stays open and is queried again
  const outcome = state.state === 'closed' ? 'closed' : await provider.close(order.id);
  const dead =
    outcome === 'closed' ||
    (outcome === 'absent' && Date.now() >= order.expiresAt.getTime() + provider.codeGraceMs);
  if (!dead) return 'unchanged';
  if (cancelled) return (await markCancelledTopUpOrderDead(db, order.id)) ? 'closed' : 'unchanged';
  if (!(await closeTopUpOrder(db, order.id, 'expired'))) return 'unchanged';
  opts.metrics?.topUpOrders.inc({ provider: order.provider, outcome: 'expired' });
  return 'expired';
}
