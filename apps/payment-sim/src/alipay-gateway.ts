import { randomBytes } from 'node:crypto';
import {
  alipayTime,
  fenToYuan,
  parseAlipayTime,
  rsa2Sign,
  verifyAlipayRequest,
  yuanToFen,
} from '@mediagate/shared/payments';
import express, { type Router } from 'express';
import { orderKey, recordRefund as refund, type SimContext } from './context';
import { createOrder, refundedFen, tradeExists } from './orders';

/** Alipay's relative times: `90m`, `2h`, `15d` (and `1c`: until the end of the day), as ms. */
export function alipayDuration(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  if (value === '1c') {
    const now = new Date(Date.now() + 8 * 3_600_000);
    const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - 8 * 3_600_000;
    return end - Date.now();
  }
  const m = /^(\d{1,5})([mhd])$/.exec(value);
  if (!m) return null;
  const n = Number(m[1]);
  const ms = n * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
  // 1 minute to 15 days, as Alipay accepts
  return n >= 1 && ms <= 15 * 86_400_000 ? ms : null;
}

/**
 * The body of a gateway answer, as Alipay writes it: `/` escaped as `\/` in the JSON, and the
 * signature over the exact escaped text between the braces (a merchant that verifies a
 * re-serialised object fails). `error_response` answers (the app is unknown) are not signed.
 */
export function alipayAnswerBody(
  method: string,
  response: Record<string, unknown>,
  sign: ((content: string) => string) | null,
  extra: Record<string, string> = {},
): string {
  const inner = JSON.stringify(response).replaceAll('/', '\\/');
  const key = sign ? `${method.replaceAll('.', '_')}_response` : 'error_response';
  const tail = Object.entries(extra)
    .map(([k, v]) => `,"${k}":${JSON.stringify(v)}`)
    .join('');
  return sign ? `{"${key}":${inner}${tail},"sign":"${sign(inner)}"}` : `{"${key}":${inner}}`;
}

const FAIL = { code: '40004', msg: 'Business Failed' };

/**
 * Alipay's OpenAPI gateway (`POST /gateway.do`): precreate, query, close, refund and refund
 * query, checking the merchant's RSA2 signature and answering as Alipay does (see the README).
 */
export function alipayGateway(ctx: SimContext): Router {
  const router = express.Router();
  const { alipay, stats } = ctx;

  // page methods (alipay.trade.wap.pay) come from the payer's browser, by GET or a posted form
  router.all('/gateway.do', express.urlencoded({ extended: false, limit: '64kb' }), (req, res) => {
    stats.alipay.requests += 1;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...(req.query as object), ...((req.body as object) ?? {}) })) {
      if (typeof v === 'string') params[k] = v;
    }
    const method = params.method ?? '';
    const page = method === 'alipay.trade.wap.pay';
    // a page method's errors are shown to the payer as Alipay's error page
    const send = (body: string) =>
      page
        ? res
            .status(200)
            .type('text/html; charset=utf-8')
            .send(`<!doctype html><title>支付宝</title><pre>${escapeHtml(body)}</pre>`)
        : res.status(200).type('application/json; charset=utf-8').send(body);
    /** a gateway error before the app is known: `error_response`, unsigned */
    const gatewayError = (code: string, msg: string, subCode: string, subMsg: string) => {
      stats.alipay.refused += 1;
      send(alipayAnswerBody(method, { code, msg, sub_code: subCode, sub_msg: subMsg }, null));
    };
    if (!alipay.privateKey || !alipay.appPublicKey || !params.app_id || params.app_id !== alipay.appId) {
      return gatewayError('40002', 'Invalid Arguments', 'isv.invalid-app-id', '无效的AppID参数');
    }
    if (!method)
      return gatewayError('40001', 'Missing Required Arguments', 'isv.missing-method', '缺少方法名参数');
    if (!METHODS.has(method)) {
      return gatewayError('40002', 'Invalid Arguments', 'isv.invalid-method', '不存在的方法名');
    }
    const signer = alipay.privateKey;
    const certs = alipay.certificates;
    const answer = (response: Record<string, unknown>) =>
      send(
        alipayAnswerBody(
          method,
          response,
          (content) => rsa2Sign(signer, content),
          // in certificate mode every answer names the certificate of the key that signed it
          certs ? { alipay_cert_sn: certs.alipayCertSn } : {},
        ),
      );
    const fail = (code: string, msg: string, subCode: string, subMsg: string) => {
      stats.alipay.refused += 1;
      answer({ code, msg, sub_code: subCode, sub_msg: subMsg });
    };
    if (params.sign_type !== 'RSA2' || !verifyAlipayRequest(params, alipay.appPublicKey)) {
      return fail(
        '40002',
        'Invalid Arguments',
        'isv.invalid-signature',
        '验签出错，建议检查签名字符串或签名私钥与应用公钥是否匹配',
      );
    }
    if (
      certs &&
      (params.app_cert_sn !== certs.appCertSn || params.alipay_root_cert_sn !== certs.rootCertSn)
    ) {
      return fail(
        '40002',
        'Invalid Arguments',
        'isv.invalid-signature',
        `app_cert_sn / alipay_root_cert_sn do not name this app's certificate and Alipay's root (${certs.appCertSn}, ${certs.rootCertSn})`,
      );
    }
    // the format only: alipay-sdk writes the server's local time, not Beijing time
    if (!parseAlipayTime(params.timestamp)) {
      return fail('40002', 'Invalid Arguments', 'isv.invalid-timestamp', '非法的时间戳参数');
    }
    if (!ctx.limiter.take(`alipay:${method}`)) {
      stats.alipay.limited += 1;
      return fail('40005', 'Call Limited', 'isv.method-call-limited', 'API调用次数超限，包含调用频率超限');
    }
    let biz: Record<string, unknown>;
    try {
      biz = JSON.parse(params.biz_content ?? '{}') as Record<string, unknown>;
    } catch {
      return fail('40002', 'Invalid Arguments', 'isv.invalid-parameter', 'biz_content 不是 JSON');
    }
    const outTradeNo = typeof biz.out_trade_no === 'string' ? biz.out_trade_no : '';
    const found = outTradeNo ? ctx.orders.get(orderKey('alipay', outTradeNo)) : undefined;
    const order = found && ctx.settle(found);
    const notExist = () => fail(FAIL.code, FAIL.msg, 'ACQ.TRADE_NOT_EXIST', '交易不存在');
    const invalid = (what: string) => fail(FAIL.code, FAIL.msg, 'ACQ.INVALID_PARAMETER', `参数无效: ${what}`);

    if (method === 'alipay.trade.precreate' || page) {
      if (page && biz.product_code !== 'QUICK_WAP_WAY') return invalid('product_code');
      const amountFen = yuanToFen(String(biz.total_amount ?? ''));
      if (!outTradeNo || outTradeNo.length > 64) return invalid('out_trade_no');
      if (!amountFen || amountFen > 10_000_000_000) return invalid('total_amount');
      if (typeof biz.subject !== 'string' || !biz.subject || biz.subject.length > 256)
        return invalid('subject');
      const timeouts: Record<string, number | undefined> = {};
      for (const field of ['timeout_express', 'qr_code_timeout_express'] as const) {
        if (biz[field] === undefined) continue;
        const ms = alipayDuration(biz[field]);
        if (ms === null) return invalid(field);
        timeouts[field] = ms;
      }
      let timeExpireAt: number | undefined;
      if (biz.time_expire !== undefined) {
        const at = parseAlipayTime(String(biz.time_expire));
        if (!at || at.getTime() <= Date.now()) return invalid('time_expire');
        timeExpireAt = at.getTime();
      }
      if (order) {
        if (order.status === 'PAID')
          return fail(FAIL.code, FAIL.msg, 'ACQ.TRADE_HAS_SUCCESS', '交易已被支付');
        if (order.status === 'CLOSED')
          return fail(FAIL.code, FAIL.msg, 'ACQ.TRADE_HAS_CLOSE', '交易已经关闭');
        if (order.amountFen !== amountFen) {
          return fail(FAIL.code, FAIL.msg, 'ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改');
        }
      }
      const created =
        order ??
        createOrder({
          vendor: 'alipay',
          channel: page ? 'mobile' : 'qr',
          returnUrl: params.return_url,
          outTradeNo,
          amountFen,
          subject: biz.subject,
          notifyUrl: params.notify_url ?? '',
          codeTtlMs: timeouts.qr_code_timeout_express,
          tradeTimeoutMs: timeouts.timeout_express,
          timeExpireAt,
        });
      ctx.orders.set(orderKey('alipay', outTradeNo), created);
      // the mobile cashier: the payer's browser goes on to the pay page
      if (page) {
        created.payToken ??= randomBytes(16).toString('hex');
        return res.redirect(303, `/_pay/alipay/${created.payToken}`);
      }
      return answer({
        code: '10000',
        msg: 'Success',
        out_trade_no: outTradeNo,
        qr_code: `https://qr.alipay.com/bax${created.tradeId.slice(-16)}`,
      });
    }
    if (!outTradeNo) return invalid('out_trade_no');

    if (method === 'alipay.trade.query') {
      if (!order || !tradeExists(order)) return notExist();
      return answer({
        code: '10000',
        msg: 'Success',
        trade_no: order.tradeId,
        out_trade_no: outTradeNo,
        buyer_logon_id: 'sim***@example.com',
        trade_status:
          order.status === 'PAID' && refundedFen(order) < order.amountFen
            ? 'TRADE_SUCCESS'
            : order.status === 'WAIT'
              ? 'WAIT_BUYER_PAY'
              : 'TRADE_CLOSED',
        total_amount: fenToYuan(order.amountFen),
        ...(order.paidAt
          ? {
              send_pay_date: alipayTime(new Date(order.paidAt)),
              buyer_pay_amount: fenToYuan(order.amountFen),
              receipt_amount: fenToYuan(order.amountFen),
            }
          : {}),
      });
    }
    if (method === 'alipay.trade.close') {
      // a precreated code is not a trade: nothing to close, and the code stays payable until it expires
      if (!order || !tradeExists(order)) return notExist();
      if (order.status !== 'WAIT') {
        return fail(FAIL.code, FAIL.msg, 'ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
      }
      order.status = 'CLOSED';
      order.closedBy = 'merchant';
      return answer({ code: '10000', msg: 'Success', trade_no: order.tradeId, out_trade_no: outTradeNo });
    }
    if (method === 'alipay.trade.refund') {
      if (!order || !tradeExists(order)) return notExist();
      const named = typeof biz.out_request_no === 'string' && biz.out_request_no ? biz.out_request_no : null;
      if (named && named.length > 64) return invalid('out_request_no');
      // without out_request_no the refund is the whole trade, numbered by out_trade_no
      const refundNo = named ?? outTradeNo;
      const refundFen = yuanToFen(String(biz.refund_amount ?? ''));
      if (!refundFen) return invalid('refund_amount');
      const existing = order.refunds.find((r) => r.no === refundNo);
      if (!existing) {
        if (order.status !== 'PAID')
          return fail(FAIL.code, FAIL.msg, 'ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
        if (!named && refundFen !== order.amountFen) {
          return fail(
            FAIL.code,
            FAIL.msg,
            'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL',
            '撤销或退款金额与订单金额不一致',
          );
        }
        if (refundedFen(order) + refundFen > order.amountFen) {
          return fail(FAIL.code, FAIL.msg, 'ACQ.REASON_TRADE_REFUND_FEE_ERR', '退款金额无效');
        }
        const behaviour = order.nextRefund ?? {};
        order.nextRefund = undefined;
        if (behaviour.outcome === 'refuse') {
          return fail(FAIL.code, FAIL.msg, 'ACQ.SELLER_BALANCE_NOT_ENOUGH', '卖家余额不足');
        }
        refund(
          ctx,
          order,
          refundNo,
          refundFen,
          typeof biz.refund_reason === 'string' ? biz.refund_reason : undefined,
          '',
          behaviour,
        );
        // made, but the answer says Alipay failed: the merchant must ask again with the same number
        if (behaviour.outcome === 'no_answer')
          return fail(FAIL.code, FAIL.msg, 'ACQ.SYSTEM_ERROR', '系统错误');
      } else if (existing.amountFen !== refundFen) {
        return fail(FAIL.code, FAIL.msg, 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '退款金额与原请求不一致');
      }
      return answer({
        code: '10000',
        msg: 'Success',
        trade_no: order.tradeId,
        out_trade_no: outTradeNo,
        buyer_logon_id: 'sim***@example.com',
        fund_change: existing ? 'N' : 'Y',
        refund_fee: fenToYuan(refundedFen(order)),
        gmt_refund_pay: alipayTime(new Date()),
      });
    }
    // alipay.trade.fastpay.refund.query
    if (!order || !tradeExists(order)) return notExist();
    const refundNo =
      typeof biz.out_request_no === 'string' && biz.out_request_no ? biz.out_request_no : outTradeNo;
    const found2 = order.refunds.find((r) => r.no === refundNo);
    // an unknown refund is a success without refund fields, as Alipay answers
    return answer({
      code: '10000',
      msg: 'Success',
      trade_no: order.tradeId,
      out_trade_no: outTradeNo,
      ...(found2
        ? {
            out_request_no: found2.no,
            total_amount: fenToYuan(order.amountFen),
            refund_amount: fenToYuan(found2.amountFen),
            refund_status: 'REFUND_SUCCESS',
            gmt_refund_pay: `${alipayTime(new Date(found2.at))}`,
          }
        : {}),
    });
  });
  return router;
}

const METHODS = new Set([
  'alipay.trade.precreate',
  'alipay.trade.wap.pay',
  'alipay.trade.query',
  'alipay.trade.close',
  'alipay.trade.refund',
  'alipay.trade.fastpay.refund.query',
]);

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
