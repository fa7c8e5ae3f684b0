import { timingSafeEqual } from 'node:crypto';
import { fenToYuan } from '@mediagate/shared/payments';
import express, { type Response, type Router } from 'express';
import { escapeHtml } from './alipay-gateway';
import { notPayable, orderKey, payOrder, type SimContext } from './context';
import type { SimOrder, Vendor } from './orders';

const page = (res: Response, status: number, title: string, body: string) =>
  res
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="zh"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><body style="font-family:sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    );

const sameToken = (given: unknown, token: string) =>
  typeof given === 'string' &&
  given.length === token.length &&
  timingSafeEqual(Buffer.from(given), Buffer.from(token));

/**
 * The pages a phone's browser opens: Alipay's mobile cashier (after alipay.trade.wap.pay) and
 * WeChat Pay's H5 page (the h5_url). Paying marks the order paid, so the pay button asks for the
 * control token (PAYSIM_CONTROL_TOKEN) like the control API; the payer then returns to the
 * merchant's return_url / redirect_url.
 */
export function payPages(ctx: SimContext): Router {
  const router = express.Router();
  const find = (vendor: string, token: string): SimOrder | undefined => {
    for (const o of ctx.orders.values()) {
      if (o.vendor === (vendor as Vendor) && o.payToken === token) return ctx.settle(o);
    }
    return undefined;
  };
  const title = (o: SimOrder) => (o.vendor === 'alipay' ? '支付宝 Alipay' : '微信支付 WeChat Pay');
  const tokenField =
    '<label>Simulator control token <input type="password" name="token" autocomplete="off" required></label>';

  // Every order waiting for its payer, newest first, each with a pay button: a QR code shown on a
  // development machine is paid here (no phone scans a simulator's code).
  router.get('/', (_req, res) => {
    const waiting = [...ctx.orders.values()]
      .reverse()
      .map((o) => ctx.settle(o))
      .filter((o) => notPayable(o) === null)
      .sort((a, b) => b.createdAt - a.createdAt);
    const rows = waiting.map(
      (o) =>
        `<li data-testid="waiting-order"><form method="post"><p><strong>${escapeHtml(title(o))}</strong> ¥${fenToYuan(o.amountFen)}: ${escapeHtml(o.subject)}<br><small>${escapeHtml(o.outTradeNo)}, ${new Date(o.createdAt).toISOString()}</small></p><input type="hidden" name="vendor" value="${escapeHtml(o.vendor)}"><input type="hidden" name="out_trade_no" value="${escapeHtml(o.outTradeNo)}">${tokenField} <button type="submit">Pay ¥${fenToYuan(o.amountFen)}</button></form></li>`,
    );
    page(
      res,
      200,
      'Orders waiting for payment',
      waiting.length === 0
        ? '<p data-testid="no-orders">No order is waiting for payment. Show a QR code in the console, then reload this page.</p>'
        : `<p>Paying marks the order paid and notifies the merchant, as the payer's app would. It needs the simulator's control token (PAYSIM_CONTROL_TOKEN; pnpm start prints it).</p><ul>${rows.join('')}</ul>`,
    );
  });

  router.post('/', express.urlencoded({ extended: false, limit: '8kb' }), (req, res) => {
    const token = ctx.config.PAYSIM_CONTROL_TOKEN;
    if (!token) {
      return void page(
        res,
        403,
        'Payment',
        '<p>Paying is off: start the simulator with PAYSIM_CONTROL_TOKEN set.</p>',
      );
    }
    const form = (req.body ?? {}) as { token?: unknown; vendor?: unknown; out_trade_no?: unknown };
    const back = '<p><a href="/_pay">Orders waiting for payment</a></p>';
    if (!sameToken(form.token, token)) {
      return void page(
        res,
        401,
        'Payment',
        `<p>Enter the simulator control token (PAYSIM_CONTROL_TOKEN).</p>${back}`,
      );
    }
    const found =
      typeof form.vendor === 'string' && typeof form.out_trade_no === 'string'
        ? ctx.orders.get(orderKey(form.vendor as Vendor, form.out_trade_no))
        : undefined;
    if (!found) return void page(res, 404, 'Payment', `<p>No such order.</p>${back}`);
    const order = ctx.settle(found);
    const why = notPayable(order);
    if (why) {
      return void page(
        res,
        409,
        title(order),
        `<p>This order cannot be paid: ${escapeHtml(why)}.</p>${back}`,
      );
    }
    payOrder(ctx, order);
    page(
      res,
      200,
      title(order),
      `<p data-testid="pay-done">Paid ¥${fenToYuan(order.amountFen)} for ${escapeHtml(order.outTradeNo)}; the merchant is notified.</p>${back}`,
    );
  });

  router.get('/:vendor/:token', (req, res) => {
    const order = find(req.params.vendor, req.params.token);
    if (!order) return void page(res, 404, 'Payment', '<p>No such order.</p>');
    const why = notPayable(order);
    const redirect = typeof req.query.redirect_url === 'string' ? req.query.redirect_url : '';
    page(
      res,
      200,
      title(order),
      `<p data-testid="pay-subject">${escapeHtml(order.subject)}</p><p data-testid="pay-amount">¥${fenToYuan(order.amountFen)}</p>${
        why
          ? `<p data-testid="pay-unavailable">This order cannot be paid: ${escapeHtml(why)}.</p>`
          : `<form method="post"><input type="hidden" name="redirect_url" value="${escapeHtml(redirect)}"><label>Simulator control token <input type="password" name="token" autocomplete="off"></label><p><button type="submit">Pay ¥${fenToYuan(order.amountFen)}</button></p></form>`
      }`,
    );
  });

  router.post('/:vendor/:token', express.urlencoded({ extended: false, limit: '8kb' }), (req, res) => {
    const token = ctx.config.PAYSIM_CONTROL_TOKEN;
    if (!token) {
      return void page(
        res,
        403,
        'Payment',
        '<p>Paying is off: start the simulator with PAYSIM_CONTROL_TOKEN set.</p>',
      );
    }
    const form = (req.body ?? {}) as { token?: unknown; redirect_url?: unknown };
    if (!sameToken(form.token, token)) {
      return void page(
        res,
        401,
        'Payment',
        '<p>Enter the simulator control token (PAYSIM_CONTROL_TOKEN).</p>',
      );
    }
    const order = find(req.params.vendor, req.params.token);
    if (!order) return void page(res, 404, 'Payment', '<p>No such order.</p>');
    const why = notPayable(order);
    if (why)
      return void page(res, 409, title(order), `<p>This order cannot be paid: ${escapeHtml(why)}.</p>`);
    payOrder(ctx, order);
    // back to the merchant: Alipay appends the trade to return_url; WeChat Pay opens redirect_url as it is
    let back =
      order.vendor === 'alipay'
        ? order.returnUrl
        : typeof form.redirect_url === 'string'
          ? form.redirect_url
          : '';
    if (back && order.vendor === 'alipay') {
      const url = new URL(back);
      url.searchParams.set('out_trade_no', order.outTradeNo);
      url.searchParams.set('trade_no', order.tradeId);
      url.searchParams.set('total_amount', fenToYuan(order.amountFen));
      back = url.toString();
    }
    if (back && /^https?:\/\//.test(back)) return void res.redirect(303, back);
    page(res, 200, title(order), '<p data-testid="pay-done">Paid.</p>');
  });
  return router;
}
