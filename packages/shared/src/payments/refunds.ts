import { getTopUpOrder } from '../billing/topup-orders';
import {
  failTopUpRefund,
  getTopUpRefund,
  listPendingTopUpRefunds,
  reserveTopUpRefund,
  succeedTopUpRefund,
} from '../billing/topup-refunds';
import { type AuditActor, recordOperatorAction } from '../audit/log';
import type { Db } from '../db/client';
import type { TopUpOrderRow, TopUpRefundRow } from '../db/schema';
import type { Logger } from '../log';
import type { Metrics } from '../metrics';
import type { NotifiedRefund, QrPaymentProvider, RefundReport } from './types';

/** What a provider's report did to a refund. */
export type RefundReportOutcome = 'succeeded' | 'failed' | 'pending' | 'held';

/** Counts a refund that ended (`mediagate_topup_refunds_total`) and logs a held one for operators. */
function countRefundEnd(
  refund: TopUpRefundRow,
  outcome: 'succeeded' | 'failed' | 'held',
  opts: { metrics?: Metrics; logger?: Logger },
): void {
  opts.metrics?.topUpRefunds.inc({ provider: refund.provider, outcome });
  if (outcome === 'held') {
    opts.logger?.error(
      {
        refundId: refund.id,
        orderId: refund.orderId,
        refundNo: refund.refundNo.slice(0, 64),
        why: refund.failure,
      },
      'top-up refund reported for more than is left of the payment: held for an operator, nothing debited',
    );
  }
}

/**
 * Applies what the provider says of one of our refunds: succeeded → succeedTopUpRefund (the debit,
 * once; `held` when it reports more than is left of the payment); failed → the refund is `failed`
 * with the provider's reason, the balance untouched; pending or absent → nothing yet. Returns the
 * refund as it is now; counts each refund that ends here once.
 */
export async function applyRefundReport(
  db: Db,
  refund: TopUpRefundRow,
  report: RefundReport,
  opts: { metrics?: Metrics; logger?: Logger } = {},
): Promise<{ outcome: RefundReportOutcome; refund: TopUpRefundRow }> {
  if (report.status === 'succeeded') {
    const r = await succeedTopUpRefund(db, {
      orderId: refund.orderId,
      refundNo: refund.refundNo,
      amountFen: report.amountFen,
      providerRefundId: report.providerRefundId,
      succeededAt: report.succeededAt,
    });
    const now = r?.refund ?? refund;
    const outcome = now.status === 'held' ? 'held' : 'succeeded';
    if (r && r.outcome !== 'unchanged') countRefundEnd(now, outcome, opts);
    return { outcome, refund: now };
  }
  if (report.status === 'failed') {
    const failed = await failTopUpRefund(db, refund.id, report.failure ?? 'refused by the provider');
    const now = (await getTopUpRefund(db, { id: refund.id })) ?? refund;
    if (failed) countRefundEnd(now, 'failed', opts);
    return { outcome: 'failed', refund: now };
  }
  return { outcome: 'pending', refund };
}

/**
 * An operator's refund of a paid top-up through its provider: recorded `pending` first
 * (reserveTopUpRefund: at most what is left, the request audited in the same transaction), then
 * sent with the
 * refund's id as the merchant refund number, and the answer applied (applyRefundReport): Alipay
 * answers at once, WeChat Pay usually PROCESSING (finished by its notification or the
 * reconciler). A request without an answer stays pending for the reconciler. Undefined for an
 * unknown order; throws TopUpRefundRefusedError before anything is sent.
 */
export async function refundTopUpOrder(
  db: Db,
  provider: QrPaymentProvider,
  args: {
    orderId: string;
    amountFen?: number;
    reason: string;
    operatorId: string;
    notifyBaseUrl?: string;
    /** the operator asking: the request is audited (`topup.refund`) with the pending refund */
    actor: AuditActor;
    logger?: Logger;
    metrics?: Metrics;
  },
): Promise<{ outcome: RefundReportOutcome; refund: TopUpRefundRow; order: TopUpOrderRow } | undefined> {
  const reserved = await reserveTopUpRefund(db, {
    ...args,
    inTransaction: (tx, refund, order) =>
      recordOperatorAction(tx, args.actor, {
        action: 'topup.refund',
        accountId: order.accountId,
        targetType: 'topup',
        targetId: order.id,
        before: { refunded_cny: order.refundedFen / 100 },
        after: { refund_id: refund.id, amount_cny: refund.amountFen / 100, provider: order.provider },
        reason: args.reason,
      }),
  });
  if (!reserved) return undefined;
  const { refund, order } = reserved;
  let report: RefundReport;
  try {
    report = await provider.refund({
      orderId: order.id,
      refundNo: refund.refundNo,
      amountFen: refund.amountFen,
      totalFen: order.amountFen,
      reason: args.reason,
      notifyUrl: args.notifyBaseUrl ? `${args.notifyBaseUrl}/payments/${provider.name}/notify` : undefined,
    });
  } catch (err) {
    args.logger?.warn(
      { err, refundId: refund.id, orderId: order.id, provider: provider.name },
      'top-up refund: no answer from the provider; left pending for the reconciler',
    );
    return { outcome: 'pending', refund, order };
  }
  const applied = await applyRefundReport(db, refund, report, args);
  return { ...applied, order };
}

/** What a refund notification did. */
export type RefundNotificationOutcome = 'debited' | 'unchanged' | 'failed' | 'held';

/**
 * A refund the provider notifies (one of ours, or one made in the merchant portal): a success is
 * applied once per refund number (succeedTopUpRefund); its amount is the notification's (WeChat
 * Pay), else the one recorded for our refund, else asked of the provider (Alipay notifies only
 * what the trade has refunded in all: alipay.trade.fastpay.refund.query gives this refund's).
 * A failure (REFUND.ABNORMAL, REFUND.CLOSED) fails our pending refund. A success for more than is
 * left of the payment is held for an operator (`held`, counted, nothing debited) and, like every
 * other outcome, acknowledged. Throws when the amount cannot be learnt now (the notification is
 * refused and sent again).
 */
export async function settleRefundNotification(
  db: Db,
  provider: QrPaymentProvider,
  order: TopUpOrderRow,
  notified: NotifiedRefund,
  opts: { metrics?: Metrics; logger?: Logger } = {},
): Promise<RefundNotificationOutcome> {
  const existing = await getTopUpRefund(db, { orderId: order.id, refundNo: notified.refundNo });
  if (notified.status === 'failed') {
    if (!existing) return 'unchanged';
    const failed = await failTopUpRefund(db, existing.id, notified.failure ?? 'refund failed');
    if (failed) countRefundEnd(existing, 'failed', opts);
    return failed ? 'failed' : 'unchanged';
  }
  if (existing?.status === 'succeeded' || existing?.status === 'held') return 'unchanged';
  let amountFen = notified.amountFen ?? existing?.amountFen;
  let succeededAt = notified.at;
  if (amountFen === undefined) {
    const report = await provider.queryRefund(order.id, notified.refundNo);
    if (report.status !== 'succeeded' || report.amountFen === undefined) {
      throw new Error(
        `refund ${notified.refundNo} of ${order.id} notified, but the provider's query says ${report.status}`,
      );
    }
    amountFen = report.amountFen;
    succeededAt ??= report.succeededAt;
  }
  const r = await succeedTopUpRefund(db, {
    orderId: order.id,
    refundNo: notified.refundNo,
    amountFen,
    providerRefundId: notified.providerRefundId,
    succeededAt,
  });
  if (!r || r.outcome === 'unchanged') return 'unchanged';
  if (r.outcome === 'held') {
    countRefundEnd(r.refund, 'held', opts);
    return 'held';
  }
  countRefundEnd(r.refund, 'succeeded', opts);
  return 'debited';
}

export interface RefundReconcileResult {
  checked: number;
  succeeded: number;
  failed: number;
  held: number;
  errors: number;
}

/**
 * The fallback for refunds whose outcome never arrived (a lost notification, a request without
 * an answer): every refund still `pending` after `afterMs` is queried at its provider and the
 * report applied (applyRefundReport); one the provider does not know is sent again with the same
 * refund number, which the provider refunds at most once.
 */
export async function reconcileTopUpRefunds(
  db: Db,
  providers: ReadonlyMap<string, QrPaymentProvider>,
  opts: { afterMs: number; limit?: number; logger?: Logger; metrics?: Metrics },
): Promise<RefundReconcileResult> {
  const result: RefundReconcileResult = { checked: 0, succeeded: 0, failed: 0, held: 0, errors: 0 };
  if (providers.size === 0) return result;
  const refunds = await listPendingTopUpRefunds(db, new Date(Date.now() - opts.afterMs), opts.limit ?? 100);
  for (const refund of refunds) {
    const provider = providers.get(refund.provider);
    if (!provider) continue;
    result.checked += 1;
    try {
      let report = await provider.queryRefund(refund.orderId, refund.refundNo);
      if (report.status === 'absent') {
        const order = await getTopUpOrder(db, refund.orderId);
        if (!order) continue;
        report = await provider.refund({
          orderId: order.id,
          refundNo: refund.refundNo,
          amountFen: refund.amountFen,
          totalFen: order.amountFen,
          reason: refund.reason ?? undefined,
        });
      }
      const { outcome } = await applyRefundReport(db, refund, report, opts);
      if (outcome === 'succeeded') result.succeeded += 1;
      if (outcome === 'failed') result.failed += 1;
      if (outcome === 'held') result.held += 1;
      if (outcome !== 'pending')
        opts.logger?.info(
          { refundId: refund.id, orderId: refund.orderId, outcome },
          'top-up refund settled by a query',
        );
    } catch (err) {
      result.errors += 1;
      opts.logger?.warn(
        { err, refundId: refund.id, provider: refund.provider },
        'top-up refund reconciliation failed',
      );
    }
  }
  return result;
}
