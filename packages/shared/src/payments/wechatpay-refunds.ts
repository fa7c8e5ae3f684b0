import {
  PaymentProviderError,
  PaymentVerificationError,
  type RefundReport,
  type VerifiedNotification,
} from './types';

/** A refund's status (its answer, query and notification) as a RefundReport status. */
const REFUND_STATUSES: Record<string, RefundReport['status']> = {
  SUCCESS: 'succeeded',
  PROCESSING: 'pending',
  // ABNORMAL: the money could not reach the payer (a closed card...): nothing returned until the
  // merchant resolves it in the merchant platform, after which a REFUND.SUCCESS may still come
  ABNORMAL: 'failed',
  CLOSED: 'failed',
};

/** A refund object of WeChat Pay (answer or query) as a RefundReport. */
export function refundReport(json: Record<string, unknown>): RefundReport {
  const status = REFUND_STATUSES[String(json.status)];
  const amount = json.amount as { refund?: unknown } | undefined;
  if (!status || typeof amount?.refund !== 'number' || !Number.isSafeInteger(amount.refund)) {
    throw new PaymentProviderError(
      'wechat',
      `refund: unreadable refund object (status ${String(json.status)})`,
    );
  }
  return {
    status,
    amountFen: amount.refund,
    providerRefundId: typeof json.refund_id === 'string' ? json.refund_id : undefined,
    succeededAt: typeof json.success_time === 'string' ? new Date(json.success_time) : undefined,
    ...(status === 'failed' ? { failure: `${String(json.status)}: the refund did not reach the payer` } : {}),
  };
}

/**
 * A refund notification's resource (REFUND.SUCCESS / REFUND.ABNORMAL / REFUND.CLOSED): it names
 * the merchant (mchid; a refund carries no appid), the order, the refund and its amounts in fen.
 */
export function wechatRefundNotification(
  mchid: string,
  eventType: string,
  tx: Record<string, unknown>,
): VerifiedNotification {
  if (tx.mchid !== mchid) {
    throw new PaymentVerificationError('The notification is for another merchant.', 'merchant');
  }
  const amount = tx.amount as { total?: unknown; refund?: unknown } | undefined;
  const fen = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
  if (
    typeof tx.out_trade_no !== 'string' ||
    typeof tx.out_refund_no !== 'string' ||
    !fen(amount?.total) ||
    !fen(amount?.refund)
  ) {
    throw new PaymentVerificationError(
      'The refund notification lacks out_trade_no, out_refund_no or amount.',
      'payload',
    );
  }
  const succeeded = eventType === 'REFUND.SUCCESS' && tx.refund_status === 'SUCCESS';
  return {
    orderId: tx.out_trade_no,
    paid: false,
    tradeId: typeof tx.transaction_id === 'string' ? tx.transaction_id : undefined,
    amountFen: amount!.total as number,
    refund: {
      refundNo: tx.out_refund_no,
      providerRefundId: typeof tx.refund_id === 'string' ? tx.refund_id : undefined,
      status: succeeded ? 'succeeded' : 'failed',
      amountFen: amount!.refund as number,
      at: typeof tx.success_time === 'string' ? new Date(tx.success_time) : undefined,
      ...(succeeded ? {} : { failure: `${eventType} ${String(tx.refund_status ?? '')}`.trim() }),
    },
    raw: tx,
  };
}
