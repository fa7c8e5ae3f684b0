import { createPrivateKey, createPublicKey } from 'node:crypto';
import { Socket } from 'node:net';
import type { AlipaySdk } from 'alipay-sdk';
import {
  fenToYuan,
  isStaleConnection,
  type NotificationAnswer,
  PaymentProviderError,
  PaymentVerificationError,
  checkOrderId,
  type ProviderTradeState,
  type QrPaymentProvider,
  type RefundReport,
  yuanToFen,
} from './types';

export interface AlipayConfig {
  appId: string;
  /** the application's private key (PEM, PKCS#1 or PKCS#8, or the bare base64 Alipay's tool prints) */
  privateKey: string;
  /** Alipay's public key (PEM or bare base64), for responses and notifications (public-key mode) */
  alipayPublicKey?: string;
  /**
   * public-key-certificate mode, PEM: the application public key certificate, Alipay's public key
   * certificate (its key verifies answers and notifications) and Alipay's root certificate; requests
   * then carry app_cert_sn and alipay_root_cert_sn, and answers must name Alipay's certificate
   */
  certificates?: { app: string; alipay: string; root: string };
  /** https://openapi.alipay.com/gateway.do in production, the simulator's /gateway.do in tests */
  gateway: string;
  timeoutMs: number;
  /** notifications whose notify_time is further from now than this are refused */
  toleranceSeconds: number;
}

/** A key given as PEM or bare base64, as PKCS#8 / SPKI PEM (what alipay-sdk is told to expect). */
function normalizePrivateKey(key: string): string {
  const text = key.trim();
  const pem = text.includes('-----BEGIN')
    ? text
    : tryWrap(text, ['PRIVATE KEY', 'RSA PRIVATE KEY'], (p) => createPrivateKey(p));
  return createPrivateKey(pem).export({ type: 'pkcs8', format: 'pem' }).toString();
}

function normalizePublicKey(key: string): string {
  const text = key.trim();
  const pem = text.includes('-----BEGIN') ? text : tryWrap(text, ['PUBLIC KEY'], (p) => createPublicKey(p));
  return createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();
}

function tryWrap(base64: string, labels: string[], load: (pem: string) => unknown): string {
  const body = base64.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n');
  for (const label of labels) {
    const pem = `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
    try {
      load(pem);
      return pem;
    } catch {
      // try the next form
    }
  }
  throw new Error('not a readable RSA key');
}

/**
 * alipay-sdk, loaded on first use. Its HTTP client (urllib) replaces `net.Socket.prototype.destroy`
 * for the whole process when it loads, and the replacement throws when undici destroys several
 * sockets with one error (an Agent destroyed with requests in flight, as the callback dispatcher
 * does on shutdown). The original method is put back: urllib only used it to attach the socket to
 * errors for its messages. Loading lazily also keeps processes without Alipay free of it.
 */
function loadAlipaySdk(): typeof AlipaySdk {
  const destroy = Socket.prototype.destroy;
  try {
    return (require('alipay-sdk') as { AlipaySdk: typeof AlipaySdk }).AlipaySdk;
  } finally {
    Socket.prototype.destroy = destroy;
  }
}

/** `yyyy-MM-dd HH:mm:ss` in Beijing time (UTC+8), as Alipay writes times. */
export function alipayTime(at: Date): string {
  return new Date(at.getTime() + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Alipay's `yyyy-MM-dd HH:mm:ss` (Beijing time) as a Date, or null. */
export function parseAlipayTime(value: string | undefined): Date | null {
  if (!value || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) return null;
  const d = new Date(`${value.replace(' ', 'T')}+08:00`);
  return Number.isNaN(d.getTime()) ? null : d;
}

const PAID = new Set(['TRADE_SUCCESS', 'TRADE_FINISHED']);

/** Alipay's relative validity until `at`: whole minutes, rounded up, 1m at least. */
const minutesLeft = (at: Date) => `${Math.max(1, Math.ceil((at.getTime() - Date.now()) / 60_000))}m`;

/**
 * Alipay face-to-face payment (当面付) through the official alipay-sdk: `alipay.trade.precreate`
 * returns the QR content, `alipay.trade.query` and `alipay.trade.close` serve the reconciler,
 * and the asynchronous notification (form-encoded, RSA2-signed over the sorted fields without
 * `sign` and `sign_type`) is verified with Alipay's public key. Responses are verified too.
 */
export function createAlipayProvider(config: AlipayConfig): QrPaymentProvider {
  const Sdk = loadAlipaySdk();
  const keys = config.certificates
    ? {
        appCertContent: config.certificates.app,
        alipayPublicCertContent: config.certificates.alipay,
        alipayRootCertContent: config.certificates.root,
      }
    : { alipayPublicKey: normalizePublicKey(config.alipayPublicKey ?? '') };
  const sdk = new Sdk({
    appId: config.appId,
    privateKey: normalizePrivateKey(config.privateKey),
    keyType: 'PKCS8',
    ...keys,
    gateway: config.gateway,
    timeout: config.timeoutMs,
    signType: 'RSA2',
    camelcase: false,
  });

  async function call(
    method: string,
    bizContent: Record<string, unknown>,
    extra: Record<string, string> = {},
  ) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return (await sdk.exec(method, { ...extra, bizContent }, { validateSign: true })) as Record<
          string,
          unknown
        >;
      } catch (err) {
        if (attempt === 0 && isStaleConnection(err)) continue;
        throw (
          gatewayError(method, err) ??
          (await unsignedRefusal(method, extra, bizContent, err)) ??
          new PaymentProviderError('alipay', `${method} failed: ${(err as Error).message}`)
        );
      }
    }
  }

  /**
   * Alipay's unsigned `error_response` (an app id it does not know, a method the app may not call,
   * our signature refused): the SDK reports it as a signature failure of the answer; it is the
   * gateway refusing the request, reported with its code. A signed answer that does not verify stays
   * a signature failure.
   */
  const gatewayError = (method: string, err: unknown): PaymentProviderError | undefined => {
    const raw = (err as { responseDataRaw?: unknown }).responseDataRaw;
    if (typeof raw !== 'string') return undefined;
    let body: { error_response?: Record<string, unknown>; sign?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return undefined;
    }
    const e = body.error_response;
    if (!e || typeof e !== 'object' || body.sign !== undefined) return undefined;
    return new PaymentProviderError(
      'alipay',
      `${method} refused by the gateway: error_response ${String(e.code)} ${String(e.sub_code ?? e.msg ?? '')}${e.sub_msg ? ` (${String(e.sub_msg)})` : ''}`.trim(),
      String(e.sub_code ?? e.code),
    );
  };

  /**
   * The SDK fails on an unsigned answer before showing it (a signature of undefined): asked once
   * more without verification, an answer that is a gateway refusal (`isv.*` or a gateway code)
   * is reported as that refusal. Only the message comes from it: nothing unverified is acted upon.
   */
  const GATEWAY_CODES = new Set(['20000', '20001', '40001', '40002', '40006']);
  const unsignedRefusal = async (
    method: string,
    extra: Record<string, string>,
    bizContent: Record<string, unknown>,
    err: unknown,
  ): Promise<PaymentProviderError | undefined> => {
    if (isStaleConnection(err)) return undefined;
    let r: Record<string, unknown>;
    try {
      r = (await sdk.exec(method, { ...extra, bizContent }, { validateSign: false })) as Record<
        string,
        unknown
      >;
    } catch {
      return undefined;
    }
    const subCode = String(r.sub_code ?? '');
    if (!GATEWAY_CODES.has(String(r.code)) && !subCode.startsWith('isv.')) return undefined;
    return new PaymentProviderError(
      'alipay',
      `${method} refused by the gateway: error_response ${String(r.code)} ${subCode}${r.sub_msg ? ` (${String(r.sub_msg)})` : ''}, unsigned`,
      subCode || String(r.code),
    );
  };

  const failure = (method: string, r: Record<string, unknown>) =>
    new PaymentProviderError(
      'alipay',
      `${method} answered ${String(r.code)} ${String(r.sub_code ?? r.msg ?? '')}`.trim(),
      String(r.sub_code ?? r.code),
    );

  return {
    name: 'alipay',
    // the validity is sent in whole minutes, rounded up; and a minute of clock skew
    codeGraceMs: 2 * 60_000,

    async createQr(order) {
      const r = await call(
        'alipay.trade.precreate',
        {
          out_trade_no: order.id,
          total_amount: fenToYuan(order.amountFen),
          subject: order.subject,
          // timeout_express counts from the scan; before it the code lives qr_code_timeout_express
          // (2 hours when absent): both end with the order (whole minutes, 1m at least)
          timeout_express: minutesLeft(order.expiresAt),
          qr_code_timeout_express: minutesLeft(order.expiresAt),
        },
        { notifyUrl: order.notifyUrl },
      );
      if (r.code !== '10000' || typeof r.qr_code !== 'string' || r.out_trade_no !== order.id) {
        throw failure('alipay.trade.precreate', r);
      }
      return { qrCode: r.qr_code };
    },

    async createMobilePayment(order) {
      // a page method: the signed gateway URL is opened by the payer's browser (Alipay's cashier)
      const biz = {
        out_trade_no: order.id,
        total_amount: fenToYuan(order.amountFen),
        subject: order.subject,
        product_code: 'QUICK_WAP_WAY',
        // the absolute end: the order's, whatever the payer does in between
        time_expire: alipayTime(order.expiresAt),
      };
      try {
        const payUrl = sdk.pageExec('alipay.trade.wap.pay', 'GET', {
          bizContent: biz,
          returnUrl: order.returnUrl,
          notifyUrl: order.notifyUrl,
        });
        return { payUrl };
      } catch (err) {
        throw new PaymentProviderError('alipay', `alipay.trade.wap.pay failed: ${(err as Error).message}`);
      }
    },

    async check() {
      const r = await call('alipay.trade.query', { out_trade_no: checkOrderId() });
      // the answer was verified with Alipay's key (validateSign) before it is read
      if (r.code === '40004' && r.sub_code === 'ACQ.TRADE_NOT_EXIST')
        return 'alipay.trade.query of an order that does not exist: ACQ.TRADE_NOT_EXIST, signed and verified';
      throw failure('alipay.trade.query', r);
    },

    async query(orderId) {
      const r = await call('alipay.trade.query', { out_trade_no: orderId });
      // A precreated order becomes a trade only once scanned: until then it does not exist.
      if (r.code === '40004' && r.sub_code === 'ACQ.TRADE_NOT_EXIST') return { state: 'unpaid', raw: r };
      if (r.code !== '10000' || r.out_trade_no !== orderId) throw failure('alipay.trade.query', r);
      const status = String(r.trade_status);
      const state: ProviderTradeState['state'] = PAID.has(status)
        ? 'paid'
        : status === 'TRADE_CLOSED'
          ? 'closed'
          : 'unpaid';
      return {
        state,
        tradeId: typeof r.trade_no === 'string' ? r.trade_no : undefined,
        amountFen: yuanToFen(String(r.total_amount)) ?? undefined,
        paidAt: parseAlipayTime(r.send_pay_date as string | undefined) ?? undefined,
        raw: r,
      };
    },

    async close(orderId) {
      const r = await call('alipay.trade.close', { out_trade_no: orderId });
      if (r.code === '10000') return 'closed';
      // never scanned: no trade to close, but the code stays payable until its own validity ends
      // (qr_code_timeout_express); the caller keeps asking until then
      if (r.code === '40004' && r.sub_code === 'ACQ.TRADE_NOT_EXIST') return 'absent';
      // paid or finished (a closed trade is reported closed by the query before any close)
      if (r.code === '40004' && r.sub_code === 'ACQ.TRADE_STATUS_ERROR') return 'paid';
      throw failure('alipay.trade.close', r);
    },

    async refund(req) {
      const r = await call('alipay.trade.refund', {
        out_trade_no: req.orderId,
        refund_amount: fenToYuan(req.amountFen),
        out_request_no: req.refundNo,
        ...(req.reason ? { refund_reason: req.reason.slice(0, 256) } : {}),
      });
      if (r.code === '10000' && r.out_trade_no === req.orderId) {
        // fund_change Y: this request moved the money; N: a repeat of a refund made before, or one
        // not done yet: the refund query says which
        if (r.fund_change === 'Y') return { status: 'succeeded', amountFen: req.amountFen };
        return this.queryRefund(req.orderId, req.refundNo);
      }
      const subCode = String(r.sub_code ?? r.code);
      // Alipay's own trouble: the outcome is unknown, the same request is sent again later
      if (subCode === 'ACQ.SYSTEM_ERROR' || r.code === '20000') {
        throw failure('alipay.trade.refund', r);
      }
      return {
        status: 'failed',
        failure: `${subCode}${r.sub_msg ? ` ${String(r.sub_msg)}` : ''}`,
      } satisfies RefundReport;
    },

    async queryRefund(orderId, refundNo) {
      const r = await call('alipay.trade.fastpay.refund.query', {
        out_trade_no: orderId,
        out_request_no: refundNo,
        query_options: ['gmt_refund_pay'],
      });
      if (r.code === '40004' && r.sub_code === 'ACQ.TRADE_NOT_EXIST') return { status: 'absent' };
      if (r.code !== '10000') throw failure('alipay.trade.fastpay.refund.query', r);
      // without refund_status the refund was not received or failed (Alipay: send it again)
      if (r.refund_status !== 'REFUND_SUCCESS' || r.out_request_no !== refundNo) return { status: 'absent' };
      const amountFen = yuanToFen(String(r.refund_amount ?? ''));
      if (amountFen === null) throw failure('alipay.trade.fastpay.refund.query', r);
      return {
        status: 'succeeded',
        amountFen,
        providerRefundId: refundNo,
        succeededAt: parseAlipayTime(String(r.gmt_refund_pay ?? '').slice(0, 19)) ?? undefined,
      };
    },

    verifyNotification(_headers, rawBody) {
      const fields: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(rawBody.toString('utf8'))) fields[k] = v;
      if (!fields.sign) throw new PaymentVerificationError('The notification is not signed.', 'signature');
      if (fields.sign_type && fields.sign_type !== 'RSA2') {
        throw new PaymentVerificationError(`Unsupported sign_type ${fields.sign_type}.`, 'signature');
      }
      let valid = false;
      try {
        // values are already form-decoded: verify them as they are
        valid = sdk.checkNotifySignV2(fields);
      } catch {
        valid = false;
      }
      if (!valid)
        throw new PaymentVerificationError('The notification signature does not match.', 'signature');
      const sentAt = parseAlipayTime(fields.notify_time);
      if (!sentAt || Math.abs(Date.now() - sentAt.getTime()) > config.toleranceSeconds * 1000) {
        throw new PaymentVerificationError('The notification notify_time is stale or missing.', 'signature');
      }
      if (fields.app_id !== config.appId) {
        throw new PaymentVerificationError('The notification is for another app_id.', 'merchant');
      }
      const amountFen = yuanToFen(fields.total_amount ?? '');
      if (!fields.out_trade_no || amountFen === null) {
        throw new PaymentVerificationError('The notification lacks out_trade_no or total_amount.', 'payload');
      }
      // a refund (in the merchant portal or through the API) is notified with the refund's number
      // (out_biz_no) and what the trade has refunded in all (refund_fee)
      if (fields.out_biz_no && fields.refund_fee !== undefined) {
        const refundedTotalFen = yuanToFen(fields.refund_fee);
        if (refundedTotalFen === null || refundedTotalFen <= 0) {
          throw new PaymentVerificationError('The refund notification has no valid refund_fee.', 'payload');
        }
        return {
          orderId: fields.out_trade_no,
          paid: false,
          tradeId: fields.trade_no,
          amountFen,
          refund: {
            refundNo: fields.out_biz_no,
            providerRefundId: fields.out_biz_no,
            status: 'succeeded',
            refundedTotalFen,
            at: parseAlipayTime((fields.gmt_refund ?? '').slice(0, 19)) ?? undefined,
          },
          raw: fields,
        };
      }
      return {
        orderId: fields.out_trade_no,
        paid: PAID.has(fields.trade_status ?? ''),
        tradeId: fields.trade_no,
        amountFen,
        paidAt: parseAlipayTime(fields.gmt_payment) ?? undefined,
        raw: fields,
      };
    },

    acknowledge(): NotificationAnswer {
      return { status: 200, contentType: 'text/plain', body: 'success' };
    },

    refuse(_message, status): NotificationAnswer {
      return { status, contentType: 'text/plain', body: 'fail' };
    },
  };
}
