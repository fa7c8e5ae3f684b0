import { alipayTime, fenToYuan, wechatEncryptResource, wechatTime } from '@mediagate/shared/payments';

// The bodies of the vendors' notifications, built from plain facts of a trade: the simulator's
// notifier renders its orders with them, and the API's tests build the notifications they post.
// Signing is the caller's (the key, the serial and the time are what tests vary).

/** A trade as an Alipay `trade_status_sync` notification describes it. */
export interface AlipayTradeFacts {
  appId: string;
  notifyId: string;
  /** Alipay's trade number */
  tradeNo: string;
  /** the merchant's order number */
  outTradeNo: string;
  amountFen: number;
  subject?: string;
  createdAt?: Date;
  paidAt?: Date;
  /** the trade was closed unpaid (or its close is being told) */
  closedAt?: Date;
  /** the refund the notification tells of */
  refund?: {
    /** out_biz_no */
    no: string;
    /** what the trade had refunded in all once this refund was made (refund_fee) */
    refundedTotalFen: number;
    at: Date;
  };
}

/**
 * The unsigned fields of an Alipay notification: TRADE_CLOSED for a closed trade or one refunded in
 * full, TRADE_SUCCESS otherwise (a partial refund keeps the trade open).
 */
export function alipayTradeNotice(t: AlipayTradeFacts): Record<string, string> {
  const fullyRefunded = t.refund !== undefined && t.refund.refundedTotalFen >= t.amountFen;
  return {
    notify_time: alipayTime(new Date()),
    notify_type: 'trade_status_sync',
    notify_id: t.notifyId,
    charset: 'utf-8',
    version: '1.0',
    app_id: t.appId,
    auth_app_id: t.appId,
    trade_no: t.tradeNo,
    out_trade_no: t.outTradeNo,
    trade_status: t.closedAt || fullyRefunded ? 'TRADE_CLOSED' : 'TRADE_SUCCESS',
    total_amount: fenToYuan(t.amountFen),
    ...(t.subject !== undefined ? { subject: t.subject } : {}),
    ...(t.createdAt ? { gmt_create: alipayTime(t.createdAt) } : {}),
    buyer_id: '2088000000000001',
    seller_id: '2088000000000002',
    ...(t.paidAt
      ? {
          receipt_amount: fenToYuan(t.amountFen),
          buyer_pay_amount: fenToYuan(t.amountFen),
          invoice_amount: fenToYuan(t.amountFen),
          point_amount: '0.00',
          gmt_payment: alipayTime(t.paidAt),
        }
      : {}),
    ...(t.closedAt ? { gmt_close: alipayTime(t.closedAt) } : {}),
    ...(t.refund
      ? {
          out_biz_no: t.refund.no,
          refund_fee: fenToYuan(t.refund.refundedTotalFen),
          gmt_refund: `${alipayTime(t.refund.at)}.000`,
          ...(fullyRefunded ? { gmt_close: alipayTime(t.refund.at) } : {}),
        }
      : {}),
  };
}

/** A WeChat Pay TRANSACTION.SUCCESS notification's body: `transaction` encrypted with the APIv3 key. */
export function wechatPaymentNotice(
  id: string,
  apiV3Key: string,
  transaction: Record<string, unknown>,
): string {
  return JSON.stringify({
    id,
    create_time: wechatTime(new Date()),
    resource_type: 'encrypt-resource',
    event_type: 'TRANSACTION.SUCCESS',
    summary: '支付成功',
    resource: wechatEncryptResource(apiV3Key, JSON.stringify(transaction)),
  });
}

/** A refund as a WeChat Pay refund notification describes it. */
export interface WechatRefundFacts {
  mchid?: string;
  outTradeNo: string;
  transactionId: string;
  /** out_refund_no */
  no: string;
  refundId: string;
  status: 'SUCCESS' | 'ABNORMAL' | 'CLOSED' | 'PROCESSING';
  at: Date;
  totalFen: number;
  refundFen: number;
}

/** WeChat Pay's summary of each refund notification (REFUND.SUCCESS, .ABNORMAL, .CLOSED). */
const REFUND_SUMMARIES: Record<string, string> = {
  SUCCESS: '退款成功',
  ABNORMAL: '退款异常',
  CLOSED: '退款关闭',
};

/** A WeChat Pay REFUND.<status> notification's body, its resource encrypted with the APIv3 key. */
export function wechatRefundNotice(id: string, apiV3Key: string, r: WechatRefundFacts): string {
  const content = {
    mchid: r.mchid,
    out_trade_no: r.outTradeNo,
    transaction_id: r.transactionId,
    out_refund_no: r.no,
    refund_id: r.refundId,
    refund_status: r.status,
    ...(r.status === 'SUCCESS' ? { success_time: wechatTime(r.at) } : {}),
    user_received_account: '支付用户零钱',
    amount: { total: r.totalFen, refund: r.refundFen, payer_total: r.totalFen, payer_refund: r.refundFen },
  };
  return JSON.stringify({
    id,
    create_time: wechatTime(new Date()),
    resource_type: 'encrypt-resource',
    event_type: `REFUND.${r.status}`,
    summary: REFUND_SUMMARIES[r.status],
    resource: {
      ...wechatEncryptResource(apiV3Key, JSON.stringify(content), 'refund'),
      original_type: 'refund',
    },
  });
}
