import { createHash } from 'node:crypto';
import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNull,
  lt,
  min,
  notInArray,
  or,
  sql,
} from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { fromDriverRow } from '../db/driver-row';
import { bankTransferReferences, type TopUpOrderRow, topupOrders } from '../db/schema';
import { creditTopUpStatement, type TopUpPolicy, TopUpTooSmallError, topUpBonus } from './topups';

/** How a CNY amount becomes credit: the policy (in USD) and the rate. */
export interface CnyTopUpRules extends TopUpPolicy {
  /** CNY per USD (TOPUP_CNY_PER_USD): 35 CNY credits 7 USD at 5 */
  cnyPerUsd: number;
}

/** What `amountFen` credits and its bonus; throws TopUpTooSmallError below the minimum credit. */
export function quoteCnyTopUp(
  amountFen: number,
  rules: CnyTopUpRules,
): { creditMicroUsd: number; bonusMicroUsd: number } {
  // 1 fen = 10_000 micro-CNY; rounding down never credits more than was paid
  // (the epsilon absorbs binary fractions of rates like 7.2, so 50.40 CNY credits exactly 7 USD)
  const creditMicroUsd = Math.floor((amountFen * 10_000) / rules.cnyPerUsd + 1e-6);
  if (!Number.isSafeInteger(creditMicroUsd) || creditMicroUsd < rules.minMicroUsd) {
    throw new TopUpTooSmallError(rules.minMicroUsd);
  }
  return { creditMicroUsd, bonusMicroUsd: topUpBonus(creditMicroUsd, rules) };
}

export async function insertTopUpOrder(
  db: DbOrTx,
  order: {
    id: string;
    accountId: string;
    provider: string;
    amountFen: number;
    creditMicroUsd: number;
    bonusMicroUsd: number;
    expiresAt: Date;
  },
): Promise<TopUpOrderRow> {
  const [row] = await db.insert(topupOrders).values(order).returning();
  return row!;
}

/** Stores where the payer pays: the QR code's content, or the mobile pay URL. */
export async function setTopUpPaymentTarget(
  db: DbOrTx,
  id: string,
  target: { qrCode: string } | { payUrl: string },
): Promise<TopUpOrderRow | undefined> {
  const [row] = await db
    .update(topupOrders)
    .set({
      ...('payUrl' in target ? { payUrl: target.payUrl } : { qrCode: target.qrCode }),
      updatedAt: new Date(),
    })
    .where(eq(topupOrders.id, id))
    .returning();
  return row;
}

export async function getTopUpOrder(db: DbOrTx, id: string): Promise<TopUpOrderRow | undefined> {
  const [row] = await db.select().from(topupOrders).where(eq(topupOrders.id, id)).limit(1);
  return row;
}

/** The account's orders, newest first, keyset-paged by id (`before` = the last id of a page). */
export async function listTopUpOrders(
  db: DbOrTx,
  accountId: string,
  q: { limit: number; before?: string },
): Promise<{ data: TopUpOrderRow[]; hasMore: boolean; nextCursor: string | null }> {
  const rows = await db
    .select()
    .from(topupOrders)
    .where(
      q.before
        ? and(eq(topupOrders.accountId, accountId), lt(topupOrders.id, q.before))
        : eq(topupOrders.accountId, accountId),
    )
    .orderBy(desc(topupOrders.id))
    .limit(q.limit + 1);
  const hasMore = rows.length > q.limit;
  const data = rows.slice(0, q.limit);
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1]!.id : null };
}

export interface CreditOrderResult {
  /** false when the order was already credited (or cannot be): nothing changed */
  credited: boolean;
  order: TopUpOrderRow;
}

/**
 * Credits a paid order, exactly once, in one statement: the order moves to `credited` (a
 * compare-and-set from `created`, `expired`, `closed` or `cancelled`: money the provider took is credited
 * whatever our side decided meanwhile) with its trade id and payment time, the payment row and
 * the `topup` and `bonus` ledger entries are written (unique per order) and the balance raised.
 * Being paid and being credited commit together, so no reader sees an order `paid` on this path.
 * An order the provider already reports refunded (in part) is not credited here (settleTopUpPayment
 * holds it for an operator).
 * A concurrent or repeated call finds the order moved and returns `credited: false`. The caller
 * has checked the provider, the amount and the merchant against the order.
 */
export async function creditTopUpOrder(
  db: DbOrTx,
  args: { orderId: string; tradeId?: string; paidAt?: Date; raw?: unknown },
): Promise<CreditOrderResult | undefined> {
  const paidAt = args.paidAt && !Number.isNaN(args.paidAt.getTime()) ? args.paidAt : new Date();
  const { rows } = await db.execute<Record<string, unknown>>(
    creditTopUpStatement({
      before: sql`o as (
        update topup_orders
        set status = 'credited', provider_trade_id = coalesce(${args.tradeId ?? null}::text, provider_trade_id),
            paid_at = ${paidAt.toISOString()}::timestamptz, credited_at = now(), updated_at = now()
        where id = ${args.orderId} and status in ('created', 'expired', 'closed', 'cancelled') and refunded_fen = 0
        returning *
      )`,
      source: sql`select account_id, provider, id as reference, credit_micro_usd as amount_micro_usd,
          bonus_micro_usd,
          to_char(amount_fen / 100.0, 'FM999999999990.00') || ' CNY, trade ' || coalesce(provider_trade_id, 'unknown') as note,
          null::text as created_by,
          ${args.raw === undefined ? null : JSON.stringify(args.raw)}::jsonb as raw,
          to_char(amount_fen / 100.0, 'FM999999999990.00') || ' CNY' as paid
        from o`,
      select: sql`o.*`,
      from: sql`o`,
    }),
  );
  const row = rows[0];
  if (row) return { credited: true, order: fromDriverRow(topupOrders, row) };
  const order = await getTopUpOrder(db, args.orderId);
  return order ? { credited: false, order } : undefined;
}

/**
 * The provider took a payment that cannot be credited automatically (another amount): the order
 * moves to `paid` (from `created`, `expired`, `closed` or `cancelled`), leaves the reconciler's sweep and waits for an
 * operator. False if it had moved.
 */
export async function markTopUpOrderPaid(
  db: DbOrTx,
  args: { orderId: string; tradeId?: string; paidAt?: Date },
): Promise<boolean> {
  const now = new Date();
  const rows = await db
    .update(topupOrders)
    .set({
      status: 'paid',
      providerTradeId: args.tradeId ?? sql`${topupOrders.providerTradeId}`,
      paidAt: args.paidAt && !Number.isNaN(args.paidAt.getTime()) ? args.paidAt : now,
      updatedAt: now,
    })
    .where(
      and(
        eq(topupOrders.id, args.orderId),
        inArray(topupOrders.status, ['created', 'expired', 'closed', 'cancelled']),
      ),
    )
    .returning({ id: topupOrders.id });
  return rows.length > 0;
}

/**
 * Marks an unpaid order `closed` (refused at creation, or closed by the provider) or `expired`
 * (closed at the provider after its expiry). Compare-and-set from `created`; false if it moved.
 */
export async function closeTopUpOrder(
  db: DbOrTx,
  id: string,
  status: 'closed' | 'expired',
): Promise<boolean> {
  const now = new Date();
  const rows = await db
    .update(topupOrders)
    .set({ status, closedAt: now, updatedAt: now })
    .where(and(eq(topupOrders.id, id), eq(topupOrders.status, 'created')))
    .returning({ id: topupOrders.id });
  return rows.length > 0;
}

/** The account's orders still payable (created, not yet expired): how many, and when the first expires. */
export async function openTopUpOrders(
  db: DbOrTx,
  accountId: string,
): Promise<{ count: number; firstExpiresAt: Date | null }> {
  const where = and(
    eq(topupOrders.accountId, accountId),
    eq(topupOrders.status, 'created'),
    gt(topupOrders.expiresAt, new Date()),
  );
  const [n] = await db.select({ n: count() }).from(topupOrders).where(where);
  const [first] = await db
    .select({ expiresAt: topupOrders.expiresAt })
    .from(topupOrders)
    .where(where)
    .orderBy(asc(topupOrders.expiresAt))
    .limit(1);
  return { count: n?.n ?? 0, firstExpiresAt: first?.expiresAt ?? null };
}

/**
 * Orders that may still be paid, created before `createdBefore`, oldest first: those waiting for
 * payment, and those cancelled whose code was not yet known dead (`closed_at` null).
 */
export async function listOpenTopUpOrders(
  db: DbOrTx,
  createdBefore: Date,
  limit: number,
): Promise<TopUpOrderRow[]> {
  return db
    .select()
    .from(topupOrders)
    .where(
      and(
        or(
          eq(topupOrders.status, 'created'),
          and(eq(topupOrders.status, 'cancelled'), isNull(topupOrders.closedAt)),
        ),
        lt(topupOrders.createdAt, createdBefore),
      ),
    )
    .orderBy(topupOrders.createdAt)
    .limit(limit);
}

/**
 * The customer cancels an order still `created`: it moves to `cancelled` (compare-and-set; false
 * if it had moved). `codeDead`: the provider closed it, so `closed_at` is set and the reconciler
 * forgets it; otherwise its code may still be paid and the reconciler keeps asking
 * (markCancelledTopUpOrderDead ends that).
 */
export async function markTopUpOrderCancelled(
  db: DbOrTx,
  id: string,
  args: { codeDead: boolean },
): Promise<TopUpOrderRow | undefined> {
  const now = new Date();
  const [row] = await db
    .update(topupOrders)
    .set({ status: 'cancelled', cancelledAt: now, closedAt: args.codeDead ? now : null, updatedAt: now })
    .where(and(eq(topupOrders.id, id), eq(topupOrders.status, 'created')))
    .returning();
  return row;
}

/** A cancelled order's code can no longer be paid: `closed_at` is set. False if it was set or the order moved. */
export async function markCancelledTopUpOrderDead(db: DbOrTx, id: string): Promise<boolean> {
  const now = new Date();
  const rows = await db
    .update(topupOrders)
    .set({ closedAt: now, updatedAt: now })
    .where(and(eq(topupOrders.id, id), eq(topupOrders.status, 'cancelled'), isNull(topupOrders.closedAt)))
    .returning({ id: topupOrders.id });
  return rows.length > 0;
}

/**
 * Unpaid orders the account created since `since` (waiting, cancelled, expired or refused: each was
 * placed at the provider and came to nothing; paid ones do not count), and when the first of them
 * was created.
 */
export async function unpaidTopUpOrdersCreatedSince(
  db: DbOrTx,
  accountId: string,
  since: Date,
): Promise<{ count: number; firstCreatedAt: Date | null }> {
  const [row] = await db
    .select({ n: count(), first: min(topupOrders.createdAt) })
    .from(topupOrders)
    .where(
      and(
        eq(topupOrders.accountId, accountId),
        gte(topupOrders.createdAt, since),
        notInArray(topupOrders.status, ['paid', 'credited']),
      ),
    );
  return { count: row?.n ?? 0, firstCreatedAt: row?.first ?? null };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The account's bank-transfer reference, for the transfer memo: `MG` + 10 Crockford base32
 * characters of SHA-256 of the account id (stable, derived; 50 bits). The database stores it for
 * every account as the account is created (bank_transfer_reference() in the migrations computes
 * the same), so findAccountByTransferReference finds any account.
 */
export function bankTransferReference(accountId: string): string {
  const digest = createHash('sha256').update(`mediagate-transfer:${accountId}`).digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 7)) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 10; i += 1) out += CROCKFORD[Number((bits >> BigInt(56 - 5 * (i + 1))) & 31n)];
  return `MG${out}`;
}

/** The account whose transfer reference this is (case and spaces ignored), if it was ever shown. */
export async function findAccountByTransferReference(
  db: DbOrTx,
  reference: string,
): Promise<string | undefined> {
  const normalized = reference.replace(/[\s-]/g, '').toUpperCase();
  const [row] = await db
    .select({ accountId: bankTransferReferences.accountId })
    .from(bankTransferReferences)
    .where(eq(bankTransferReferences.reference, normalized))
    .limit(1);
  return row?.accountId;
}
