import { randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import {
  verifyWechatRequest,
  wechatEncryptResource,
  wechatSignedHeaders,
  wechatTime,
} from '@mediagate/shared/payments';
import express, { type Request, type Response, type Router } from 'express';
import { isLoopbackUrl, orderKey, recordRefund, type SimContext, type WechatSigner } from './context';
import { SIGNTEST_PREFIX } from './notify';
import { createOrder, refundedFen, type SimOrder } from './orders';

const OUT_TRADE_NO = /^[0-9A-Za-z_\-|*]{6,32}$/;

/** The transaction as WeChat Pay's query and payment notification show it. */
export function wechatTransaction(ctx: Pick<SimContext, 'wechat'>, order: SimOrder): Record<string, unknown> {
  const paid = order.paidAt !== undefined;
  const state = order.refunds.length
    ? 'REFUND'
    : order.status === 'PAID'
      ? 'SUCCESS'
      : order.status === 'CLOSED'
        ? 'CLOSED'
        : order.scannedAt !== undefined
          ? 'USERPAYING'
          : 'NOTPAY';
  const desc: Record<string, string> = {
    SUCCESS: '支付成功',
    REFUND: '转入退款',
    CLOSED: '已关闭',
    USERPAYING: '用户支付中',
    NOTPAY: '未支付',
  };
  return {
    appid: ctx.wechat.appid,
    mchid: ctx.wechat.mchid,
    out_trade_no: order.outTradeNo,
    ...(paid ? { transaction_id: order.tradeId, success_time: wechatTime(new Date(order.paidAt!)) } : {}),
    trade_type: order.channel === 'mobile' ? 'MWEB' : 'NATIVE',
    trade_state: state,
    trade_state_desc: desc[state],
    bank_type: 'OTHERS',
    attach: '',
    payer: { openid: 'oSim000000000000000000000000' },
    amount: {
      total: order.amountFen,
      payer_total: paid ? order.amountFen : 0,
      currency: 'CNY',
      payer_currency: 'CNY',
    },
  };
}

/**
 * WeChat Pay API v3 (`/v3/...`): Native orders, query, close, refunds. Requests are checked
 * (WECHATPAY2-SHA256-RSA2048 by the merchant key, Wechatpay-Serial, rate limits); answers are
 * signed with the key the request names.
 */
export function wechatApi(ctx: SimContext): Router {
  const wx = express.Router();
  const { wechat, stats } = ctx;
  let signedAnswers = 0;
  wx.use(express.text({ type: () => true, limit: '64kb' }));

  /** The key an answer is signed with: the one the request's Wechatpay-Serial names. */
  function answerSigner(req: Request): WechatSigner | { error: string } {
    const named = req.headers['wechatpay-serial'];
    const { certificate, public_key: publicKey } = wechat.signers;
    if (typeof named === 'string' && named) {
      if (publicKey && named === publicKey.serial) return publicKey;
      // naming any platform certificate: the one in use signs (after a rotation, the new one)
      const serials = [certificate?.serial, ...wechat.certificates.map((c) => c.serial)];
      if (certificate && serials.some((s) => s?.toUpperCase() === named.toUpperCase())) return certificate;
      return {
        error: `Wechatpay-Serial ${named} is neither the WeChat Pay public key id nor a platform certificate serial`,
      };
    }
    // a merchant on the public key must name it; platform certificates sign otherwise
    if ((wechat.signWith === 'public_key' && publicKey) || !certificate) {
      return { error: 'the Wechatpay-Serial header (the WeChat Pay public key id) is missing' };
    }
    return certificate;
  }

  const send = (res: Response, signer: WechatSigner, status: number, body?: Record<string, unknown>) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers = wechatSignedHeaders(signer.key, signer.serial, text);
    signedAnswers += 1;
    stats.wechat.signedWith[signer === wechat.signers.public_key ? 'public_key' : 'certificate'] += 1;
    const every = ctx.config.PAYSIM_WECHAT_SIGNTEST_EVERY;
    if (every > 0 && signedAnswers % every === 0) {
      headers['wechatpay-signature'] = `${SIGNTEST_PREFIX}${randomBytes(32).toString('base64')}`;
    }
    res.set(headers);
    res.set('request-id', randomUUID());
    if (body === undefined) res.status(status).end();
    else res.status(status).type('application/json; charset=utf-8').send(text);
  };
  const unsigned = (res: Response, status: number, code: string, message: string) => {
    res.set('request-id', randomUUID());
    res.status(status).type('application/json').send(JSON.stringify({ code, message }));
  };

  /** Checks signature, serial and rate; returns the answer's signer, or answers and returns null. */
  function accept(req: Request, res: Response, limitKey: string): WechatSigner | null {
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
      unsigned(res, 401, 'SIGN_ERROR', 'signature check failed');
      return null;
    }
    const signer = answerSigner(req);
    if ('error' in signer) {
      stats.wechat.refused += 1;
      unsigned(res, 400, 'PARAM_ERROR', signer.error);
      return null;
    }
    if (!ctx.limiter.take(`wechat:${limitKey}`)) {
      stats.wechat.limited += 1;
      send(res, signer, 429, { code: 'FREQUENCY_LIMITED', message: '频率超限' });
      return null;
    }
    return signer;
  }

  const json = (req: Request): Record<string, unknown> | null => {
    try {
      const v = JSON.parse(typeof req.body === 'string' && req.body ? req.body : '{}') as unknown;
      return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };

  /** WeChat Pay notifies https URLs without a query only (a loopback URL stands in for the merchant's). */
  function badNotifyUrl(value: unknown): string | null {
    if (typeof value !== 'string') return 'notify_url is required';
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return 'notify_url is not a URL';
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) {
      return 'notify_url must be an https URL';
    }
    if (url.search) return 'notify_url must not carry parameters';
    return null;
  }

  /** Native (a QR code) and H5 (a pay page on the phone's browser) orders: the same checks and order. */
  const place = (channel: 'qr' | 'mobile') => (req: Request, res: Response) => {
    const signer = accept(req, res, channel === 'qr' ? 'native' : 'h5');
    if (!signer) return;
    const b = json(req);
    const param = (message: string) => send(res, signer, 400, { code: 'PARAM_ERROR', message });
    if (!b) return param('body is not JSON');
    if (channel === 'mobile') {
      const scene = b.scene_info as { payer_client_ip?: unknown; h5_info?: { type?: unknown } } | undefined;
      if (typeof scene?.payer_client_ip !== 'string' || !scene.payer_client_ip) {
        return param('scene_info.payer_client_ip');
      }
      if (typeof scene.h5_info?.type !== 'string') return param('scene_info.h5_info.type');
    }
    if (b.mchid !== wechat.mchid || b.appid !== wechat.appid) {
      return send(res, signer, 400, { code: 'PARAM_ERROR', message: 'mchid/appid do not match' });
    }
    const amount = b.amount as { total?: unknown; currency?: unknown } | undefined;
    if (typeof b.out_trade_no !== 'string' || !OUT_TRADE_NO.test(b.out_trade_no))
      return param('out_trade_no');
    if (typeof b.description !== 'string' || !b.description || b.description.length > 127) {
      return param('description');
    }
    if (typeof amount?.total !== 'number' || !Number.isSafeInteger(amount.total) || amount.total <= 0) {
      return param('amount.total');
    }
    if (amount.currency !== undefined && amount.currency !== 'CNY') return param('amount.currency');
    const notifyError = badNotifyUrl(b.notify_url);
    if (notifyError) return param(notifyError);
    let timeExpireAt: number | undefined;
    if (b.time_expire !== undefined) {
      const at = typeof b.time_expire === 'string' ? Date.parse(b.time_expire) : Number.NaN;
      if (
        !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$/.test(String(b.time_expire)) ||
        Number.isNaN(at)
      ) {
        return param('time_expire must be RFC 3339');
      }
      if (at <= Date.now()) return param('time_expire is in the past');
      timeExpireAt = at;
    }
    const key = orderKey('wechat', b.out_trade_no);
    const found = ctx.orders.get(key);
    const existing = found && ctx.settle(found);
    if (existing) {
      if (existing.status === 'PAID')
        return send(res, signer, 400, { code: 'ORDERPAID', message: '订单已支付' });
      if (existing.status === 'CLOSED')
        return send(res, signer, 400, { code: 'ORDER_CLOSED', message: '订单已关闭' });
      if (existing.amountFen !== amount.total) {
        return send(res, signer, 400, { code: 'INVALID_REQUEST', message: '商户订单号重复' });
      }
    }
    const order =
      existing ??
      createOrder({
        vendor: 'wechat',
        channel,
        outTradeNo: b.out_trade_no,
        amountFen: amount.total,
        subject: b.description,
        notifyUrl: b.notify_url as string,
        timeExpireAt,
      });
    ctx.orders.set(key, order);
    if (channel === 'qr') {
      return send(res, signer, 200, { code_url: `weixin://wxpay/bizpayurl?pr=${order.tradeId.slice(-10)}` });
    }
    // the merchant appends &redirect_url=... and sends the payer's browser there
    send(res, signer, 200, {
      h5_url: `${req.protocol}://${req.get('host')}/_pay/wechat/${order.payToken}?prepay_id=wx${order.tradeId.slice(-16)}`,
    });
  };
  wx.post('/pay/transactions/native', place('qr'));
  wx.post('/pay/transactions/h5', place('mobile'));

  wx.get('/pay/transactions/out-trade-no/:no', (req, res) => {
    const signer = accept(req, res, 'query');
    if (!signer) return;
    if (req.query.mchid !== wechat.mchid)
      return send(res, signer, 400, { code: 'PARAM_ERROR', message: 'mchid' });
    const order = ctx.orders.get(orderKey('wechat', String(req.params.no)));
    if (!order) return send(res, signer, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
    send(res, signer, 200, wechatTransaction(ctx, ctx.settle(order)));
  });

  wx.post('/pay/transactions/out-trade-no/:no/close', (req, res) => {
    const signer = accept(req, res, 'close');
    if (!signer) return;
    const b = json(req);
    if (!b || b.mchid !== wechat.mchid)
      return send(res, signer, 400, { code: 'PARAM_ERROR', message: 'mchid' });
    const found = ctx.orders.get(orderKey('wechat', String(req.params.no)));
    if (!found) return send(res, signer, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
    const order = ctx.settle(found);
    if (order.status === 'PAID') return send(res, signer, 400, { code: 'ORDERPAID', message: '订单已支付' });
    if (order.status === 'CLOSED')
      return send(res, signer, 400, { code: 'ORDER_CLOSED', message: '订单已关闭' });
    // the payer has the order open and is entering the password: it cannot be closed now
    if (order.scannedAt !== undefined) {
      return send(res, signer, 202, { code: 'USER_PAYING', message: '用户支付中，需要输入密码' });
    }
    order.status = 'CLOSED';
    order.closedBy = 'merchant';
    send(res, signer, 204);
  });

  const refundView = (order: SimOrder, no: string) => {
    const r = order.refunds.find((x) => x.no === no)!;
    return {
      refund_id: r.refundId,
      out_refund_no: r.no,
      transaction_id: order.tradeId,
      out_trade_no: order.outTradeNo,
      channel: 'ORIGINAL',
      user_received_account: '支付用户零钱',
      ...(r.status === 'SUCCESS' ? { success_time: wechatTime(new Date(r.at)) } : {}),
      create_time: wechatTime(new Date(r.at)),
      status: r.status,
      funds_account: 'AVAILABLE',
      amount: {
        total: order.amountFen,
        refund: r.amountFen,
        payer_total: order.amountFen,
        payer_refund: r.amountFen,
        settlement_refund: r.amountFen,
        settlement_total: order.amountFen,
        discount_refund: 0,
        currency: 'CNY',
      },
    };
  };

  wx.post('/refund/domestic/refunds', (req, res) => {
    const signer = accept(req, res, 'refund');
    if (!signer) return;
    const b = json(req);
    const param = (message: string) => send(res, signer, 400, { code: 'PARAM_ERROR', message });
    if (!b) return param('body is not JSON');
    const amount = b.amount as { refund?: unknown; total?: unknown; currency?: unknown } | undefined;
    if (typeof b.out_trade_no !== 'string' || !OUT_TRADE_NO.test(b.out_trade_no))
      return param('out_trade_no');
    if (typeof amount?.total !== 'number' || !Number.isSafeInteger(amount.total))
      return param('amount.total');
    if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > 80))
      return param('reason');
    if (typeof b.out_refund_no !== 'string' || !/^[0-9A-Za-z_\-|*@]{1,64}$/.test(b.out_refund_no)) {
      return param('out_refund_no');
    }
    if (typeof amount?.refund !== 'number' || !Number.isSafeInteger(amount.refund) || amount.refund <= 0) {
      return param('amount.refund');
    }
    if (amount.currency !== 'CNY') return param('amount.currency');
    if (b.notify_url !== undefined) {
      const notifyError = badNotifyUrl(b.notify_url);
      if (notifyError) return param(notifyError);
    }
    const found = ctx.orders.get(orderKey('wechat', b.out_trade_no));
    if (!found) return send(res, signer, 404, { code: 'RESOURCE_NOT_EXISTS', message: '订单不存在' });
    const order = ctx.settle(found);
    if (amount.total !== order.amountFen) return param('amount.total does not match the order');
    const existing = order.refunds.find((r) => r.no === b.out_refund_no);
    if (existing) {
      if (existing.amountFen !== amount.refund) {
        return send(res, signer, 400, { code: 'INVALID_REQUEST', message: '退款单号重复，金额不一致' });
      }
      return send(res, signer, 200, refundView(order, existing.no));
    }
    if (order.paidAt === undefined) {
      return send(res, signer, 400, { code: 'INVALID_REQUEST', message: '订单未支付' });
    }
    if (refundedFen(order) + amount.refund > order.amountFen) {
      return send(res, signer, 400, { code: 'INVALID_REQUEST', message: '申请退款金额超过订单可退金额' });
    }
    const behaviour = order.nextRefund ?? {};
    order.nextRefund = undefined;
    if (behaviour.outcome === 'refuse') {
      return send(res, signer, 403, { code: 'NOT_ENOUGH', message: '基本账户余额不足，请充值后重新发起' });
    }
    recordRefund(
      ctx,
      order,
      b.out_refund_no,
      amount.refund,
      typeof b.reason === 'string' ? b.reason : undefined,
      typeof b.notify_url === 'string' ? b.notify_url : '',
      behaviour,
    );
    // accepted, but the answer is WeChat Pay's system error: the merchant must ask again
    if (behaviour.outcome === 'no_answer') {
      return send(res, signer, 500, {
        code: 'SYSTEM_ERROR',
        message: '系统错误，请使用相同参数稍后重新调用',
      });
    }
    // WeChat Pay answers while the refund is processing; its notification reports how it ended
    send(res, signer, 200, refundView(order, b.out_refund_no));
  });

  wx.get('/refund/domestic/refunds/:no', (req, res) => {
    const signer = accept(req, res, 'refund-query');
    if (!signer) return;
    const no = String(req.params.no);
    const order = [...ctx.orders.values()].find(
      (o) => o.vendor === 'wechat' && o.refunds.some((r) => r.no === no),
    );
    if (!order) return send(res, signer, 404, { code: 'RESOURCE_NOT_EXISTS', message: '退款单不存在' });
    send(res, signer, 200, refundView(order, no));
  });

  wx.get('/certificates', (req, res) => {
    const signer = accept(req, res, 'certificates');
    if (!signer) return;
    const data = wechat.certificates
      .map((c) => ({ ...c, x509: new X509Certificate(c.pem) }))
      .filter((c) => Date.parse(c.x509.validTo) > Date.now())
      .map((c) => {
        const enc = wechatEncryptResource(wechat.apiV3Key ?? '', c.pem, 'certificate');
        return {
          serial_no: c.serial,
          effective_time: wechatTime(new Date(c.x509.validFrom)),
          expire_time: wechatTime(new Date(c.x509.validTo)),
          encrypt_certificate: {
            algorithm: enc.algorithm,
            nonce: enc.nonce,
            associated_data: enc.associated_data,
            ciphertext: enc.ciphertext,
          },
        };
      });
    stats.wechat.certificateDownloads += 1;
    send(res, signer, 200, { data });
  });

  return wx;
}
