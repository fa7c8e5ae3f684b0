import { randomBytes } from 'node:crypto';
import { alipayTime } from '@mediagate/shared/payments';

export type Vendor = 'alipay' | 'wechat';

/** How the payer reaches the order: a QR code on a desktop, or a pay page opened on the phone. */
export type PayChannel = 'qr' | 'mobile';

/** One notification the vendor sends (payment, close, refund, or a signature probe). */
export interface SimNotification {
  id: string;
  kind: 'paid' | 'closed' | 'refund' | 'signtest';
  attempts: Attempt[];
  answered: boolean;
  /** the refund this notification reports */
  refundNo?: string;
}

export interface Attempt {
  at: number;
  status: number | null;
  body: string;
  ok: boolean;
}

export interface SimRefund {
  /** Alipay out_request_no / WeChat Pay out_refund_no */
  no: string;
  refundId: string;
  amountFen: number;
  at: number;
  notifyUrl: string;
  reason?: string;
  /** WeChat Pay: PROCESSING until it ends (PAYSIM_WECHAT_REFUND_MS); Alipay refunds at once */
  status: 'PROCESSING' | 'SUCCESS' | 'ABNORMAL' | 'CLOSED';
  /** what the trade had refunded in all once this refund was made (Alipay's refund_fee) */
  refundedTotalFen: number;
  /** false: the vendor sends no notification for it (a lost notification) */
  notify: boolean;
}

/**
 * What the next refund through the API does (`POST /_control/refund-behaviour`): `refuse` (Alipay
 * ACQ.SELLER_BALANCE_NOT_ENOUGH, WeChat Pay 403 NOT_ENOUGH), `no_answer` (made, but answered with
 * the vendor's system error, as if the answer were lost), WeChat Pay `abnormal` / `closed` (ends
 * ABNORMAL / CLOSED instead of SUCCESS); `notify: false` sends no notification for it.
 */
export interface RefundBehaviour {
  outcome?: 'refuse' | 'no_answer' | 'abnormal' | 'closed';
  notify?: boolean;
}

/** An order as the vendor holds it. All times are the simulator's clock, in ms. */
export interface SimOrder {
  vendor: Vendor;
  channel: PayChannel;
  outTradeNo: string;
  amountFen: number;
  subject: string;
  notifyUrl: string;
  /** where the payer returns after paying on a phone (Alipay return_url, WeChat H5 redirect_url) */
  returnUrl?: string;
  /** the secret part of the mobile pay page's address (Alipay's cashier, WeChat Pay's H5 page) */
  payToken?: string;
  createdAt: number;
  /**
   * Until when the code (Alipay: before a scan) can be scanned: Alipay's qr_code_timeout_express
   * from the precreate (2 hours without it); WeChat Pay's code_url lives 2 hours.
   */
  codeExpiresAt: number;
  /** Alipay's timeout_express in ms: the time the payer has, counted from the scan */
  tradeTimeoutMs?: number;
  /** time_expire: the absolute end of the order, whatever happened before */
  timeExpireAt?: number;
  /** Alipay creates the trade at the scan; WeChat Pay shows the payer the order */
  scannedAt?: number;
  status: 'WAIT' | 'PAID' | 'CLOSED';
  closedBy?: 'merchant' | 'timeout' | 'refund';
  tradeId: string;
  paidAt?: number;
  refunds: SimRefund[];
  /** what the next refund through the API does (the control API sets it) */
  nextRefund?: RefundBehaviour;
  notifications: SimNotification[];
}

const TWO_HOURS = 2 * 3_600_000;

export function newTradeId(vendor: Vendor): string {
  const prefix = vendor === 'alipay' ? alipayTime(new Date()).replace(/\D/g, '').slice(0, 8) : '4200';
  return `${prefix}${[...randomBytes(20)].map((b) => String(b % 10)).join('')}`;
}

export function createOrder(fields: {
  vendor: Vendor;
  channel: PayChannel;
  outTradeNo: string;
  amountFen: number;
  subject: string;
  notifyUrl: string;
  returnUrl?: string;
  codeTtlMs?: number;
  tradeTimeoutMs?: number;
  timeExpireAt?: number;
}): SimOrder {
  const now = Date.now();
  return {
    vendor: fields.vendor,
    channel: fields.channel,
    outTradeNo: fields.outTradeNo,
    amountFen: fields.amountFen,
    subject: fields.subject,
    notifyUrl: fields.notifyUrl,
    returnUrl: fields.returnUrl,
    payToken: fields.channel === 'mobile' ? randomBytes(16).toString('hex') : undefined,
    createdAt: now,
    codeExpiresAt: now + (fields.codeTtlMs ?? TWO_HOURS),
    tradeTimeoutMs: fields.tradeTimeoutMs,
    timeExpireAt: fields.timeExpireAt,
    status: 'WAIT',
    tradeId: newTradeId(fields.vendor),
    refunds: [],
    notifications: [],
  };
}

/**
 * The moment an unpaid order stops being payable: before a scan, the code's life and time_expire;
 * after an Alipay scan, timeout_express from the scan and time_expire.
 */
export function payableUntil(order: SimOrder): number {
  const limits = [order.timeExpireAt ?? Number.POSITIVE_INFINITY];
  if (order.vendor === 'alipay' && order.scannedAt !== undefined) {
    limits.push(order.scannedAt + (order.tradeTimeoutMs ?? TWO_HOURS));
  } else {
    limits.push(order.codeExpiresAt);
  }
  return Math.min(...limits);
}

/** Alipay: the trade exists once its code was scanned (a precreate alone is not a trade). */
export function tradeExists(order: SimOrder): boolean {
  return order.vendor === 'wechat' || order.scannedAt !== undefined;
}

/** The order as if placed `ms` earlier (the control API ages orders instead of waiting). */
export function ageOrder(order: SimOrder, ms: number): void {
  order.createdAt -= ms;
  order.codeExpiresAt -= ms;
  if (order.timeExpireAt !== undefined) order.timeExpireAt -= ms;
  if (order.scannedAt !== undefined) order.scannedAt -= ms;
}

/** Sum of the refunds made on an order (done or under way; a closed one gave nothing back), in fen. */
export function refundedFen(order: SimOrder): number {
  return order.refunds.reduce((s, r) => s + (r.status === 'CLOSED' ? 0 : r.amountFen), 0);
}

/**
 * A minimal per-second request budget per key (the vendors' per-method rate limits): `take` is
 * false once `limit` requests were taken within the current second.
 */
export function rateLimiter(limit: number) {
  const windows = new Map<string, { second: number; used: number }>();
  return {
    take(key: string): boolean {
      if (limit <= 0) return true;
      const second = Math.floor(Date.now() / 1000);
      const w = windows.get(key);
      if (!w || w.second !== second) {
        windows.set(key, { second, used: 1 });
        return true;
      }
      w.used += 1;
      return w.used <= limit;
    },
  };
}
