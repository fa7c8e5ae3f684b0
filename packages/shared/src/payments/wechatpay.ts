import {
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  createSign,
  createVerify,
  type KeyObject,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import { request } from 'undici';
import {
  checkOrderId,
  isStaleConnection,
  type NotificationAnswer,
  PaymentProviderError,
  PaymentVerificationError,
  type ProviderTradeState,
  type QrPaymentProvider,
} from './types';
import { createPlatformCertificateStore } from './wechatpay-certificates';
import { refundReport, wechatRefundNotification } from './wechatpay-refunds';

export interface WechatPayConfig {
  mchid: string;
  appid: string;
  /** serial number of the merchant API certificate (the key below) */
  merchantSerialNo: string;
  merchantPrivateKey: string;
  /** the APIv3 key: 32 characters, decrypts notification resources */
  apiV3Key: string;
  /** platform certificates (PEM, several may be concatenated): verified by their serial numbers */
  platformCertificates?: string;
  /** the WeChat Pay public key and its id (`PUB_KEY_ID_...`) */
  publicKey?: string;
  publicKeyId?: string;
  /** https://api.mch.weixin.qq.com in production, the simulator in tests */
  baseUrl: string;
  /**
   * download platform certificates (GET /v3/certificates) again after this long, before the newest
   * expires and on an unknown serial; 0: never (a merchant with the WeChat Pay public key only)
   */
  certificateRefreshMs?: number;
  timeoutMs: number;
  /** notifications and answers whose Wechatpay-Timestamp is further from now than this are refused */
  toleranceSeconds: number;
}

export const WECHATPAY_SCHEMA = 'WECHATPAY2-SHA256-RSA2048';

/** The WeChat Pay provider, which also downloads platform certificates on request. */
export interface WechatPayProvider extends QrPaymentProvider {
  /** downloads the platform certificates now; resolves how many valid ones WeChat Pay listed (0 when not downloading) */
  refreshCertificates(): Promise<number>;
}

/** The verification keys by Wechatpay-Serial: each platform certificate's serial and the public key id. */
export function wechatVerifiers(
  config: Pick<WechatPayConfig, 'platformCertificates' | 'publicKey' | 'publicKeyId'>,
) {
  const keys = new Map<string, KeyObject>();
  const pems = config.platformCertificates?.match(
    /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g,
  );
  for (const pem of pems ?? []) {
    const cert = new X509Certificate(pem);
    keys.set(cert.serialNumber.toUpperCase(), cert.publicKey);
  }
  if (config.publicKey && config.publicKeyId) keys.set(config.publicKeyId, createPublicKey(config.publicKey));
  if (keys.size === 0)
    throw new Error('WeChat Pay needs a platform certificate or the WeChat Pay public key');
  return keys;
}

/**
 * The Wechatpay-Serial a request carries: the WeChat Pay public key id when the merchant has the
 * public key (WeChat Pay then signs its answer with that key, which is how a merchant finishes the
 * switch from platform certificates), else the serial of the newest platform certificate.
 */
export function wechatRequestSerial(
  config: Pick<WechatPayConfig, 'platformCertificates' | 'publicKey' | 'publicKeyId'>,
): string | undefined {
  if (config.publicKey && config.publicKeyId) return config.publicKeyId;
  const certs = (
    config.platformCertificates?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
  ).map((pem) => new X509Certificate(pem));
  certs.sort((a, b) => Date.parse(b.validFrom) - Date.parse(a.validFrom));
  return certs[0]?.serialNumber.toUpperCase();
}

/** Verifies `timestamp\nnonce\nbody\n` against Wechatpay-Signature with the key its serial names. */
export function verifyWechatSignature(
  keys: Map<string, KeyObject>,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  toleranceSeconds: number,
): void {
  const h = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const timestamp = h('wechatpay-timestamp');
  const nonce = h('wechatpay-nonce');
  const signature = h('wechatpay-signature');
  const serial = h('wechatpay-serial');
  if (!timestamp || !nonce || !signature || !serial || !/^\d{1,12}$/.test(timestamp)) {
    throw new PaymentVerificationError('Missing Wechatpay-* signature headers.', 'signature');
  }
  const signatureType = h('wechatpay-signature-type');
  if (signatureType && signatureType !== WECHATPAY_SCHEMA) {
    throw new PaymentVerificationError(`Unsupported signature type ${signatureType}.`, 'signature');
  }
  const key = keys.get(serial.toUpperCase()) ?? keys.get(serial);
  if (!key) throw new PaymentVerificationError(`Unknown Wechatpay-Serial ${serial}.`, 'signature');
  const ok = createVerify('RSA-SHA256')
    .update(`${timestamp}\n${nonce}\n${body}\n`)
    .verify(key, signature, 'base64');
  if (!ok) throw new PaymentVerificationError('The Wechatpay-Signature does not match.', 'signature');
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new PaymentVerificationError('The Wechatpay-Timestamp is stale.', 'signature');
  }
}

/** AEAD_AES_256_GCM with the APIv3 key: the ciphertext is base64 of encrypted bytes + 16-byte tag. */
export function decryptWechatResource(
  apiV3Key: string,
  resource: { ciphertext: string; nonce: string; associated_data?: string },
): string {
  const data = Buffer.from(resource.ciphertext, 'base64');
  if (data.length <= 16) throw new Error('ciphertext too short');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    Buffer.from(apiV3Key, 'utf8'),
    Buffer.from(resource.nonce, 'utf8'),
  );
  decipher.setAuthTag(data.subarray(data.length - 16));
  decipher.setAAD(Buffer.from(resource.associated_data ?? '', 'utf8'));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}

/** RFC 3339 in Beijing time, as WeChat Pay writes `time_expire`. */
export function wechatTime(at: Date): string {
  return `${new Date(at.getTime() + 8 * 3_600_000).toISOString().slice(0, 19)}+08:00`;
}

const TRADE_STATES: Record<string, ProviderTradeState['state']> = {
  SUCCESS: 'paid',
  NOTPAY: 'unpaid',
  USERPAYING: 'unpaid',
  PAYERROR: 'unpaid',
  CLOSED: 'closed',
  REVOKED: 'closed',
  // paid, then refunded (in part or in full): the refund's notification takes the credit back from
  // a credited order; an order not yet credited is never credited from this state
  REFUND: 'refunded',
};

/**
 * WeChat Pay API v3, Native payment, on node:crypto: requests carry the
 * WECHATPAY2-SHA256-RSA2048 Authorization (the merchant key signs
 * `METHOD\nPATH\ntimestamp\nnonce\nbody\n`); answers and notifications are verified over
 * `timestamp\nnonce\nbody\n` with the platform certificate or the WeChat Pay public key its
 * Wechatpay-Serial names (both accepted, for merchants moving from one to the other); the
 * notification resource is decrypted with AEAD_AES_256_GCM and the APIv3 key.
 */
export function createWechatPayProvider(config: WechatPayConfig): WechatPayProvider {
  const merchantKey = createPrivateKey(config.merchantPrivateKey);
  const verifiers = wechatVerifiers(config);
  const configuredSerial = wechatRequestSerial(config);
  // a merchant on platform certificates downloads them (and their successors); one on the public key only does not
  const certificates =
    (config.certificateRefreshMs ?? 0) > 0 && (config.platformCertificates || !config.publicKey)
      ? createPlatformCertificateStore({
          apiV3Key: config.apiV3Key,
          verifiers,
          download: () => send('GET', '/v3/certificates'),
          refreshMs: config.certificateRefreshMs ?? 0,
          toleranceSeconds: config.toleranceSeconds,
          decrypt: decryptWechatResource,
          verify: verifyWechatSignature,
        })
      : undefined;
  const requestSerial = (): string | undefined =>
    config.publicKey && config.publicKeyId
      ? configuredSerial
      : (certificates?.newestSerial() ?? configuredSerial);
  if (Buffer.byteLength(config.apiV3Key, 'utf8') !== 32)
    throw new Error('WECHATPAY_API_V3_KEY must be 32 bytes');
  const base = config.baseUrl.replace(/\/+$/, '');

  function authorization(method: string, path: string, body: string): string {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    const signature = createSign('RSA-SHA256')
      .update(`${method}\n${path}\n${timestamp}\n${nonce}\n${body}\n`)
      .sign(merchantKey, 'base64');
    return `${WECHATPAY_SCHEMA} mchid="${config.mchid}",nonce_str="${nonce}",signature="${signature}",timestamp="${timestamp}",serial_no="${config.merchantSerialNo}"`;
  }

  /** One signed request; the answer as it came (status, headers, text), not verified. */
  async function send(
    method: 'GET' | 'POST',
    path: string,
    payload?: unknown,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
    const body = payload === undefined ? '' : JSON.stringify(payload);
    const serial = requestSerial();
    for (let attempt = 0; ; attempt += 1) {
      try {
        const res = await request(base + path, {
          method,
          headers: {
            authorization: authorization(method, path, body),
            accept: 'application/json',
            'user-agent': 'mediagate',
            ...(serial ? { 'wechatpay-serial': serial } : {}),
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: payload === undefined ? undefined : body,
          headersTimeout: config.timeoutMs,
          bodyTimeout: config.timeoutMs,
        });
        return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
      } catch (err) {
        if (attempt === 0 && isStaleConnection(err)) continue;
        throw new PaymentProviderError('wechat', `${method} ${path} failed: ${(err as Error).message}`);
      }
    }
  }

  /** `verifyAll`: verify the answer's signature whatever its status (payments:check) */
  async function call(method: 'GET' | 'POST', path: string, payload?: unknown, verifyAll = false) {
    if (certificates?.due()) {
      // the first download is awaited when nothing else verifies answers; later ones run beside calls
      const download = certificates.refresh().catch(() => 0);
      if (verifiers.size === 0) await download;
    }
    const res = await send(method, path, payload);
    const { text } = res;
    let json: Record<string, unknown> = {};
    if (text) {
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new PaymentProviderError('wechat', `${method} ${path}: unreadable answer (${res.status})`);
      }
    }
    if ((res.status >= 200 && res.status < 300) || verifyAll) {
      try {
        const serial = res.headers['wechatpay-serial'];
        // a serial nobody knows: WeChat Pay rotated its certificate; download the new one
        await certificates?.learn(Array.isArray(serial) ? serial[0] : serial).catch(() => false);
        verifyWechatSignature(verifiers, res.headers, text, config.toleranceSeconds);
      } catch (err) {
        const answered = res.status >= 300 ? ` (it answered ${res.status} ${String(json.code ?? '')})` : '';
        throw new PaymentProviderError(
          'wechat',
          `${method} ${path.split('?')[0]}: answer not verified${answered}: ${(err as Error).message}`,
        );
      }
    }
    return { status: res.status, json };
  }

  const failure = (what: string, r: { status: number; json: Record<string, unknown> }) =>
    new PaymentProviderError(
      'wechat',
      `${what} answered ${r.status} ${String(r.json.code ?? '')} ${String(r.json.message ?? '')}`.trim(),
      typeof r.json.code === 'string' ? r.json.code : undefined,
    );

  return {
    name: 'wechat',
    // time_expire is exact to the second: a minute of clock skew
    codeGraceMs: 60_000,

    async createQr(order) {
      const r = await call('POST', '/v3/pay/transactions/native', {
        appid: config.appid,
        mchid: config.mchid,
        description: order.subject,
        out_trade_no: order.id,
        time_expire: wechatTime(order.expiresAt),
        notify_url: order.notifyUrl,
        amount: { total: order.amountFen, currency: 'CNY' },
      });
      if (r.status !== 200 || typeof r.json.code_url !== 'string') throw failure('native order', r);
      return { qrCode: r.json.code_url };
    },

    async createMobilePayment(order) {
      const r = await call('POST', '/v3/pay/transactions/h5', {
        appid: config.appid,
        mchid: config.mchid,
        description: order.subject,
        out_trade_no: order.id,
        time_expire: wechatTime(order.expiresAt),
        notify_url: order.notifyUrl,
        amount: { total: order.amountFen, currency: 'CNY' },
        scene_info: { payer_client_ip: order.payerIp, h5_info: { type: 'Wap' } },
      });
      if (r.status !== 200 || typeof r.json.h5_url !== 'string') throw failure('H5 order', r);
      // WeChat Pay sends the payer back to redirect_url once the payment is done
      return { payUrl: `${r.json.h5_url}&redirect_url=${encodeURIComponent(order.returnUrl)}` };
    },

    async check() {
      const id = checkOrderId();
      const path = `/v3/pay/transactions/out-trade-no/${id}?mchid=${encodeURIComponent(config.mchid)}`;
      // the answer's signature is verified whatever its status
      const r = await call('GET', path, undefined, true);
      if (r.status === 404 && r.json.code === 'ORDER_NOT_EXIST')
        return 'order query of an order that does not exist: 404 ORDER_NOT_EXIST, signed and verified';
      throw failure('order query', r);
    },

    async query(orderId) {
      const path = `/v3/pay/transactions/out-trade-no/${encodeURIComponent(orderId)}?mchid=${encodeURIComponent(config.mchid)}`;
      const r = await call('GET', path);
      if (r.status === 404 && r.json.code === 'ORDER_NOT_EXIST') return { state: 'closed', raw: r.json };
      if (r.status !== 200 || r.json.out_trade_no !== orderId || r.json.mchid !== config.mchid) {
        throw failure('order query', r);
      }
      const amount = r.json.amount as { total?: unknown } | undefined;
      return {
        state: TRADE_STATES[String(r.json.trade_state)] ?? 'unpaid',
        tradeId: typeof r.json.transaction_id === 'string' ? r.json.transaction_id : undefined,
        amountFen: typeof amount?.total === 'number' ? amount.total : undefined,
        paidAt: typeof r.json.success_time === 'string' ? new Date(r.json.success_time) : undefined,
        raw: r.json,
      };
    },

    async close(orderId) {
      const r = await call('POST', `/v3/pay/transactions/out-trade-no/${encodeURIComponent(orderId)}/close`, {
        mchid: config.mchid,
      });
      if (r.status === 204 || r.status === 200) return 'closed';
      if (r.json.code === 'ORDERPAID') return 'paid';
      if (r.json.code === 'ORDER_CLOSED') return 'closed';
      // the payer is paying (password entry): not closable now
      if (r.status === 202 || r.json.code === 'USER_PAYING' || r.json.code === 'USERPAYING') return 'open';
      throw failure('close', r);
    },

    async refund(req) {
      const r = await call('POST', '/v3/refund/domestic/refunds', {
        out_trade_no: req.orderId,
        out_refund_no: req.refundNo,
        ...(req.reason ? { reason: req.reason.slice(0, 80) } : {}),
        ...(req.notifyUrl ? { notify_url: req.notifyUrl } : {}),
        amount: { refund: req.amountFen, total: req.totalFen, currency: 'CNY' },
      });
      if (r.status === 200) return refundReport(r.json);
      // rate limits and WeChat Pay's own errors: the outcome is unknown, the same request is sent again
      if (r.status === 429 || r.status >= 500) throw failure('refund', r);
      return {
        status: 'failed',
        failure: `${String(r.json.code ?? r.status)} ${String(r.json.message ?? '')}`.trim(),
      };
    },

    async queryRefund(_orderId, refundNo) {
      const r = await call('GET', `/v3/refund/domestic/refunds/${encodeURIComponent(refundNo)}`);
      if (r.status === 404 && r.json.code === 'RESOURCE_NOT_EXISTS') return { status: 'absent' };
      if (r.status !== 200 || r.json.out_refund_no !== refundNo) throw failure('refund query', r);
      return refundReport(r.json);
    },

    verifyNotification(headers, rawBody) {
      const text = rawBody.toString('utf8');
      const serial = headers['wechatpay-serial'];
      // an unknown serial is refused now (WeChat Pay sends again) and its certificate downloaded meanwhile
      certificates?.learn(Array.isArray(serial) ? serial[0] : serial).catch(() => false);
      verifyWechatSignature(verifiers, headers, text, config.toleranceSeconds);
      let resource: { algorithm?: unknown; ciphertext?: unknown; nonce?: unknown; associated_data?: unknown };
      let eventType: unknown;
      try {
        const body = JSON.parse(text) as { event_type?: unknown; resource?: typeof resource };
        resource = body.resource ?? {};
        eventType = body.event_type;
      } catch {
        throw new PaymentVerificationError('Unreadable notification body.', 'payload');
      }
      if (
        resource.algorithm !== 'AEAD_AES_256_GCM' ||
        typeof resource.ciphertext !== 'string' ||
        typeof resource.nonce !== 'string'
      ) {
        throw new PaymentVerificationError('The notification resource is not AEAD_AES_256_GCM.', 'payload');
      }
      let tx: Record<string, unknown>;
      try {
        tx = JSON.parse(
          decryptWechatResource(config.apiV3Key, {
            ciphertext: resource.ciphertext,
            nonce: resource.nonce,
            associated_data: typeof resource.associated_data === 'string' ? resource.associated_data : '',
          }),
        ) as Record<string, unknown>;
      } catch {
        throw new PaymentVerificationError(
          'The notification resource does not decrypt with the APIv3 key.',
          'signature',
        );
      }
      if (typeof eventType === 'string' && eventType.startsWith('REFUND.'))
        return wechatRefundNotification(config.mchid, eventType, tx);
      if (tx.mchid !== config.mchid || tx.appid !== config.appid) {
        throw new PaymentVerificationError('The notification is for another merchant or app.', 'merchant');
      }
      const amount = tx.amount as { total?: unknown; currency?: unknown } | undefined;
      if (
        typeof tx.out_trade_no !== 'string' ||
        typeof amount?.total !== 'number' ||
        !Number.isSafeInteger(amount.total)
      ) {
        throw new PaymentVerificationError('The notification lacks out_trade_no or amount.total.', 'payload');
      }
      if (amount.currency !== undefined && amount.currency !== 'CNY') {
        throw new PaymentVerificationError('The notification is not in CNY.', 'payload');
      }
      return {
        orderId: tx.out_trade_no,
        paid: eventType === 'TRANSACTION.SUCCESS' && tx.trade_state === 'SUCCESS',
        tradeId: typeof tx.transaction_id === 'string' ? tx.transaction_id : undefined,
        amountFen: amount.total,
        paidAt: typeof tx.success_time === 'string' ? new Date(tx.success_time) : undefined,
        raw: tx,
      };
    },

    acknowledge(): NotificationAnswer {
      return { status: 204 };
    },

    async refreshCertificates() {
      return certificates ? certificates.refresh() : 0;
    },

    refuse(message, status): NotificationAnswer {
      return {
        status,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'FAIL', message: message.slice(0, 64) }),
      };
    },
  };
}
