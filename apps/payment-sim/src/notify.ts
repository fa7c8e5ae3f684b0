import { type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from '@mediagate/shared/log';
import { signAlipayNotification, wechatSignedHeaders } from '@mediagate/shared/payments';
import { alipayTradeNotice, wechatPaymentNotice, wechatRefundNotice } from './notification-bodies';
import type { SimNotification, SimOrder, SimRefund, Vendor } from './orders';

/** The vendors' retry schedules after a failed notification, in ms (the first try is at once). */
export const RETRY_SCHEDULES: Record<Vendor, number[]> = {
  // 4m, 10m, 10m, 1h, 2h, 6h, 15h: 8 notifications in about 25 hours
  alipay: [4, 10, 10, 60, 120, 360, 900].map((m) => m * 60_000),
  // 15s/15s/30s/3m/10m/20m/30m/30m/30m/60m/3h/3h/3h/6h/6h: 24h4m in all
  wechat: [15, 15, 30, 180, 600, 1200, 1800, 1800, 1800, 3600, 10800, 10800, 10800, 21600, 21600].map(
    (s) => s * 1000,
  ),
};

/** The prefix WeChat Pay puts on the deliberately wrong signatures it probes merchants with. */
export const SIGNTEST_PREFIX = 'WECHATPAY/SIGNTEST/';

export interface NotifierContext {
  log: Logger;
  timeScale: number;
  alipay: { appId?: string; privateKey?: KeyObject };
  wechat: { mchid?: string; appid?: string; apiV3Key?: string };
  /** the key and serial WeChat Pay signs notifications with now */
  wechatSigner: () => { key: KeyObject; serial: string } | undefined;
  /** the transaction as WeChat Pay's query shows it */
  wechatTransaction: (order: SimOrder) => Record<string, unknown>;
  timers: Set<NodeJS.Timeout>;
}

/**
 * Sends the vendors' notifications: signed afresh on each try, retried after a refusal on the
 * vendor's schedule (times PAYSIM_TIME_SCALE) until answered as the protocol requires. A
 * signature probe is sent once, and is answered well when the merchant refuses it.
 */
export function createNotifier(ctx: NotifierContext) {
  function alipayFields(order: SimOrder, n: SimNotification): Record<string, string> {
    const refund = n.refundNo ? order.refunds.find((r) => r.no === n.refundNo) : undefined;
    return alipayTradeNotice({
      appId: ctx.alipay.appId ?? '',
      notifyId: n.id.replaceAll('-', ''),
      tradeNo: order.tradeId,
      outTradeNo: order.outTradeNo,
      amountFen: order.amountFen,
      subject: order.subject,
      createdAt: new Date(order.createdAt),
      paidAt: order.paidAt ? new Date(order.paidAt) : undefined,
      closedAt: n.kind === 'closed' ? new Date() : undefined,
      // a refund's notification says what the trade had refunded when it was made, on every try
      refund: refund
        ? { no: refund.no, refundedTotalFen: refund.refundedTotalFen, at: new Date(refund.at) }
        : undefined,
    });
  }

  function wechatBody(order: SimOrder, n: SimNotification): string {
    const apiV3Key = ctx.wechat.apiV3Key ?? '';
    if (n.kind === 'refund') {
      const refund = order.refunds.find((r) => r.no === n.refundNo) as SimRefund;
      return wechatRefundNotice(n.id, apiV3Key, {
        mchid: ctx.wechat.mchid,
        outTradeNo: order.outTradeNo,
        transactionId: order.tradeId,
        no: refund.no,
        refundId: refund.refundId,
        status: refund.status,
        at: new Date(refund.at),
        totalFen: order.amountFen,
        refundFen: refund.amountFen,
      });
    }
    return wechatPaymentNotice(n.id, apiV3Key, ctx.wechatTransaction(order));
  }

  /** The notification as the vendor sends it now. */
  function render(order: SimOrder, n: SimNotification) {
    if (order.vendor === 'alipay') {
      const fields = signAlipayNotification(alipayFields(order, n), ctx.alipay.privateKey as KeyObject);
      return {
        body: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      };
    }
    const body = wechatBody(order, n);
    const signer = ctx.wechatSigner() as { key: KeyObject; serial: string };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...wechatSignedHeaders(signer.key, signer.serial, body),
    };
    if (n.kind === 'signtest') {
      headers['wechatpay-signature'] = `${SIGNTEST_PREFIX}${randomBytes(32).toString('base64')}`;
    }
    return { body, headers };
  }

  function accepted(vendor: Vendor, status: number | null, text: string): boolean {
    // Alipay wants the 7 characters `success`; WeChat Pay a 200 or 204 (a 200 body, if any, with code SUCCESS)
    return vendor === 'alipay'
      ? status === 200 && text === 'success'
      : status === 204 || (status === 200 && (text === '' || /"code"\s*:\s*"SUCCESS"/.test(text)));
  }

  function deliver(order: SimOrder, n: SimNotification, url: string, attempt: number): void {
    const { body, headers } = render(order, n);
    fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(5_000) })
      .then(async (res) => ({ status: res.status, text: await res.text() }))
      .catch((err: Error) => ({ status: null, text: err.message }))
      .then(({ status, text }) => {
        const taken = accepted(order.vendor, status, text);
        // a probe is answered well when the merchant refuses it (and it is not sent again)
        const ok = n.kind === 'signtest' ? status !== null && !taken : taken;
        n.attempts.push({ at: Date.now(), status, body: text.slice(0, 200), ok });
        if (ok || n.kind === 'signtest') {
          n.answered = ok;
          return;
        }
        const delay = RETRY_SCHEDULES[order.vendor][attempt];
        if (delay === undefined) {
          ctx.log.warn({ vendor: order.vendor, outTradeNo: order.outTradeNo }, 'notification given up');
          return;
        }
        const t = setTimeout(() => {
          ctx.timers.delete(t);
          deliver(order, n, url, attempt + 1);
        }, delay * ctx.timeScale);
        t.unref();
        ctx.timers.add(t);
      });
  }

  return {
    /** Runs `fn` after `ms` (the vendor's own processing time), cancelled when the simulator closes. */
    later(ms: number, fn: () => void): void {
      const t = setTimeout(() => {
        ctx.timers.delete(t);
        fn();
      }, ms);
      t.unref();
      ctx.timers.add(t);
    },
    /** Starts sending a notification of `kind` for the order (to the refund's URL for a refund). */
    send(order: SimOrder, kind: SimNotification['kind'], refund?: SimRefund): SimNotification {
      const n: SimNotification = {
        id: randomUUID(),
        kind,
        attempts: [],
        answered: false,
        ...(refund ? { refundNo: refund.no } : {}),
      };
      order.notifications.push(n);
      deliver(order, n, refund?.notifyUrl || order.notifyUrl, 0);
      return n;
    },
  };
}
