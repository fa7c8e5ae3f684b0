import { type KeyObject, randomUUID } from 'node:crypto';
import type { Logger } from '@mediagate/shared/log';
import type { PaySimConfig } from './config';
import type { createNotifier } from './notify';
import {
  payableUntil,
  type RefundBehaviour,
  type rateLimiter,
  refundedFen,
  type SimOrder,
  type SimRefund,
  tradeExists,
  type Vendor,
} from './orders';

/** A WeChat Pay signing key: the platform certificate's or the WeChat Pay public key's private half. */
export interface WechatSigner {
  key: KeyObject;
  /** the certificate serial or the PUB_KEY_ID_... a verifier finds it under */
  serial: string;
}

/** What the simulator's routers share: its configuration, keys, orders and notifier. */
export interface SimContext {
  config: PaySimConfig;
  log: Logger;
  orders: Map<string, SimOrder>;
  notifier: ReturnType<typeof createNotifier>;
  limiter: ReturnType<typeof rateLimiter>;
  stats: {
    alipay: { requests: number; refused: number; limited: number };
    wechat: {
      requests: number;
      refused: number;
      limited: number;
      /** answers signed by each WeChat Pay key */
      signedWith: { public_key: number; certificate: number };
      certificateDownloads: number;
    };
  };
  alipay: {
    appId?: string;
    appPublicKey?: KeyObject;
    privateKey?: KeyObject;
    /** public-key-certificate mode: the serial numbers requests must name, and the one answers carry */
    certificates?: { appCertSn: string; rootCertSn: string; alipayCertSn: string };
  };
  wechat: {
    mchid?: string;
    appid?: string;
    merchantPublicKey?: KeyObject;
    apiV3Key?: string;
    /** the platform certificate signing now (the newest) and the WeChat Pay public key */
    signers: { certificate?: WechatSigner; public_key?: WechatSigner };
    /** every platform certificate issued, oldest first (GET /v3/certificates lists the valid ones) */
    certificates: Array<{ serial: string; pem: string }>;
    /** public_key: requests must name the public key (Wechatpay-Serial); certificate: the certificate signs unless a request names the public key */
    signWith: 'public_key' | 'certificate';
  };
  /** The order's state after whatever time has done to it (expiry closes a trade). */
  settle(order: SimOrder): SimOrder;
}

export const orderKey = (vendor: Vendor, outTradeNo: string) => `${vendor}:${outTradeNo}`;

/**
 * Applies the passage of time to an unpaid order: once it can no longer be paid, a trade that
 * exists is closed (Alipay notifies TRADE_CLOSED); an unscanned Alipay code just dies.
 */
export function settleOrder(ctx: Pick<SimContext, 'notifier'>, order: SimOrder): SimOrder {
  if (order.status !== 'WAIT' || Date.now() <= payableUntil(order)) return order;
  if (!tradeExists(order)) return order;
  order.status = 'CLOSED';
  order.closedBy = 'timeout';
  if (order.vendor === 'alipay') ctx.notifier.send(order, 'closed');
  return order;
}

/** True for a URL on this machine (a stand-in for the merchant's own https endpoint). */
export function isLoopbackUrl(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(url.hostname);
}

/**
 * Records a refund of a paid order (through the API or in the merchant portal) and notifies it:
 * Alipay at once, as a trade_status_sync carrying out_biz_no and the trade's refund_fee so far
 * (TRADE_CLOSED once fully refunded); WeChat Pay once the refund ends, PAYSIM_WECHAT_REFUND_MS
 * after it was accepted PROCESSING, as REFUND.SUCCESS (or REFUND.ABNORMAL / REFUND.CLOSED as
 * `behaviour` says).
 */
export function recordRefund(
  ctx: Pick<SimContext, 'notifier' | 'config'>,
  order: SimOrder,
  no: string,
  amountFen: number,
  reason?: string,
  notifyUrl = '',
  behaviour: RefundBehaviour = {},
): SimRefund {
  const wechat = order.vendor === 'wechat';
  const r: SimRefund = {
    no,
    refundId: wechat ? `50300${randomUUID().replace(/\D/g, '').slice(0, 24)}` : no,
    amountFen,
    at: Date.now(),
    notifyUrl,
    reason,
    status: wechat ? 'PROCESSING' : 'SUCCESS',
    refundedTotalFen: refundedFen(order) + amountFen,
    notify: behaviour.notify !== false,
  };
  order.refunds.push(r);
  if (!wechat) {
    if (r.refundedTotalFen >= order.amountFen) {
      order.status = 'CLOSED';
      order.closedBy = 'refund';
    }
    if (r.notify) ctx.notifier.send(order, 'refund', r);
    return r;
  }
  ctx.notifier.later(ctx.config.PAYSIM_WECHAT_REFUND_MS, () => {
    r.status =
      behaviour.outcome === 'abnormal' ? 'ABNORMAL' : behaviour.outcome === 'closed' ? 'CLOSED' : 'SUCCESS';
    r.at = Date.now();
    if (r.notify) ctx.notifier.send(order, 'refund', r);
  });
  return r;
}

/** Why the order cannot be paid now, or null when it can. */
export function notPayable(order: SimOrder): string | null {
  return order.status !== 'WAIT' || Date.now() > payableUntil(order)
    ? `order is ${order.status}${order.status === 'WAIT' ? ' (its code expired)' : ''}`
    : null;
}

/** The payer pays (scanning first if not yet); the vendor then notifies unless `notify` is false. */
export function payOrder(ctx: Pick<SimContext, 'notifier'>, order: SimOrder, notify = true): void {
  order.scannedAt ??= Date.now();
  order.status = 'PAID';
  order.paidAt = Date.now();
  if (notify) ctx.notifier.send(order, 'paid');
}
