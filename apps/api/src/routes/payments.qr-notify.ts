import { getTopUpOrder } from '@mediagate/shared/billing';
import { errorResponse } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import {
  type NotificationAnswer,
  PaymentVerificationError,
  QR_PROVIDERS,
  settleRefundNotification,
  settleTopUpPayment,
} from '@mediagate/shared/payments';
import express, { type Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { endpoints, type Route, type RouteContract } from '../route';

/**
 * POST /payments/alipay/notify and /payments/wechat/notify: the providers' asynchronous payment
 * notifications. The provider module verifies the signature (Alipay's public key; the WeChat Pay
 * platform certificate or public key), freshness and our app id / mchid before anything is read;
 * then the order named by out_trade_no must exist and belong to this provider. A payment is
 * settled by the rule the reconciler follows too (settleTopUpPayment): credited once per order
 * with the order's amount, held for an operator with another; repeats are acknowledged. A refund
 * (Alipay's notification with out_biz_no and refund_fee, WeChat Pay's REFUND.*) takes the refunded
 * share of the credit back once per refund (settleRefundNotification), or is held for an operator
 * when it reports more than is left of the payment: acknowledged either way, never answered 500
 * for ever.
 * Answers follow each protocol: `success` for Alipay, 204 or `{code:"FAIL"}` for WeChat Pay.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  const raw = express.raw({ type: () => true, limit: 64 * 1024 });
  for (const name of QR_PROVIDERS) {
    router.post(`/${name}/notify`, raw, async (req, res) => {
      const provider = deps.qrProviders?.get(name);
      if (!provider) throw new ApiError('not_found', `No payment provider '${name}'.`);
      const started = performance.now();
      const send = (a: NotificationAnswer) => {
        res.status(a.status);
        if (a.contentType) res.type(a.contentType);
        if (a.body === undefined) res.end();
        else res.send(a.body);
      };
      const count = (outcome: string) => deps.metrics?.paymentNotifications.inc({ provider: name, outcome });
      const refuse = (
        reason: string,
        message: string,
        status: number,
        extra: Record<string, unknown> = {},
      ) => {
        req.log.warn({ provider: name, reason: message, ...extra }, 'payment notification refused');
        count('refused');
        deps.metrics?.paymentNotificationsRefused.inc({ provider: name, reason });
        send(provider.refuse(message, status));
      };
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      let n: ReturnType<typeof provider.verifyNotification>;
      try {
        n = provider.verifyNotification(req.headers, body);
      } catch (err) {
        if (err instanceof PaymentVerificationError) {
          return refuse(err.kind, err.message, err.kind === 'payload' ? 400 : 401, { kind: err.kind });
        }
        throw err;
      }
      try {
        const order = await getTopUpOrder(db, n.orderId);
        if (!order || order.provider !== name) {
          return refuse('unknown_order', 'unknown order', 404, { orderId: n.orderId.slice(0, 64) });
        }
        if (n.refund) {
          // a refund (ours, or one made in the merchant portal): the refunded share of the credit
          // is taken back once per refund number, never below a balance of 0; one reported for
          // more than is left of the payment is held for an operator (and acknowledged too)
          const outcome = await settleRefundNotification(db, provider, order, n.refund, {
            metrics: deps.metrics,
            logger: req.log,
          });
          req.log.info(
            { provider: name, orderId: order.id, refundNo: n.refund.refundNo.slice(0, 64), outcome },
            'refund notification',
          );
          count('accepted');
          send(provider.acknowledge());
          return;
        }
        if (!n.paid) {
          // another kind of event (closed, refunded): nothing to credit, stop the retries
          count('accepted');
          send(provider.acknowledge());
          return;
        }
        // the rule every report of a payment follows (the reconciler's queries too): credited
        // once with the order's amount; with another, held for an operator and acknowledged
        const outcome = await settleTopUpPayment(
          db,
          order,
          { amountFen: n.amountFen, tradeId: n.tradeId, paidAt: n.paidAt, raw: n.raw },
          { logger: req.log, metrics: deps.metrics, via: 'notification' },
        );
        req.log.info(
          {
            provider: name,
            orderId: order.id,
            outcome,
            ms: Math.round((performance.now() - started) * 10) / 10,
          },
          'payment notification',
        );
        count('accepted');
        send(provider.acknowledge());
      } catch (err) {
        count('error');
        req.log.error({ err, provider: name }, 'payment notification not processed');
        send(provider.refuse('temporary failure', 500));
      }
    });
  }
}

/** WeChat Pay's "send again" answer. */
const wechatFail = z.object({ code: z.literal('FAIL'), message: z.string() }).meta({ id: 'WeChatPayFail' });

/** The refusals each protocol answers in its own shape (the provider sends the notification again). */
const refusals = (answer: { schema?: z.ZodType; contentType?: string }, what: string) => ({
  400: {
    description: `a malformed notification: ${what}`,
    ...answer,
  },
  401: { description: `a signature that does not verify: ${what}`, ...answer },
  404: {
    description: `an unknown order (${what}); the provider is not configured (the error envelope)`,
    ...(answer.schema ? { schema: z.union([answer.schema, errorResponse]) } : {}),
  },
  500: { description: `a temporary failure: ${what}`, ...answer },
});

const op = endpoints({ tag: 'payments', auth: 'signature' });

export const contracts: RouteContract[] = [
  op(
    'POST /payments/alipay/notify',
    "Alipay's asynchronous notification (form, RSA2-signed); answered with the text success",
    {
      200: { description: 'success', contentType: 'text/plain' },
      ...refusals({ contentType: 'text/plain' }, 'the text fail'),
    },
  ),
  op(
    'POST /payments/wechat/notify',
    "WeChat Pay's payment notification (signed, resource encrypted); 204 when accepted",
    { 204: 'accepted', ...refusals({ schema: wechatFail }, '{"code":"FAIL"}') },
  ),
];

export const route: Route = { mount: '/payments', contracts, register };
