import { sql } from 'drizzle-orm';
import {
  type CnyTopUpRules,
  closeTopUpOrder,
  creditTopUpOrder,
  insertTopUpOrder,
  markTopUpOrderPaid,
  openTopUpOrders,
  quoteCnyTopUp,
  setTopUpPaymentTarget,
  unpaidTopUpOrdersCreatedSince,
} from '../billing/topup-orders';
import type { DbOrTx } from '../db/client';
import type { TopUpOrderRow } from '../db/schema';
import { newTopUpOrderId } from '../ids';
import type { Logger } from '../log';
import type { Metrics } from '../metrics';
import type { QrPaymentProvider } from './types';

/** The account has `count` unpaid orders, the most it may hold; the first expires in `retryAfterS`. */
export class TooManyOpenTopUpsError extends Error {
  constructor(
    readonly count: number,
    readonly retryAfterS: number,
  ) {
    super(`You have ${count} unpaid top-ups; pay one or wait until one expires.`);
    this.name = 'TooManyOpenTopUpsError';
  }
}

/**
 * The account created `count` orders within the last hour that were not paid (cancelled ones
 * included: each was placed at the provider), the most it may; the first of them leaves the hour
 * in `retryAfterS`.
 */
export class TooManyTopUpsPerHourError extends Error {
  constructor(
    readonly count: number,
    readonly retryAfterS: number,
  ) {
    super(`You started ${count} unpaid top-ups within the last hour, the most allowed; try again later.`);
    this.name = 'TooManyTopUpsPerHourError';
  }
}

/** The provider did not take the order (unreachable, refused); the order is `closed`. */
export class TopUpOrderRefusedError extends Error {
  constructor(
    readonly provider: string,
    readonly orderId: string,
    options: { cause: unknown },
  ) {
    super(`The payment provider '${provider}' is unavailable; try again.`, options);
    this.name = 'TopUpOrderRefusedError';
  }
}

const HOUR_MS = 3_600_000;

/** The subject both providers show the payer. */
export function topUpSubject(amountFen: number): string {
  return `mediagate top-up ${(amountFen / 100).toFixed(2)} CNY`;
}

/**
 * Places a top-up of `amountFen` (a QR code, or for a payer on a phone a mobile pay URL): quotes it (TopUpTooSmallError below the minimum),
 * refuses an account holding `maxOpen` payable orders (TooManyOpenTopUpsError) or having created
 * `maxPerHour` unpaid ones within the last hour (TooManyTopUpsPerHourError), writes the order,
 * then places it with the provider and stores its QR code. An order the provider does not take is
 * closed at once (TopUpOrderRefusedError).
 */
export async function createTopUpOrder(
  db: DbOrTx,
  provider: QrPaymentProvider,
  args: {
    accountId: string;
    amountFen: number;
    rules: CnyTopUpRules;
    ttlSeconds: number;
    maxOpen: number;
    /** unpaid orders created per rolling hour, cancelled ones included (cancel and create again is bounded) */
    maxPerHour: number;
    notifyBaseUrl: string;
    /** a payer on a phone: a mobile payment (a pay URL) instead of a QR code */
    mobile?: { payerIp: string; returnUrl: (orderId: string) => string };
    metrics?: Metrics;
  },
): Promise<TopUpOrderRow> {
  const quote = quoteCnyTopUp(args.amountFen, args.rules);
  // the caps are counted and the order inserted under a lock per account: requests sent at once
  // are counted one after the other (the provider is called after, with nothing held)
  const order = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`topup-orders:${args.accountId}`}))`);
    return insertWithinCaps(tx, provider.name, args, quote);
  });
  let target: { qrCode: string } | { payUrl: string };
  try {
    const placed = {
      id: order.id,
      amountFen: args.amountFen,
      subject: topUpSubject(args.amountFen),
      expiresAt: order.expiresAt,
      notifyUrl: `${args.notifyBaseUrl}/payments/${provider.name}/notify`,
    };
    target = args.mobile
      ? await provider.createMobilePayment({
          ...placed,
          payerIp: args.mobile.payerIp,
          returnUrl: args.mobile.returnUrl(order.id),
        })
      : await provider.createQr(placed);
  } catch (err) {
    await closeTopUpOrder(db, order.id, 'closed');
    args.metrics?.topUpOrders.inc({ provider: provider.name, outcome: 'closed' });
    throw new TopUpOrderRefusedError(provider.name, order.id, { cause: err });
  }
  const saved = (await setTopUpPaymentTarget(db, order.id, target)) ?? order;
  args.metrics?.topUpOrders.inc({ provider: provider.name, outcome: 'created' });
  return saved;
}

/** The account's caps on open orders and on orders per hour checked, then the order inserted. */
async function insertWithinCaps(
  db: DbOrTx,
  providerName: string,
  args: { accountId: string; amountFen: number; ttlSeconds: number; maxOpen: number; maxPerHour: number },
  quote: ReturnType<typeof quoteCnyTopUp>,
): Promise<TopUpOrderRow> {
  const open = await openTopUpOrders(db, args.accountId);
  if (open.count >= args.maxOpen) {
    const wait = Math.ceil(((open.firstExpiresAt?.getTime() ?? Date.now()) - Date.now()) / 1000);
    throw new TooManyOpenTopUpsError(open.count, Math.max(1, wait));
  }
  const recent = await unpaidTopUpOrdersCreatedSince(db, args.accountId, new Date(Date.now() - HOUR_MS));
  if (recent.count >= args.maxPerHour) {
    const leaves = (recent.firstCreatedAt?.getTime() ?? Date.now()) + HOUR_MS;
    throw new TooManyTopUpsPerHourError(recent.count, Math.max(1, Math.ceil((leaves - Date.now()) / 1000)));
  }
  return insertTopUpOrder(db, {
    id: newTopUpOrderId(),
    accountId: args.accountId,
    provider: providerName,
    amountFen: args.amountFen,
    ...quote,
    expiresAt: new Date(Date.now() + args.ttlSeconds * 1000),
  });
}

/** What a reported payment did to its order. */
export type TopUpPaymentOutcome = 'credited' | 'unchanged' | 'mismatch';

/**
 * The one rule for a payment a provider reports on an order, from its notification or a query
 * alike. Paid with the order's amount: credited, once (creditTopUpOrder). Paid with another
 * amount (money the provider really took, the report being verified): never credited; the order
 * moves to `paid`, leaves the reconciler's sweep and waits for an operator, and the report is
 * accepted (a notification is acknowledged: sending it again cannot change the amount).
 * `amountFen` unknown (a query that does not say) counts as the order's. An order with refunds
 * recorded before it was credited is held the same way (crediting all of it would undo them).
 */
export async function settleTopUpPayment(
  db: DbOrTx,
  order: TopUpOrderRow,
  payment: { amountFen?: number; tradeId?: string; paidAt?: Date; raw?: unknown },
  opts: { logger?: Logger; metrics?: Metrics; via: 'notification' | 'query' },
): Promise<TopUpPaymentOutcome> {
  // another amount, or a payment the provider has already (in part) refunded: held for an operator
  if ((payment.amountFen !== undefined && payment.amountFen !== order.amountFen) || order.refundedFen > 0) {
    const moved = await markTopUpOrderPaid(db, {
      orderId: order.id,
      tradeId: payment.tradeId,
      paidAt: payment.paidAt,
    });
    if (!moved) return 'unchanged';
    opts.logger?.error(
      { orderId: order.id, expectedFen: order.amountFen, paidFen: payment.amountFen, via: opts.via },
      'top-up paid with another amount: marked paid, not credited, needs an operator',
    );
    opts.metrics?.topUpOrders.inc({ provider: order.provider, outcome: 'amount_mismatch' });
    return 'mismatch';
  }
  const r = await creditTopUpOrder(db, {
    orderId: order.id,
    tradeId: payment.tradeId,
    paidAt: payment.paidAt,
    raw: payment.raw,
  });
  if (!r?.credited) return 'unchanged';
  opts.metrics?.topUpOrders.inc({ provider: order.provider, outcome: 'credited' });
  return 'credited';
}
