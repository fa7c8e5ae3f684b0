import { randomBytes } from 'node:crypto';
/** The QR-code payment providers a top-up order can use. */
export const QR_PROVIDERS = ['alipay', 'wechat'] as const;
export type QrProviderName = (typeof QR_PROVIDERS)[number];

/** What a provider says about one order (our out_trade_no). */
export interface ProviderTradeState {
  /**
   * paid: money taken; unpaid: waiting for the payer (or never scanned); closed: can no longer be
   * paid; refunded: paid, then refunded in part or in full (WeChat Pay's REFUND): never credited
   * automatically
   */
  state: 'paid' | 'unpaid' | 'closed' | 'refunded';
  /** the provider's trade id (Alipay trade_no, WeChat Pay transaction_id), when known */
  tradeId?: string;
  /** the amount the provider took, in fen, when paid */
  amountFen?: number;
  paidAt?: Date;
  raw?: unknown;
}

/**
 * What closing an order did: `closed` (it can no longer be paid), `paid` (the provider took the
 * money: query and credit it), `open` (not closable now, e.g. the payer is entering the password:
 * try again later), `absent` (the provider has no trade: an Alipay code never scanned, payable
 * until the validity it was given ends).
 */
export type CloseOutcome = 'closed' | 'paid' | 'open' | 'absent';

/** A notification whose signature and sender were verified; the order checks remain. */
export interface VerifiedNotification {
  /** our order id (out_trade_no) */
  orderId: string;
  /** true when the notification reports a completed payment */
  paid: boolean;
  tradeId?: string;
  /** the order's total as the provider holds it, in fen */
  amountFen: number;
  paidAt?: Date;
  /** set when the notification reports a refund of the order (then `paid` is false) */
  refund?: NotifiedRefund;
  raw: unknown;
}

/** A refund a notification reports. */
export interface NotifiedRefund {
  /** the merchant refund number: Alipay out_biz_no, WeChat Pay out_refund_no */
  refundNo: string;
  /** WeChat Pay refund_id (Alipay has none besides the refund number) */
  providerRefundId?: string;
  /** succeeded; failed: WeChat Pay REFUND.ABNORMAL or REFUND.CLOSED */
  status: 'succeeded' | 'failed';
  /** this refund's amount in fen, when the notification says it (WeChat Pay amount.refund) */
  amountFen?: number;
  /** what the order has refunded in all, when the notification says it (Alipay refund_fee) */
  refundedTotalFen?: number;
  at?: Date;
  /** the provider's word for a failure (REFUND.ABNORMAL ...) */
  failure?: string;
}

/** What the provider says of one refund (its answer to a refund request, or a query). */
export interface RefundReport {
  /**
   * succeeded: the money went back; pending: under way (WeChat Pay's PROCESSING, or no answer
   * known: ask again); failed: refused or closed, nothing refunded; absent (queries only): the
   * provider has no such refund, so the request never arrived or failed: send it again
   */
  status: 'succeeded' | 'pending' | 'failed' | 'absent';
  amountFen?: number;
  providerRefundId?: string;
  succeededAt?: Date;
  /** the provider's code and message for a refusal */
  failure?: string;
}

/** A refund to place with the provider; `refundNo` makes a repeat of it refund once. */
export interface RefundRequest {
  orderId: string;
  refundNo: string;
  amountFen: number;
  /** the order's amount (WeChat Pay's amount.total) */
  totalFen: number;
  reason?: string;
  /** where WeChat Pay sends its refund notification (absent: the merchant platform's setting) */
  notifyUrl?: string;
}

/** How the provider wants a notification answered. */
export interface NotificationAnswer {
  status: number;
  contentType?: string;
  body?: string;
}

/**
 * Every payment provider: its name (notified at `/payments/<name>/notify`) and the verification of
 * its notifications, which checks authenticity (signature, freshness, merchant) before reading
 * anything and throws PaymentVerificationError otherwise. `N` is what a verified notification says.
 */
export interface PaymentProvider<N> {
  readonly name: string;
  verifyNotification(headers: Record<string, string | string[] | undefined>, rawBody: Buffer): N;
}

/** A payment that names its account and USD amount itself (the `dev` provider), once verified. */
export interface AccountPaymentNotification {
  /** the provider's id of the payment: a top-up is credited once per (provider, reference) */
  reference: string;
  accountId: string;
  amountMicroUsd: number;
  /** the provider's payload, kept with the payment row */
  raw: unknown;
}

/** A provider whose notifications carry the account and amount (the `dev` provider). */
export type AccountPaymentProvider = PaymentProvider<AccountPaymentNotification>;

/**
 * One QR-code payment provider, as the API (create, verify notifications) and the reconciler
 * (query, close) use it. Implementations speak the vendor's protocol over HTTP.
 */
export interface QrPaymentProvider extends PaymentProvider<VerifiedNotification> {
  readonly name: QrProviderName;
  /** places the order with the provider; returns the content of the QR code to show */
  createQr(order: {
    id: string;
    amountFen: number;
    subject: string;
    expiresAt: Date;
    notifyUrl: string;
  }): Promise<{ qrCode: string }>;
  /**
   * places the order for a payer on a phone (Alipay's mobile-web payment, WeChat Pay H5): returns
   * the URL the payer's browser opens; after paying, the provider sends the payer to `returnUrl`
   */
  createMobilePayment(order: {
    id: string;
    amountFen: number;
    subject: string;
    expiresAt: Date;
    notifyUrl: string;
    /** the payer's IP address, as WeChat Pay H5 requires it */
    payerIp: string;
    returnUrl: string;
  }): Promise<{ payUrl: string }>;
  query(orderId: string): Promise<ProviderTradeState>;
  /**
   * Proves the credentials (payments:check): asks about an order that does not exist and resolves
   * with what the provider said once its answer came back signed and verified; throws
   * PaymentProviderError otherwise (the request refused, the answer unsigned or not verified).
   */
  check(): Promise<string>;
  /** closes an unpaid order; what the provider answered (CloseOutcome) */
  close(orderId: string): Promise<CloseOutcome>;
  /**
   * Asks the provider to refund part or all of a paid order (Alipay alipay.trade.refund, WeChat Pay
   * POST /v3/refund/domestic/refunds), idempotent per `refundNo`. Resolves with what the provider
   * answered (a refusal is `failed` with its reason); throws PaymentProviderError when no answer
   * came (the outcome is unknown: query it, or send the same request again).
   */
  refund(request: RefundRequest): Promise<RefundReport>;
  /** What the provider says of one refund (alipay.trade.fastpay.refund.query, GET .../refunds/{no}). */
  queryRefund(orderId: string, refundNo: string): Promise<RefundReport>;
  /**
   * How long after the order's `expires_at` the provider may still take a payment for a code it
   * says does not exist (`absent`): the rounding of the validity it was given, and clock skew
   * between it and us. Until then an order whose close answers `absent` stays open and is queried.
   */
  readonly codeGraceMs: number;
  /**
   * Verifies a notification: signature with the provider's key, freshness, and our own merchant
   * identity (app id / mchid). Throws PaymentVerificationError; never reads an unverified field.
   */
  verifyNotification(
    headers: Record<string, string | string[] | undefined>,
    rawBody: Buffer,
  ): VerifiedNotification;
  /** the answer that stops the provider's retries */
  acknowledge(): NotificationAnswer;
  /** the answer that makes the provider send again later */
  refuse(message: string, status: number): NotificationAnswer;
}

/** A notification that must not be trusted (bad signature, stale, another merchant) or read. */
export class PaymentVerificationError extends Error {
  constructor(
    message: string,
    readonly kind: 'signature' | 'merchant' | 'payload',
  ) {
    super(message);
    this.name = 'PaymentVerificationError';
  }
}

/** A call to the provider failed (transport, signature of its answer, or its error code). */
export class PaymentProviderError extends Error {
  constructor(
    readonly provider: QrProviderName,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

/** An order id no order has (`check_` + 24 random hex characters): what payments:check asks about. */
export function checkOrderId(): string {
  return `check_${randomBytes(12).toString('hex')}`;
}

/** `35.5` / `"35.50"` yuan as fen; null unless a plain non-negative amount with at most 2 decimals. */
export function yuanToFen(value: string): number | null {
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(value)) return null;
  const [whole, frac = ''] = value.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

/** fen as the `"35.00"` string both vendors' yuan fields use. */
export function fenToYuan(fen: number): string {
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}

/** A PEM given in an env variable: literal `\n` sequences become newlines. */
export function pemFromEnv(value: string): string {
  return value.replace(/\\n/g, '\n').trim();
}

/**
 * True for a connection the peer closed as the request went out (a kept-alive socket timing out on
 * its side): the request was not processed, and every provider call here is idempotent (orders by
 * out_trade_no, queries, closes), so it is sent once more.
 */
export function isStaleConnection(err: unknown): boolean {
  for (
    let e = err as { code?: string; message?: string; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.code === 'ECONNRESET' || e.code === 'EPIPE' || e.code === 'UND_ERR_SOCKET') return true;
    if (typeof e.message === 'string' && /ECONNRESET|socket hang up|other side closed/i.test(e.message))
      return true;
  }
  return false;
}
