import { createHash } from 'node:crypto';
import { and, asc, count, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { bankTransferReferences, payments, type TopUpOrderRow, topupOrders } from '../db/schema';
import { creditAccount } from './ledger';
import { type TopUpPolicy, TopUpTooSmallError, topUpBonus } from './topups';

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
  const creditMicroUsd = Math.floor((amountFen * 10_000) / rules.cnyPerUsd);
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

export async function setTopUpQrCode(
  db: DbOrTx,
  id: string,
  qrCode: string,
): Promise<TopUpOrderRow | undefined> {
  const [row] = await db
    .update(topupOrders)
    .set({ qrCode, updatedAt: new Date() })
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
 * Credits a paid order, exactly once: in one transaction the order moves to `paid` (a
 * compare-and-set from `created`, `expired` or `closed`: money the provider took is always
 * credited), the payment row and the `topup` and `bonus` ledger entries are written (both unique
 * per order), and the order moves to `credited`. A concurrent or repeated call finds the order
 * no longer in those states and returns `credited: false`. The caller has checked the provider,
 * the amount and the merchant against the order.
 */
export async function creditTopUpOrder(
  db: Db,
  args: { orderId: string; tradeId?: string; paidAt?: Date; raw?: unknown },
): Promise<CreditOrderResult | undefined> {
  return db.transaction(async (tx) => {
    const now = new Date();
    const [paid] = await tx
      .update(topupOrders)
      .set({
        status: 'paid',
        providerTradeId: args.tradeId ?? sql`${topupOrders.providerTradeId}`,
        paidAt: args.paidAt && !Number.isNaN(args.paidAt.getTime()) ? args.paidAt : now,
        updatedAt: now,
      })
      .where(
        and(eq(topupOrders.id, args.orderId), inArray(topupOrders.status, ['created', 'expired', 'closed'])),
      )
      .returning();
    if (!paid) {
      const order = await getTopUpOrder(tx, args.orderId);
      return order ? { credited: false, order } : undefined;
    }
    const ref = `${paid.provider}:${paid.id}`;
    await tx.insert(payments).values({
      accountId: paid.accountId,
      provider: paid.provider,
      reference: paid.id,
      amountMicroUsd: paid.creditMicroUsd,
      bonusMicroUsd: paid.bonusMicroUsd,
      note: `${paid.amountFen / 100} CNY, trade ${paid.providerTradeId ?? 'unknown'}`,
      raw: args.raw ?? null,
    });
    await creditAccount(tx, {
      accountId: paid.accountId,
      amountMicroUsd: paid.creditMicroUsd,
      kind: 'topup',
      ref,
      reason: `top-up of ${paid.amountFen / 100} CNY via ${paid.provider}`,
    });
    await creditAccount(tx, {
      accountId: paid.accountId,
      amountMicroUsd: paid.bonusMicroUsd,
      kind: 'bonus',
      ref,
      reason: `bonus on a top-up of ${paid.amountFen / 100} CNY`,
    });
    const [credited] = await tx
      .update(topupOrders)
      .set({ status: 'credited', creditedAt: now, updatedAt: now })
      .where(eq(topupOrders.id, paid.id))
      .returning();
    return { credited: true, order: credited! };
  });
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

/** Orders still waiting for payment that were created before `createdBefore`, oldest first. */
export async function listOpenTopUpOrders(
  db: DbOrTx,
  createdBefore: Date,
  limit: number,
): Promise<TopUpOrderRow[]> {
  return db
    .select()
    .from(topupOrders)
    .where(and(eq(topupOrders.status, 'created'), lt(topupOrders.createdAt, createdBefore)))
    .orderBy(topupOrders.createdAt)
    .limit(limit);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The account's bank-transfer reference, for the transfer memo: `MG` + 10 Crockford base32
 * characters of SHA-256 of the account id (stable, derived, never stored; 50 bits).
 */
export function bankTransferReference(accountId: string): string {
  const digest = createHash('sha256').update(`mediagate-transfer:${accountId}`).digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 7)) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 10; i += 1) out += CROCKFORD[Number((bits >> BigInt(56 - 5 * (i + 1))) & 31n)];
  return `MG${out}`;
}

/** The account's transfer reference, stored (once) so findAccountByTransferReference finds it. */
export async function ensureBankTransferReference(db: DbOrTx, accountId: string): Promise<string> {
  const reference = bankTransferReference(accountId);
  await db.insert(bankTransferReferences).values({ reference, accountId }).onConflictDoNothing();
  return reference;
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
