import { bankTransferReference, getTopUpOrder, TopUpTooSmallError } from '@mediagate/shared/billing';
import { consoleObject } from '@mediagate/shared/contracts';
import type { TopUpOrderRow } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import {
  createTopUpOrder,
  QR_PROVIDERS,
  syncTopUpOrder,
  TooManyOpenTopUpsError,
  TooManyTopUpsPerHourError,
  TopUpOrderRefusedError,
} from '@mediagate/shared/payments';
import { withTimeout } from '@mediagate/shared/timeout';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { parseBody } from '../middleware/body';
import { requireSession, sessionOf } from '../middleware/session';
import { topUpPolicy } from '../policies';
import { endpoints, ok, type Route, type RouteContract } from '../route';
import {
  cnyAmount,
  topUpListQuery,
  topUpObject,
  topUpObjectSchema,
  topUpPage,
  topUpPageSchema,
} from './account-views';

export const createTopUpBody = z.strictObject({
  amount_cny: cnyAmount,
  provider: z.enum(QR_PROVIDERS),
  channel: z
    .enum(['qr', 'mobile'])
    .default('qr')
    .describe(
      'qr: a QR code to scan with another device; mobile: a pay URL for the browser of the phone the console runs on (Alipay mobile-web payment, WeChat Pay H5)',
    ),
});

export const topUpOptionsSchema = consoleObject('TopUpOptions', {
  providers: z.array(z.enum(QR_PROVIDERS)),
  cny_per_usd: z.number(),
  min_amount_cny: z.number(),
  bonus_threshold_cny: z.number(),
  bonus_percent: z.number(),
  bank_transfer: z.object({
    reference: z.string(),
    beneficiary: z.string().nullable(),
    bank: z.string().nullable(),
    account_number: z.string().nullable(),
    contact: z
      .string()
      .nullable()
      .describe(
        'how to reach us about payments (PAYMENTS_CONTACT: an e-mail address or a URL), null when unset',
      ),
  }),
});

/** The smallest CNY amount, to the fen, that credits `microUsd` at `rate` (what the limits are shown as). */
const cny = (microUsd: number, rate: number) => Math.ceil((microUsd / 1_000_000) * rate * 100 - 1e-6) / 100;

/**
 * QR-code top-ups in the console: GET /console/api/topups/options (providers configured, rate,
 * limits, the account's bank-transfer reference), POST /console/api/topups (an order with the
 * provider, its QR content and expiry), GET /console/api/topups/:id (its status, owner only) and
 * GET /console/api/topups (newest first). Crediting happens on the provider's notification
 * (payments.qr-notify.ts) or the reconciler's query, once per order.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  const session = requireSession(deps);
  const body = parseBody({ limitBytes: 4 * 1024 });
  const rate = deps.config.TOPUP_CNY_PER_USD ?? 5;
  const ttlSeconds = deps.config.TOPUP_ORDER_TTL_S ?? 15 * 60;
  const rules = { ...topUpPolicy(deps.config), cnyPerUsd: rate };
  const providers = deps.qrProviders ?? new Map();
  const maxOpen = deps.config.TOPUP_MAX_OPEN_ORDERS ?? 10;
  const maxPerHour = deps.config.TOPUP_MAX_ORDERS_PER_HOUR ?? 30;
  const queryAfterMs = deps.config.TOPUP_QUERY_AFTER_MS ?? 5_000;

  /**
   * A payer watching an unpaid order: ask its provider (once per 5 s per order, fleet-wide), so a
   * lost notification costs seconds even between reconciler passes. Bounded to 2 s; it finishes
   * in the background when slower.
   */
  const refresh = async (order: TopUpOrderRow, log: { warn: (o: object, m: string) => void }) => {
    const provider = providers.get(order.provider);
    if (!provider || order.status !== 'created' || Date.now() - order.createdAt.getTime() < queryAfterMs)
      return;
    if ((await deps.redis.set(`topup-sync:${order.id}`, '1', 'PX', 5_000, 'NX')) !== 'OK') return;
    const sync = syncTopUpOrder(db, provider, order, { closeIfExpired: false, metrics: deps.metrics }).catch(
      (err: unknown) => {
        log.warn({ err, orderId: order.id }, 'top-up query failed');
      },
    );
    await withTimeout(sync, 2_000, { what: 'top-up query' }).catch(() => {});
  };

  router.get('/topups/options', session, async (req, res) => {
    // read-only: the reference is derived from the account id (stored with the account)
    const reference = bankTransferReference(sessionOf(req).accountId);
    res.status(200).json({
      object: 'topup_options',
      providers: QR_PROVIDERS.filter((p) => providers.has(p)),
      cny_per_usd: rate,
      min_amount_cny: cny(rules.minMicroUsd, rate),
      bonus_threshold_cny: cny(rules.bonusThresholdMicroUsd, rate),
      bonus_percent: rules.bonusPercent,
      bank_transfer: {
        reference,
        beneficiary: deps.config.BANK_TRANSFER_BENEFICIARY ?? null,
        bank: deps.config.BANK_TRANSFER_BANK ?? null,
        account_number: deps.config.BANK_TRANSFER_ACCOUNT_NUMBER ?? null,
        contact: deps.config.PAYMENTS_CONTACT ?? null,
      },
    });
  });

  router.post('/topups', session, ...body, async (req, res) => {
    const b = createTopUpBody.parse(req.body ?? {});
    const provider = providers.get(b.provider);
    if (!provider) {
      throw new ApiError(
        'invalid_request',
        `The payment provider '${b.provider}' is not available.`,
        'provider',
      );
    }
    const amountFen = Math.round(b.amount_cny * 100);
    const notifyBase = deps.config.PAYMENT_NOTIFY_BASE_URL;
    if (!notifyBase) throw new ApiError('service_unavailable', 'Top-ups are not configured (notify URL).');
    let order: TopUpOrderRow;
    try {
      order = await createTopUpOrder(db, provider, {
        accountId: sessionOf(req).accountId,
        amountFen,
        rules,
        ttlSeconds,
        maxOpen,
        maxPerHour,
        notifyBaseUrl: notifyBase,
        // on a phone the payer's browser pays, then comes back to this order in the console
        mobile:
          b.channel === 'mobile'
            ? {
                payerIp: req.ip ?? '127.0.0.1',
                returnUrl: (id) =>
                  `${deps.config.PUBLIC_BASE_URL ?? notifyBase}/console/topup?order=${encodeURIComponent(id)}`,
              }
            : undefined,
        metrics: deps.metrics,
      });
    } catch (err) {
      if (err instanceof TopUpTooSmallError) {
        throw new ApiError(
          'invalid_request',
          `A top-up must be at least ${cny(rules.minMicroUsd, rate)} CNY.`,
          'amount_cny',
        );
      }
      if (err instanceof TooManyOpenTopUpsError || err instanceof TooManyTopUpsPerHourError) {
        throw new ApiError('rate_limit_exceeded', err.message, undefined, {
          'retry-after': String(err.retryAfterS),
        });
      }
      if (err instanceof TopUpOrderRefusedError) {
        req.log.warn(
          { err: err.cause, orderId: err.orderId, provider: b.provider },
          'payment provider refused the order',
        );
        throw new ApiError('service_unavailable', err.message);
      }
      throw err;
    }
    req.log.info({ orderId: order.id, provider: b.provider, amountFen }, 'top-up order created');
    res.status(201).json(topUpObject(order));
  });

  router.get('/topups/:id', session, async (req, res) => {
    let order = await getTopUpOrder(db, String(req.params.id));
    if (!order || order.accountId !== sessionOf(req).accountId) {
      throw new ApiError('not_found', `No top-up ${String(req.params.id)}.`);
    }
    if (order.status === 'created') {
      await refresh(order, req.log);
      order = (await getTopUpOrder(db, order.id)) ?? order;
    }
    res.status(200).json(topUpObject(order));
  });

  router.get('/topups', session, async (req, res) => {
    const q = topUpListQuery.parse(req.query);
    res.status(200).json(await topUpPage(db, sessionOf(req).accountId, q));
  });
}

const op = endpoints({ tag: 'console', auth: 'session' });

export const contracts: RouteContract[] = [
  op(
    'GET /console/api/topups/options',
    'How the account can top up: QR providers, rate, minimum, bonus, bank transfer details',
    { 200: topUpOptionsSchema },
  ),
  op(
    'POST /console/api/topups',
    'Start a QR-code top-up in CNY (Alipay or WeChat Pay); returns the QR content',
    {
      body: createTopUpBody,
      201: ok(topUpObjectSchema, 'Created'),
      429: 'too many unpaid orders (TOPUP_MAX_OPEN_ORDERS) or unpaid orders created within the hour, cancelled ones included (TOPUP_MAX_ORDERS_PER_HOUR)',
      503: 'the payment provider is unavailable',
    },
  ),
  op(
    'GET /console/api/topups/:id',
    'A top-up and its status (created, paid, credited, closed, expired, cancelled)',
    {
      200: topUpObjectSchema,
      404: 'not found',
    },
  ),
  op('GET /console/api/topups', "The account's top-ups, newest first", {
    query: topUpListQuery,
    200: topUpPageSchema,
  }),
];

export const route: Route = { mount: '/console/api', contracts, register };
