import {
  getTopUpOrder,
  listTopUpRefunds,
  listTopUpRefundsByStatus,
  TopUpRefundRefusedError,
} from '@mediagate/shared/billing';
import { consoleObject, listOf } from '@mediagate/shared/contracts';
import { TOPUP_REFUND_STATUSES, type TopUpRefundRow } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import { QR_PROVIDERS, refundTopUpOrder } from '@mediagate/shared/payments';
import type { Router } from 'express';
import { z } from 'zod';
import { auditActor } from '../audit';
import type { ApiDeps } from '../deps';
import { parseBody } from '../middleware/body';
import { requireAdmin, sessionOf } from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import { toSeconds, usd } from './console-views';

export const refundBody = z.strictObject({
  amount_cny: z
    .number({
      error: (i) =>
        i.input === undefined ? undefined : `must be a JSON number of yuan (17.5), not a ${typeof i.input}`,
    })
    .positive()
    .max(1_000_000)
    // exact: 17.5000000001 is not 17.50 (amounts are validated, never rounded)
    .refine((v) => Number(v.toFixed(2)) === v, { message: 'must have at most 2 decimals (fen)' })
    .optional()
    .describe('what to refund, in CNY; default: all that is left of the payment'),
  reason: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .describe('why; recorded in the audit log and sent to the provider'),
});

export const topUpRefundSchema = consoleObject('TopUpRefund', {
  object: z.literal('topup_refund'),
  id: z.string().describe('also the merchant refund number sent to the provider'),
  topup_id: z.string(),
  account_id: z.string(),
  provider: z.enum(QR_PROVIDERS),
  origin: z
    .enum(['operator', 'provider'])
    .describe('provider: made in the merchant portal, learnt from its notification'),
  status: z
    .enum(TOPUP_REFUND_STATUSES)
    .describe(
      'held: the provider reported it for more than is left of the payment; nothing was debited, an operator settles it',
    ),
  amount_cny: z.number(),
  debit_usd: z.number().describe('the credit taken back from the balance'),
  debit_micro_usd: z.number().int(),
  uncovered_usd: z
    .number()
    .describe('the refunded share of the credit the balance could not cover (already spent)'),
  uncovered_micro_usd: z.number().int(),
  reason: z.string().nullable(),
  failure: z
    .string()
    .nullable()
    .describe("the provider's reason for a failed refund; what was reported for a held one"),
  provider_refund_id: z.string().nullable(),
  created_at: z.number().int(),
  succeeded_at: z.number().int().nullable(),
});

export function topUpRefundObject(r: TopUpRefundRow) {
  return {
    object: 'topup_refund' as const,
    id: r.id,
    topup_id: r.orderId,
    account_id: r.accountId,
    provider: r.provider as (typeof QR_PROVIDERS)[number],
    origin: r.origin,
    status: r.status,
    amount_cny: r.amountFen / 100,
    debit_usd: usd(r.debitMicroUsd),
    debit_micro_usd: r.debitMicroUsd,
    uncovered_usd: usd(r.uncoveredMicroUsd),
    uncovered_micro_usd: r.uncoveredMicroUsd,
    reason: r.reason,
    failure: r.failure,
    provider_refund_id: r.providerRefundId,
    created_at: toSeconds(r.createdAt)!,
    succeeded_at: toSeconds(r.succeededAt),
  };
}

/**
 * POST /admin/api/topups/:id/refund: an operator refunds a paid QR top-up through its provider
 * (Alipay alipay.trade.refund, WeChat Pay's domestic refund), all that is left or `amount_cny`
 * of it. The refund is recorded and audited before it is sent; a success takes the refunded share
 * of the credit back once (never below a balance of 0; the rest is shown as uncovered). 201 when
 * the provider refunded at once (Alipay), 202 while it is under way (WeChat Pay's PROCESSING, or
 * no answer: its notification or the reconciler finishes it; or held, when the provider reports more
 * than is left of the payment), 409 when the provider refused it
 * (its reason in the message, the balance untouched) or when more than is left is asked.
 * GET /admin/api/topups/:id/refunds lists a top-up's refunds.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  const admin = requireAdmin(deps);
  const body = parseBody({ limitBytes: 16 * 1024 });
  const order = async (id: string) => {
    const found = await getTopUpOrder(db, id);
    if (!found) throw new ApiError('not_found', `No top-up ${id.slice(0, 64)}.`);
    return found;
  };

  router.post('/topups/:id/refund', ...admin, ...body, async (req, res) => {
    const b = refundBody.parse(req.body ?? {});
    const topUp = await order(String(req.params.id));
    const provider = deps.qrProviders?.get(topUp.provider);
    if (!provider) {
      throw new ApiError(
        'service_unavailable',
        `The payment provider '${topUp.provider}' is not configured.`,
      );
    }
    let done: Awaited<ReturnType<typeof refundTopUpOrder>>;
    try {
      done = await refundTopUpOrder(db, provider, {
        orderId: topUp.id,
        amountFen: b.amount_cny === undefined ? undefined : Math.round(b.amount_cny * 100),
        reason: b.reason,
        operatorId: sessionOf(req).accountId,
        notifyBaseUrl: deps.config.PAYMENT_NOTIFY_BASE_URL,
        logger: req.log,
        metrics: deps.metrics,
        actor: auditActor(req),
      });
    } catch (err) {
      if (err instanceof TopUpRefundRefusedError) {
        throw new ApiError('conflict', err.message, err.reason === 'exceeds' ? 'amount_cny' : undefined);
      }
      throw err;
    }
    if (!done) throw new ApiError('not_found', `No top-up ${topUp.id}.`);
    req.log.info(
      { topUpId: topUp.id, refundId: done.refund.id, outcome: done.outcome },
      'top-up refunded by an operator',
    );
    if (done.outcome === 'failed') {
      throw new ApiError(
        'conflict',
        `The payment provider refused the refund: ${done.refund.failure ?? 'no reason given'}. Nothing was refunded and the balance is unchanged.`,
      );
    }
    res.status(done.outcome === 'succeeded' ? 201 : 202).json(topUpRefundObject(done.refund));
  });

  router.get('/topup-refunds', ...admin, async (req, res) => {
    const q = refundsQuery.parse(req.query);
    const rows = await listTopUpRefundsByStatus(db, q.status, q.limit);
    res.status(200).json({ object: 'list', data: rows.map(topUpRefundObject) });
  });

  router.get('/topups/:id/refunds', ...admin, async (req, res) => {
    const topUp = await order(String(req.params.id));
    const rows = await listTopUpRefunds(db, [topUp.id]);
    res.status(200).json({ object: 'list', data: rows.map(topUpRefundObject) });
  });
}

const refundsQuery = z.strictObject({
  status: z.enum(TOPUP_REFUND_STATUSES).describe('held: the refunds waiting for an operator'),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const op = endpoints({ tag: 'admin', auth: 'admin' });

export const contracts: RouteContract[] = [
  op('POST /admin/api/topups/:id/refund', 'Refund a paid QR top-up through its provider', {
    body: refundBody,
    201: topUpRefundSchema,
    202: {
      description: 'under way: finished by the notification or the reconciler',
      schema: topUpRefundSchema,
    },
    404: 'no such top-up',
    409: 'the provider refused (its reason in the message), the top-up is not paid, or more than is left was asked',
  }),
  op(
    'GET /admin/api/topup-refunds',
    'Refunds of every top-up in one state (held: waiting for an operator), newest first',
    {
      query: refundsQuery,
      200: listOf(topUpRefundSchema, 'TopUpRefundList'),
    },
  ),
  op('GET /admin/api/topups/:id/refunds', "A top-up's refunds, oldest first", {
    200: listOf(topUpRefundSchema, 'TopUpRefundList'),
    404: 'no such top-up',
  }),
];

export const route: Route = { mount: '/admin/api', contracts, register };
