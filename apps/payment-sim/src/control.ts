import { createPrivateKey } from 'node:crypto';
import { bearerMatches } from '@mediagate/shared/metrics';
import express, { type RequestHandler, type Router } from 'express';
import { notPayable, orderKey, payOrder, recordRefund, type SimContext } from './context';
import { newPlatformCertificate } from './keys';
import {
  ageOrder,
  payableUntil,
  type RefundBehaviour,
  refundedFen,
  type SimOrder,
  type Vendor,
} from './orders';

function view(order: SimOrder) {
  return {
    vendor: order.vendor,
    channel: order.channel,
    out_trade_no: order.outTradeNo,
    trade_id: order.tradeId,
    status: order.status,
    closed_by: order.closedBy ?? null,
    scanned: order.scannedAt !== undefined,
    amount_fen: order.amountFen,
    refunded_fen: refundedFen(order),
    refunds: order.refunds.map((r) => ({
      no: r.no,
      refund_id: r.refundId,
      amount_fen: r.amountFen,
      status: r.status,
    })),
    payable_until: order.status === 'WAIT' ? new Date(payableUntil(order)).toISOString() : null,
    /** the payment notification (kept for callers that read one) */
    notification: order.notifications.find((n) => n.kind === 'paid') ?? null,
    notifications: order.notifications,
  };
}

/**
 * The control API: what the payer and the merchant portal do (scan, pay, refund), and what time
 * does (age an order), plus WeChat Pay's signature probes. Behind PAYSIM_CONTROL_TOKEN.
 */
export function controlApi(ctx: SimContext): Router {
  const control = express.Router();
  control.use(requireControlToken(ctx.config.PAYSIM_CONTROL_TOKEN, 'PAYSIM_CONTROL_TOKEN'));
  control.use(express.json());

  const find = (body: unknown) => {
    const { vendor, out_trade_no: no } = (body ?? {}) as { vendor?: Vendor; out_trade_no?: string };
    const order = ctx.orders.get(orderKey(vendor as Vendor, String(no)));
    return order ? ctx.settle(order) : undefined;
  };

  /** the payer scans the code (Alipay creates the trade; WeChat Pay shows the order): `{vendor, out_trade_no}` */
  control.post('/scan', (req, res) => {
    const order = find(req.body);
    if (!order) return void res.status(404).json({ error: 'no such order' });
    const why = notPayable(order);
    if (why) return void res.status(409).json({ error: why });
    order.scannedAt ??= Date.now();
    res.json(view(order));
  });
  /** scans (if not yet) and pays: `{vendor, out_trade_no, notify?: false}` (no notification at all) */
  control.post('/pay', (req, res) => {
    const order = find(req.body);
    if (!order) return void res.status(404).json({ error: 'no such order' });
    const why = notPayable(order);
    if (why) return void res.status(409).json({ error: why });
    payOrder(ctx, order, (req.body as { notify?: boolean }).notify !== false);
    res.json(view(order));
  });
  /** the order as if placed `seconds` earlier: `{vendor, out_trade_no, seconds}` */
  control.post('/age', (req, res) => {
    const seconds = Number((req.body as { seconds?: unknown }).seconds);
    if (!Number.isFinite(seconds) || seconds <= 0) return void res.status(400).json({ error: 'seconds' });
    const order = find(req.body);
    if (!order) return void res.status(404).json({ error: 'no such order' });
    ageOrder(order, seconds * 1000);
    res.json(view(ctx.settle(order)));
  });
  /** what the next refund through the API does: `{vendor, out_trade_no, outcome?, notify?}` (see RefundBehaviour) */
  control.post('/refund-behaviour', (req, res) => {
    const order = find(req.body);
    if (!order) return void res.status(404).json({ error: 'no such order' });
    const { outcome, notify } = req.body as { outcome?: unknown; notify?: unknown };
    if (outcome !== undefined && !['refuse', 'no_answer', 'abnormal', 'closed'].includes(String(outcome))) {
      return void res.status(400).json({ error: 'outcome: refuse, no_answer, abnormal or closed' });
    }
    if ((outcome === 'abnormal' || outcome === 'closed') && order.vendor !== 'wechat') {
      return void res.status(400).json({ error: `${String(outcome)} is a WeChat Pay refund status` });
    }
    order.nextRefund = { outcome: outcome as RefundBehaviour['outcome'], notify: notify !== false };
    res.json(view(order));
  });
  /** a refund made in the merchant portal: `{vendor, out_trade_no, amount_fen?, notify?: false}` (all that is left by default) */
  control.post('/refund', (req, res) => {
    const order = find(req.body);
    if (!order) return void res.status(404).json({ error: 'no such order' });
    const left = order.amountFen - refundedFen(order);
    const amount = (req.body as { amount_fen?: unknown }).amount_fen ?? left;
    if (
      order.paidAt === undefined ||
      typeof amount !== 'number' ||
      !Number.isSafeInteger(amount) ||
      amount <= 0 ||
      amount > left
    ) {
      return void res.status(409).json({ error: `refundable: ${order.paidAt === undefined ? 0 : left} fen` });
    }
    recordRefund(ctx, order, `portal${Date.now()}${order.refunds.length}`, amount, 'merchant portal', '', {
      notify: (req.body as { notify?: unknown }).notify !== false,
    });
    res.json(view(order));
  });
  /** WeChat Pay's signature probe: a notification for the order with a WECHATPAY/SIGNTEST/ signature */
  control.post('/wechat/signtest', (req, res) => {
    const order = find({ ...(req.body as object), vendor: 'wechat' });
    if (!order) return void res.status(404).json({ error: 'no such order' });
    ctx.notifier.send(order, 'signtest');
    res.json(view(order));
  });
  control.get('/orders/:vendor/:no', (req, res) => {
    const order = ctx.orders.get(orderKey(req.params.vendor as Vendor, req.params.no));
    if (!order) return void res.status(404).json({ error: 'no such order' });
    res.json(view(ctx.settle(order)));
  });
  control.post('/wechat/signer', (req, res) => {
    const mode = (req.body as { mode?: string })?.mode;
    if (mode !== 'public_key' && mode !== 'certificate') return void res.status(400).json({ error: 'mode' });
    ctx.wechat.signWith = mode;
    res.json({ mode, serial: ctx.wechat.signers[mode]?.serial });
  });
  /** WeChat Pay rotates its platform certificate: a new one signs from now on, both are listed */
  control.post('/wechat/rotate', (_req, res) => {
    let issued: ReturnType<typeof newPlatformCertificate>;
    try {
      issued = newPlatformCertificate();
    } catch {
      return void res.status(501).json({ error: 'issuing a certificate needs the openssl CLI' });
    }
    ctx.wechat.signers.certificate = { key: createPrivateKey(issued.privateKey), serial: issued.serial };
    ctx.wechat.certificates.push({ serial: issued.serial, pem: issued.certificate });
    res.json({ serial: issued.serial, certificates: ctx.wechat.certificates.map((c) => c.serial) });
  });
  control.get('/stats', (_req, res) => {
    res.json(ctx.stats);
  });
  return control;
}

/**
 * The control API marks orders paid: only with `Authorization: Bearer <token>` (401 otherwise),
 * and not at all while no token is configured (403).
 */
export function requireControlToken(token: string | undefined, variable: string): RequestHandler {
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
