import {
  alipayTradeNotice,
  type PaymentKeySet,
  type WechatRefundFacts,
  wechatPaymentNotice,
  wechatRefundNotice,
} from '@mediagate/payment-sim';
import {
  alipayTime,
  signAlipayNotification,
  wechatSignedHeaders,
  wechatTime,
} from '@mediagate/shared/payments';

// Notifications as Alipay and WeChat Pay send them, signed with the vendors' keys of a
// PaymentKeySet (the payment simulator's): payments (any field overridden, another key, another
// time) and refunds, for the tests of the notify routes.

export type Provider = 'alipay' | 'wechat';

/** A notification's body and headers, to POST to /payments/<provider>/notify. */
export interface SignedNotification {
  body: string;
  headers: Record<string, string>;
}

/** An Alipay payment notification (trade_status_sync, TRADE_SUCCESS unless `fields` say otherwise). */
export function alipayNotification(
  keys: PaymentKeySet,
  order: { id: string; amountFen: number; tradeNo?: string },
  o: { fields?: Record<string, string>; privateKey?: string; at?: Date } = {},
): SignedNotification {
  const fields = {
    ...alipayTradeNotice({
      appId: keys.merchant.ALIPAY_APP_ID!,
      notifyId: `n${order.id}`,
      tradeNo: order.tradeNo ?? `2026${order.id.slice(4)}`,
      outTradeNo: order.id,
      amountFen: order.amountFen,
      paidAt: new Date(),
    }),
    ...(o.at ? { notify_time: alipayTime(o.at) } : {}),
    ...o.fields,
  };
  return alipayForm(signAlipayNotification(fields, o.privateKey ?? keys.vendor.alipayPrivateKey));
}

const alipayForm = (fields: Record<string, string>): SignedNotification => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
});

/** A WeChat Pay TRANSACTION.SUCCESS notification, its resource encrypted with the APIv3 key. */
export function wechatNotification(
  keys: PaymentKeySet,
  order: { id: string; amountFen: number },
  o: {
    tx?: Record<string, unknown>;
    privateKey?: string;
    serial?: string;
    at?: number;
    apiV3Key?: string;
  } = {},
): SignedNotification {
  const tx = {
    appid: keys.merchant.WECHATPAY_APPID,
    mchid: keys.merchant.WECHATPAY_MCHID,
    out_trade_no: order.id,
    transaction_id: `4200${order.id.slice(4)}`,
    trade_type: 'NATIVE',
    trade_state: 'SUCCESS',
    trade_state_desc: '支付成功',
    success_time: wechatTime(new Date()),
    payer: { openid: 'oTest' },
    amount: { total: order.amountFen, payer_total: order.amountFen, currency: 'CNY', payer_currency: 'CNY' },
    ...o.tx,
  };
  const body = wechatPaymentNotice(`evt-${order.id}`, o.apiV3Key ?? keys.vendor.wechatApiV3Key, tx);
  return wechatSigned(
    body,
    o.privateKey ?? keys.vendor.wechatPubKeyPrivateKey,
    o.serial ?? keys.vendor.wechatPubKeyId,
    o.at,
  );
}

const wechatSigned = (body: string, privateKey: string, serial: string, at?: number): SignedNotification => ({
  body,
  headers: { 'content-type': 'application/json', ...wechatSignedHeaders(privateKey, serial, body, at) },
});

/** A refund notification as the vendor sends it, for a refund numbered `refundNo`. */
export function refundNotification(
  keys: PaymentKeySet,
  provider: Provider,
  order: { orderId: string; amountFen: number },
  refund: {
    refundNo: string;
    refundId?: string;
    amountFen: number;
    refundedTotalFen: number;
    status?: string;
  },
): SignedNotification {
  if (provider === 'alipay') {
    const fields = alipayTradeNotice({
      appId: keys.merchant.ALIPAY_APP_ID!,
      notifyId: `n${refund.refundNo}`,
      tradeNo: `2026${order.orderId.slice(4)}`,
      outTradeNo: order.orderId,
      amountFen: order.amountFen,
      paidAt: new Date(),
      refund: { no: refund.refundNo, refundedTotalFen: refund.refundedTotalFen, at: new Date() },
    });
    return alipayForm(signAlipayNotification(fields, keys.vendor.alipayPrivateKey));
  }
  const body = wechatRefundNotice(`evt-${refund.refundNo}`, keys.vendor.wechatApiV3Key, {
    mchid: keys.merchant.WECHATPAY_MCHID,
    outTradeNo: order.orderId,
    transactionId: `4200${order.orderId.slice(4)}`,
    no: refund.refundNo,
    refundId: refund.refundId ?? `50300${refund.refundNo.replace(/\D/g, '')}`,
    status: (refund.status ?? 'SUCCESS') as WechatRefundFacts['status'],
    at: new Date(),
    totalFen: order.amountFen,
    refundFen: refund.amountFen,
  });
  return wechatSigned(body, keys.vendor.wechatPubKeyPrivateKey, keys.vendor.wechatPubKeyId);
}
