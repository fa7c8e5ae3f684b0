import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from '@mediagate/shared/log';
import { bearerMatches } from '@mediagate/shared/metrics';
import {
  alipayResponseBody,
  alipayTime,
  fenToYuan,
  signAlipayNotification,
  verifyAlipayRequest,
  verifyWechatRequest,
  wechatEncryptResource,
  wechatSignedHeaders,
  wechatTime,
  yuanToFen,
} from '@mediagate/shared/payments';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import pino from 'pino';
import type { PaySimConfig } from './config';

export { type PaySimConfig, paySimEnvSchema } from './config';
export { generatePaymentKeys, type PaymentKeySet } from './keys';

type Vendor = 'alipay' | 'wechat';

/** An order as the vendor holds it. */
interface SimOrder {
  vendor: Vendor;
  outTradeNo: string;
  amountFen: number;
  subject: string;
  notifyUrl: string;
  expiresAt: number;
  /** Alipay creates the trade only when the QR code is scanned */
  scanned: boolean;
  status: 'WAIT' | 'PAID' | 'CLOSED';
  tradeId: string;
  createdAt: number;
  paidAt?: number;
  notification?: { id: string; attempts: Attempt[]; answered: boolean };
}

interface Attempt {
  at: number;
  status: number | null;
  body: string;
  ok: boolean;
}

/** The vendors' retry schedules after a failed notification, in ms (the first try is at once). */
export const RETRY_SCHEDULES: Record<Vendor, number[]> = {
  // 4m, 10m, 10m, 1h, 2h, 6h, 15h: 8 notifications in about 25 hours
  alipay: [4, 10, 10, 60, 120, 360, 900].map((m) => m * 60_000),
  // 15s/15s/30s/3m/10m/20m/30m/30m/30m/60m/3h/3h/3h/6h/6h: 24h4m in all
  wechat: [15, 15, 30, 180, 600, 1200, 1800, 1800, 1800, 3600, 10800, 10800, 10800, 21600, 21600].map(
    (s) => s * 1000,
  ),
};

const key = (pem: string | undefined, pub: boolean): KeyObject | undefined =>
  pem ? (pub ? createPublicKey(pem) : createPrivateKey(pem)) : undefined;

/**
 * The payment simulator as an Express app (no listen): Alipay's gateway (`POST /gateway.do`:
 * alipay.trade.precreate, .query, .close) and WeChat Pay API v3 Native (`/v3/pay/transactions/...`),
 * each checking the merchant's signature and signing its answers, and a control API that scans
 * and pays an order, then posts the signed notification and retries it on the vendor's schedule
 * until it is answered as the protocol requires.
 */
export function buildPaymentSim(config: PaySimConfig, logger?: Logger): { app: Express; close: () => void } {
  const log = logger ?? pino({ level: 'silent' });
  const orders = new Map<string, SimOrder>();
  const timers = new Set<NodeJS.Timeout>();
  const alipay = {
    appId: config.PAYSIM_ALIPAY_APP_ID,
    appPublicKey: key(config.PAYSIM_ALIPAY_APP_PUBLIC_KEY, true),
    privateKey: key(config.PAYSIM_ALIPAY_PRIVATE_KEY, false),
  };
  const wechat = {
    mchid: config.PAYSIM_WECHAT_MCHID,
    appid: config.PAYSIM_WECHAT_APPID,
    merchantPublicKey: key(config.PAYSIM_WECHAT_MERCHANT_PUBLIC_KEY, true),
    apiV3Key: config.PAYSIM_WECHAT_API_V3_KEY,
    signers: {
      certificate: config.PAYSIM_WECHAT_CERT_PRIVATE_KEY
        ? {
            key: createPrivateKey(config.PAYSIM_WECHAT_CERT_PRIVATE_KEY),
            serial: config.PAYSIM_WECHAT_CERT_SERIAL ?? '',
          }
        : undefined,
      public_key: config.PAYSIM_WECHAT_PUBKEY_PRIVATE_KEY
        ? {
            key: createPrivateKey(config.PAYSIM_WECHAT_PUBKEY_PRIVATE_KEY),
            serial: config.PAYSIM_WECHAT_PUBKEY_ID ?? '',
          }
        : undefined,
    },
    signWith: config.PAYSIM_WECHAT_SIGN_WITH as 'public_key' | 'certificate',
  };
  const wechatSigner = () =>
    wechat.signers[wechat.signWith] ?? wechat.signers.public_key ?? wechat.signers.certificate;
  const stats = { alipay: { requests: 0, refused: 0 }, wechat: { requests: 0, refused: 0 } };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', alipay: Boolean(alipay.privateKey), wechat: Boolean(wechatSigner()) });
  });

  // ---------------------------------------------------------------- Alipay gateway
  app.post('/gateway.do', express.urlencoded({ extended: false, limit: '64kb' }), (req, res) => {
    stats.alipay.requests += 1;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...(req.query as object), ...((req.body as object) ?? {}) })) {
      if (typeof v === 'string') params[k] = v;
    }
    const method = params.method ?? 'unknown.method';
    const answer = (response: Record<string, unknown>) => {
      if (!alipay.privateKey) {
        res.status(500).type('text/plain').send('simulator has no Alipay key');
        return;
      }
      res
        .status(200)
        .type('application/json; charset=utf-8')
        .send(alipayResponseBody(method, response, alipay.privateKey));
    };
    const fail = (code: string, msg: string, subCode: string, subMsg: string) => {
      stats.alipay.refused += 1;
      answer({ code, msg, sub_code: subCode, sub_msg: subMsg });
    };
    if (!alipay.appPublicKey || params.app_id !== alipay.appId) {
      return fail('40002', 'Invalid Arguments', 'isv.invalid-app-id', 'invalid app_id');
    }
    if (params.sign_type !== 'RSA2' || !verifyAlipayRequest(params, alipay.appPublicKey)) {
      return fail('40002', 'Invalid Arguments', 'isv.invalid-signature', 'signature check failed');
    }
    let biz: Record<string, unknown>;
    try {
      biz = JSON.parse(params.biz_content ?? '{}') as Record<string, unknown>;
    } catch {
      return fail('40002', 'Invalid Arguments', 'isv.invalid-parameter', 'biz_content is not JSON');
    }
    const outTradeNo = typeof biz.out_trade_no === 'string' ? biz.out_trade_no : '';
    const id = `alipay:${outTradeNo}`;
    const order = orders.get(id);
    if (method === 'alipay.trade.precreate') {
      const amountFen = yuanToFen(String(biz.total_amount ?? ''));
      const minutes = /^(\d+)m$/.exec(String(biz.timeout_express ?? '120m'));
      if (!outTradeNo || !amountFen || typeof biz.subject !== 'string' || !minutes) {
        return fail(
          '40004',
          'Business Failed',
          'ACQ.INVALID_PARAMETER',
          'out_trade_no, total_amount, subject',
        );
      }
      if (order && (order.amountFen !== amountFen || order.status !== 'WAIT')) {
        return fail('40004', 'Business Failed', 'ACQ.TRADE_HAS_SUCCESS', 'out_trade_no already used');
      }
      const created =
        order ??
        newOrder(
          'alipay',
          outTradeNo,
          amountFen,
          biz.subject,
          params.notify_url ?? '',
          Number(minutes[1]) * 60_000,
        );
      return answer({
        code: '10000',
        msg: 'Success',
        out_trade_no: outTradeNo,
        qr_code: `https://qr.alipay.com/${created.tradeId.slice(-16)}`,
      });
    }
    if (method === 'alipay.trade.query') {
      if (!order?.scanned)
        return fail('40004', 'Business Failed', 'ACQ.TRADE_NOT_EXIST', 'trade does not exist');
      return answer({
        code: '10000',
        msg: 'Success',
        trade_no: order.tradeId,
        out_trade_no: outTradeNo,
        buyer_logon_id: 'sim***@example.com',
        trade_status:
          order.status === 'PAID'
            ? 'TRADE_SUCCESS'
            : order.status === 'CLOSED'
              ? 'TRADE_CLOSED'
              : 'WAIT_BUYER_PAY',
        total_amount: fenToYuan(order.amountFen),
        ...(order.paidAt
          ? {
              send_pay_date: alipayTime(new Date(order.paidAt)),
              buyer_pay_amount: fenToYuan(order.amountFen),
            }
          : {}),
      });
    }
    if (method === 'alipay.trade.close') {
      if (!order) return fail('40004', 'Business Failed', 'ACQ.TRADE_NOT_EXIST', 'trade does not exist');
      if (order.status === 'PAID')
        return fail('40004', 'Business Failed', 'ACQ.TRADE_STATUS_ERROR', 'trade is paid');
      const wasScanned = order.scanned;
      order.status = 'CLOSED';
      if (!wasScanned) return fail('40004', 'Business Failed', 'ACQ.TRADE_NOT_EXIST', 'trade does not exist');
      return answer({ code: '10000', msg: 'Success', trade_no: order.tradeId, out_trade_no: outTradeNo });
    }
    return fail('40004', 'Business Failed', 'isv.invalid-method', `method ${method} is not simulated`);
  });

  // ---------------------------------------------------------------- WeChat Pay API v3
  const wx = express.Router();
  wx.use(express.text({ type: () => true, limit: '64kb' }));
  const wxSend = (res: Response, status: number, body?: Record<string, unknown>) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const signer = wechatSigner();
    if (signer) res.set(wechatSignedHeaders(signer.key, signer.serial, text));
    res.set('request-id', randomUUID());
    if (body === undefined) res.status(status).end();
    else res.status(status).type('application/json; charset=utf-8').send(text);
  };
  const wxAuth = (req: Request, res: Response): boolean => {
    stats.wechat.requests += 1;
    const body = typeof req.body === 'string' ? req.body : '';
    const check = wechat.merchantPublicKey
      ? verifyWechatRequest(
          req.headers.authorization,
          req.method,
          req.originalUrl,
          body,
          wechat.merchantPublicKey,
        )
      : ({ ok: false, reason: 'no merchant key' } as const);
    if (!check.ok || check.mchid !== wechat.mchid || Math.abs(Date.now() / 1000 - check.timestamp) > 300) {
      stats.wechat.refused += 1;
      // errors are not signed by the vendor when the request itself is refused
      res
        .status(401)
        .type('application/json')
        .send(JSON.stringify({ code: 'SIGN_ERROR', message: 'signature check failed' }));
      return false;
    }
    return true;
  };
  const wxJson = (req: Request): Record<string, unknown> | null => {
    try {
      return JSON.parse(typeof req.body === 'string' && req.body ? req.body : '{}') as Record<
        string,
        unknown
      >;
    } catch {
      return null;
    }
  };
  const transaction = (order: SimOrder) => ({
    appid: wechat.appid,
    mchid: wechat.mchid,
    out_trade_no: order.outTradeNo,
    ...(order.status === 'PAID'
      ? { transaction_id: order.tradeId, success_time: wechatTime(new Date(order.paidAt!)) }
      : {}),
    trade_type: 'NATIVE',
    trade_state: order.status === 'PAID' ? 'SUCCESS' : order.status === 'CLOSED' ? 'CLOSED' : 'NOTPAY',
    trade_state_desc: order.status === 'PAID' ? '支付成功' : order.status === 'CLOSED' ? '已关闭' : '未支付',
    bank_type: 'OTHERS',
    attach: '',
    payer: { openid: 'oSim000000000000000000000000' },
    amount: {
      total: order.amountFen,
      payer_total: order.status === 'PAID' ? order.amountFen : 0,
      currency: 'CNY',
      payer_currency: 'CNY',
    },
  });

  wx.post('/pay/transactions/native', (req, res) => {
    if (!wxAuth(req, res)) return;
    const b = wxJson(req);
    const amount = b?.amount as { total?: unknown; currency?: unknown } | undefined;
    if (!b || b.mchid !== wechat.mchid || b.appid !== wechat.appid) {
      return wxSend(res, 400, { code: 'PARAM_ERROR', message: 'mchid/appid do not match' });
    }
    if (
      typeof b.out_trade_no !== 'string' ||
      typeof amount?.total !== 'number' ||
      amount.total <= 0 ||
      typeof b.description !== 'string' ||
      typeof b.notify_url !== 'string'
    ) {
      return wxSend(res, 400, {
        code: 'PARAM_ERROR',
        message: 'out_trade_no, description, notify_url, amount.total',
      });
    }
    const expires =
      typeof b.time_expire === 'string' ? Date.parse(b.time_expire) : Date.now() + 2 * 3_600_000;
    const existing = orders.get(`wechat:${b.out_trade_no}`);
    if (existing && (existing.amountFen !== amount.total || existing.status !== 'WAIT')) {
      return wxSend(res, 400, { code: 'ORDERPAID', message: 'out_trade_no already used' });
    }
    const order =
      existing ??
      newOrder('wechat', b.out_trade_no, amount.total, b.description, b.notify_url, expires - Date.now());
    wxSend(res, 200, { code_url: `weixin://wxpay/bizpayurl?pr=${order.tradeId.slice(-10)}` });
  });

  wx.get('/pay/transactions/out-trade-no/:no', (req, res) => {
    if (!wxAuth(req, res)) return;
    const order = orders.get(`wechat:${String(req.params.no)}`);
    if (req.query.mchid !== wechat.mchid) return wxSend(res, 400, { code: 'PARAM_ERROR', message: 'mchid' });
    if (!order) return wxSend(res, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
    wxSend(res, 200, transaction(order));
  });

  wx.post('/pay/transactions/out-trade-no/:no/close', (req, res) => {
    if (!wxAuth(req, res)) return;
    const b = wxJson(req);
    if (!b || b.mchid !== wechat.mchid) return wxSend(res, 400, { code: 'PARAM_ERROR', message: 'mchid' });
    const order = orders.get(`wechat:${String(req.params.no)}`);
    if (!order) return wxSend(res, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
    if (order.status === 'PAID') return wxSend(res, 400, { code: 'ORDERPAID', message: '订单已支付' });
    order.status = 'CLOSED';
    wxSend(res, 204);
  });
  app.use('/v3', wx);

  // ---------------------------------------------------------------- control
  const control = express.Router();
  control.use(requireControlToken(config.PAYSIM_CONTROL_TOKEN, 'PAYSIM_CONTROL_TOKEN'));
  control.use(express.json());
  /** scans the QR code and pays: `{vendor, out_trade_no, notify?: false}` (no notification at all) */
  control.post('/pay', (req, res) => {
    const {
      vendor,
      out_trade_no: no,
      notify,
    } = (req.body ?? {}) as { vendor?: Vendor; out_trade_no?: string; notify?: boolean };
    const order = orders.get(`${vendor}:${no}`);
    if (!order) return void res.status(404).json({ error: 'no such order' });
    if (order.status !== 'WAIT' || Date.now() > order.expiresAt) {
      return void res
        .status(409)
        .json({ error: `order is ${order.status}${Date.now() > order.expiresAt ? ' (expired)' : ''}` });
    }
    order.scanned = true;
    order.status = 'PAID';
    order.paidAt = Date.now();
    if (notify !== false) {
      order.notification = { id: randomUUID(), attempts: [], answered: false };
      deliver(order, 0);
    }
    res.json(view(order));
  });
  control.get('/orders/:vendor/:no', (req, res) => {
    const order = orders.get(`${req.params.vendor}:${req.params.no}`);
    if (!order) return void res.status(404).json({ error: 'no such order' });
    res.json(view(order));
  });
  control.post('/wechat/signer', (req, res) => {
    const mode = (req.body as { mode?: string })?.mode;
    if (mode !== 'public_key' && mode !== 'certificate') return void res.status(400).json({ error: 'mode' });
    wechat.signWith = mode;
    res.json({ mode, serial: wechatSigner()?.serial });
  });
  control.get('/stats', (_req, res) => {
    res.json(stats);
  });
  app.use('/_control', control);
  app.use((req, res) => {
    res.status(404).json({ code: 'NOT_FOUND', message: `Unknown route: ${req.method} ${req.path}` });
  });

  function newOrder(
    vendor: Vendor,
    outTradeNo: string,
    amountFen: number,
    subject: string,
    notifyUrl: string,
    ttlMs: number,
  ): SimOrder {
    const prefix = vendor === 'alipay' ? alipayTime(new Date()).replace(/\D/g, '').slice(0, 8) : '4200';
    const order: SimOrder = {
      vendor,
      outTradeNo,
      amountFen,
      subject,
      notifyUrl,
      expiresAt: Date.now() + Math.max(ttlMs, 0),
      scanned: false,
      status: 'WAIT',
      tradeId: `${prefix}${[...randomBytes(20)].map((b) => String(b % 10)).join('')}`,
      createdAt: Date.now(),
    };
    orders.set(`${vendor}:${outTradeNo}`, order);
    return order;
  }

  function view(order: SimOrder) {
    return {
      vendor: order.vendor,
      out_trade_no: order.outTradeNo,
      trade_id: order.tradeId,
      status: order.status,
      amount_fen: order.amountFen,
      notification: order.notification ?? null,
    };
  }

  /** The notification as the vendor sends it now (signed afresh on each try, as they do). */
  function notification(order: SimOrder): { body: string; headers: Record<string, string> } {
    if (order.vendor === 'alipay') {
      const paid = new Date(order.paidAt!);
      const fields = signAlipayNotification(
        {
          notify_time: alipayTime(new Date()),
          notify_type: 'trade_status_sync',
          notify_id: order.notification!.id.replaceAll('-', ''),
          charset: 'utf-8',
          version: '1.0',
          app_id: alipay.appId ?? '',
          auth_app_id: alipay.appId ?? '',
          trade_no: order.tradeId,
          out_trade_no: order.outTradeNo,
          trade_status: 'TRADE_SUCCESS',
          total_amount: fenToYuan(order.amountFen),
          receipt_amount: fenToYuan(order.amountFen),
          buyer_pay_amount: fenToYuan(order.amountFen),
          invoice_amount: fenToYuan(order.amountFen),
          point_amount: '0.00',
          subject: order.subject,
          gmt_create: alipayTime(new Date(order.createdAt)),
          gmt_payment: alipayTime(paid),
          buyer_id: '2088000000000001',
          seller_id: '2088000000000002',
        },
        alipay.privateKey!,
      );
      return {
        body: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      };
    }
    const body = JSON.stringify({
      id: order.notification!.id,
      create_time: wechatTime(new Date()),
      resource_type: 'encrypt-resource',
      event_type: 'TRANSACTION.SUCCESS',
      summary: '支付成功',
      resource: wechatEncryptResource(wechat.apiV3Key ?? '', JSON.stringify(transaction(order))),
    });
    const signer = wechatSigner()!;
    return {
      body,
      headers: {
        'content-type': 'application/json',
        ...wechatSignedHeaders(signer.key, signer.serial, body),
      },
    };
  }

  function deliver(order: SimOrder, attempt: number): void {
    const n = order.notification!;
    const { body, headers } = notification(order);
    fetch(order.notifyUrl, { method: 'POST', headers, body, signal: AbortSignal.timeout(5_000) })
      .then(async (res) => ({ status: res.status, text: await res.text() }))
      .catch((err: Error) => ({ status: null, text: err.message }))
      .then(({ status, text }) => {
        // Alipay wants the 7 characters `success`; WeChat Pay a 200 or 204 (a 200 body, if any, with code SUCCESS)
        const ok =
          order.vendor === 'alipay'
            ? status === 200 && text === 'success'
            : status === 204 || (status === 200 && (text === '' || /"code"\s*:\s*"SUCCESS"/.test(text)));
        n.attempts.push({ at: Date.now(), status, body: text.slice(0, 200), ok });
        if (ok) {
          n.answered = true;
          return;
        }
        const delay = RETRY_SCHEDULES[order.vendor][attempt];
        if (delay === undefined) {
          log.warn({ vendor: order.vendor, outTradeNo: order.outTradeNo }, 'notification given up');
          return;
        }
        const t = setTimeout(() => {
          timers.delete(t);
          deliver(order, attempt + 1);
        }, delay * config.PAYSIM_TIME_SCALE);
        t.unref();
        timers.add(t);
      });
  }

  return {
    app,
    close: () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

/**
 * The control API marks orders paid: only with `Authorization: Bearer <token>` (401 otherwise),
 * and not at all while no token is configured (403).
 */
function requireControlToken(token: string | undefined, variable: string): RequestHandler {
  return (req, res, next) => {
    if (!token) {
      return void res
        .status(403)
        .json({ error: `The control API is off: start the simulator with ${variable} set.` });
    }
    if (!bearerMatches(req.headers.authorization, token)) {
      return void res
        .status(401)
        .json({ error: `Send the control token as Authorization: Bearer <${variable}>.` });
    }
    next();
  };
}
