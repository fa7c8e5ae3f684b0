import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { recordOperatorAction } from '../audit/log';
import type { Db, DbOrTx } from '../db/client';
import {
  accounts,
  ledgerEntries,
  type TopUpOrderRow,
  type TopUpRefundRow,
  topupOrders,
  topupRefunds,
} from '../db/schema';
import { newTopUpRefundId } from '../ids';

/** An order can be refunded once the provider took its money: credited, or held `paid`. */
const REFUNDABLE_STATUSES: ReadonlyArray<TopUpOrderRow['status']> = ['credited', 'paid'];

/** The order cannot be refunded (not paid) or not by that much; nothing was written. */
export class TopUpRefundRefusedError extends Error {
  constructor(
    message: string,
    readonly reason: 'not_paid' | 'exceeds',
    /** what can still be refunded, in fen (paid minus refunded minus refunds under way) */
    readonly refundableFen: number,
  ) {
    super(message);
    this.name = 'TopUpRefundRefusedError';
  }
}

/**
 * The credit a refund of `refundedFen` (cumulative, of the order's `amountFen`) takes back: the
 * refunded share of the order's credit and bonus, floor((credit + bonus) * refunded / paid), in
 * exact integer arithmetic. A refund's due is share(refunded after) - share(refunded before), so
 * the refunds of an order add up to exactly its credit and bonus when all of it is refunded.
 */
export function refundedShareMicroUsd(
  order: Pick<TopUpOrderRow, 'amountFen' | 'creditMicroUsd' | 'bonusMicroUsd'>,
  refundedFen: number,
): number {
  const total = BigInt(order.creditMicroUsd) + BigInt(order.bonusMicroUsd);
  return Number((total * BigInt(refundedFen)) / BigInt(order.amountFen));
}

/**
 * What can still be refunded of an order: paid minus succeeded refunds minus pending and held ones.
 * A held refund was reported refunded by the provider but not counted in `refundedFen`; leaving it
 * out would offer its money again. Negative when the held refunds exceed what was paid.
 */
async function refundableFen(tx: DbOrTx, order: TopUpOrderRow): Promise<number> {
  const [taken] = await tx
    .select({ fen: sql<string>`coalesce(sum(${topupRefunds.amountFen}), 0)::text` })
    .from(topupRefunds)
    .where(and(eq(topupRefunds.orderId, order.id), inArray(topupRefunds.status, ['pending', 'held'])));
  return order.amountFen - order.refundedFen - Number(taken?.fen ?? 0);
}

async function lockOrder(tx: DbOrTx, orderId: string): Promise<TopUpOrderRow | undefined> {
  const [order] = await tx.select().from(topupOrders).where(eq(topupOrders.id, orderId)).for('update');
  return order;
}

/**
 * Records an operator's refund before it is sent to the provider: a `pending` row whose id is the
 * merchant refund number. Serialized per order (the order row is locked), so refunds placed at
 * once never add up past what was paid: throws TopUpRefundRefusedError when the order is not paid
 * or `amountFen` (default: all that is left) exceeds what is left. `inTransaction` runs in the
 * same transaction (the audit record).
 */
export async function reserveTopUpRefund(
  db: Db,
  args: {
    orderId: string;
    amountFen?: number;
    reason: string;
    operatorId: string;
    inTransaction?: (tx: DbOrTx, refund: TopUpRefundRow, order: TopUpOrderRow) => Promise<void>;
  },
): Promise<{ refund: TopUpRefundRow; order: TopUpOrderRow } | undefined> {
  return db.transaction(async (tx) => {
    const order = await lockOrder(tx, args.orderId);
    if (!order) return undefined;
    const left = REFUNDABLE_STATUSES.includes(order.status) ? await refundableFen(tx, order) : 0;
    if (!REFUNDABLE_STATUSES.includes(order.status)) {
      throw new TopUpRefundRefusedError(
        `Top-up ${order.id} is ${order.status}: only a paid top-up can be refunded.`,
        'not_paid',
        0,
      );
    }
    const amountFen = args.amountFen ?? left;
    if (amountFen <= 0 || amountFen > left) {
      throw new TopUpRefundRefusedError(
        `Top-up ${order.id} has ${(Math.max(0, left) / 100).toFixed(2)} CNY left to refund (paid ${(order.amountFen / 100).toFixed(2)}, refunded ${(order.refundedFen / 100).toFixed(2)}${left + order.refundedFen < order.amountFen ? ', the rest in refunds under way or held' : ''}).`,
        'exceeds',
        Math.max(0, left),
      );
    }
    const id = newTopUpRefundId();
    const [refund] = await tx
      .insert(topupRefunds)
      .values({
        id,
        orderId: order.id,
        accountId: order.accountId,
        provider: order.provider,
        refundNo: id,
        origin: 'operator',
        status: 'pending',
        amountFen,
        reason: args.reason,
        operatorId: args.operatorId,
      })
      .returning();
    await args.inTransaction?.(tx, refund!, order);
    return { refund: refund!, order };
  });
}

/** What a refund's success did. */
export interface RefundSuccessResult {
  /**
   * applied: debited now (or recorded, for an order never credited); unchanged: it had succeeded
   * or been held before, nothing changed; held: more than is left of the payment was reported,
   * held for an operator, nothing debited
   */
  outcome: 'applied' | 'unchanged' | 'held';
  refund: TopUpRefundRow;
}

/**
 * A refund the provider reports done (its notification, its answer, a query), applied exactly
 * once per (order, refund number) in one transaction, the order row locked first, then the
 * account: the refund row moves to `succeeded` (inserted for a refund made in the merchant
 * portal; from `pending` or `failed` for an operator's: money the provider returned is taken back
 * whatever our side thought), the order's `refunded_fen` grows, and for a credited order the
 * refunded share of its credit (refundedShareMicroUsd) is debited, at most down to a balance of 0,
 * with a ledger row (kind `refund`, ref = the refund id); the rest is kept as
 * `uncovered_micro_usd`. An order not credited (held `paid`, or never credited) loses no credit.
 * A report that would make the refunds add up past what was paid is `held` for an operator:
 * recorded with what was reported (`failure`), nothing debited, `refunded_fen` unchanged; the
 * caller acknowledges it. An operator's refund that ends (succeeded or held) is audited in the
 * same transaction. Undefined for an unknown order; throws only when no amount is known.
 */
export async function succeedTopUpRefund(
  db: Db,
  args: {
    orderId: string;
    refundNo: string;
    /** what the provider refunded; absent: the amount recorded for the refund */
    amountFen?: number;
    providerRefundId?: string;
    succeededAt?: Date;
  },
): Promise<RefundSuccessResult | undefined> {
  return db.transaction(async (tx) => {
    const order = await lockOrder(tx, args.orderId);
    if (!order) return undefined;
    const [existing] = await tx
      .select()
      .from(topupRefunds)
      .where(and(eq(topupRefunds.orderId, order.id), eq(topupRefunds.refundNo, args.refundNo)))
      .for('update');
    if (existing?.status === 'succeeded' || existing?.status === 'held') {
      return { outcome: 'unchanged', refund: existing };
    }
    const amountFen = args.amountFen ?? existing?.amountFen;
    if (amountFen === undefined || !Number.isSafeInteger(amountFen) || amountFen <= 0) {
      throw new Error(`refund ${args.refundNo} of ${order.id}: no amount`);
    }
    const now = new Date();
    const refundedAfter = order.refundedFen + amountFen;
    const store = async (values: Partial<typeof topupRefunds.$inferInsert>) => {
      const [row] = existing
        ? await tx.update(topupRefunds).set(values).where(eq(topupRefunds.id, existing.id)).returning()
        : await tx
            .insert(topupRefunds)
            .values({
              id: newTopUpRefundId(),
              orderId: order.id,
              accountId: order.accountId,
              provider: order.provider,
              refundNo: args.refundNo,
              origin: 'provider',
              amountFen,
              ...values,
            })
            .returning();
      await auditRefundOutcome(tx, row!);
      return row!;
    };
    if (refundedAfter > order.amountFen) {
      // the rule cannot take back more than was paid: an operator finds out why (a payment of
      // another amount, a refund we never heard of) and settles it by hand
      const refund = await store({
        status: 'held',
        amountFen,
        debitMicroUsd: 0,
        uncoveredMicroUsd: 0,
        providerRefundId: args.providerRefundId ?? existing?.providerRefundId ?? null,
        failure: `held: the provider reports ${cny(amountFen)} refunded, ${cny(refundedAfter)} refunded in all of ${cny(order.amountFen)} paid; nothing was debited`,
        updatedAt: now,
      });
      return { outcome: 'held', refund };
    }
    const due =
      order.status === 'credited'
        ? refundedShareMicroUsd(order, refundedAfter) - refundedShareMicroUsd(order, order.refundedFen)
        : 0;
    let debit = 0;
    if (due > 0) {
      const [account] = await tx
        .select({ balance: accounts.balanceMicroUsd })
        .from(accounts)
        .where(eq(accounts.id, order.accountId))
        .for('update');
      debit = Math.min(due, Math.max(0, account?.balance ?? 0));
    }
    const succeededAt =
      args.succeededAt && !Number.isNaN(args.succeededAt.getTime()) ? args.succeededAt : now;
    const refund = await store({
      status: 'succeeded',
      amountFen,
      debitMicroUsd: debit,
      uncoveredMicroUsd: due - debit,
      providerRefundId: args.providerRefundId ?? existing?.providerRefundId ?? null,
      failure: null,
      succeededAt,
      updatedAt: now,
    });
    if (debit > 0) {
      await tx.insert(ledgerEntries).values({
        accountId: order.accountId,
        kind: 'refund',
        amountMicroUsd: -debit,
        ref: refund.id,
        reason: `refund of ${cny(amountFen)} of a top-up of ${cny(order.amountFen)} via ${order.provider}`,
        details: {
          cause: 'topup_refund',
          provider: order.provider,
          order_id: order.id,
          refund_fen: amountFen,
          topup_fen: order.amountFen,
        },
      });
      await tx
        .update(accounts)
        .set({ balanceMicroUsd: sql`${accounts.balanceMicroUsd} - ${debit}`, updatedAt: now })
        .where(eq(accounts.id, order.accountId));
    }
    await tx
      .update(topupOrders)
      .set({ refundedFen: refundedAfter, updatedAt: now })
      .where(eq(topupOrders.id, order.id));
    return { outcome: 'applied', refund };
  });
}

/**
 * The end of an operator's refund (succeeded, failed, held) in the audit log, beside the entry of
 * its request: the operator who asked for it, what the provider did and what it took back. A
 * refund made in the merchant portal has no operator here and is not audited.
 */
async function auditRefundOutcome(tx: DbOrTx, refund: TopUpRefundRow): Promise<void> {
  if (refund.origin !== 'operator' || !refund.operatorId) return;
  const [operator] = await tx
    .select({ email: accounts.email })
    .from(accounts)
    .where(eq(accounts.id, refund.operatorId));
  await recordOperatorAction(
    tx,
    { operatorId: refund.operatorId, operatorEmail: operator?.email ?? '' },
    {
      action: 'topup.refund_outcome',
      accountId: refund.accountId,
      targetType: 'topup',
      targetId: refund.orderId,
      before: { refund_id: refund.id, status: 'pending' },
      after: {
        refund_id: refund.id,
        status: refund.status,
        amount_cny: refund.amountFen / 100,
        debit_micro_usd: refund.debitMicroUsd,
        uncovered_micro_usd: refund.uncoveredMicroUsd,
        failure: refund.failure,
      },
      reason: refund.reason,
    },
  );
}

const cny = (fen: number) => `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')} CNY`;

/**
 * The provider refused or closed a refund: `pending` moves to `failed` with its reason (the
 * balance untouched), audited for an operator's refund in the same transaction. False when it
 * was not pending (already succeeded, failed or held).
 */
export async function failTopUpRefund(db: DbOrTx, refundId: string, failure: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(topupRefunds)
      .set({ status: 'failed', failure: failure.slice(0, 500), updatedAt: new Date() })
      .where(and(eq(topupRefunds.id, refundId), eq(topupRefunds.status, 'pending')))
      .returning();
    if (!row) return false;
    await auditRefundOutcome(tx, row);
    return true;
  });
}

export async function getTopUpRefund(
  db: DbOrTx,
  where: { id: string } | { orderId: string; refundNo: string },
): Promise<TopUpRefundRow | undefined> {
  const [row] = await db
    .select()
    .from(topupRefunds)
    .where(
      'id' in where
        ? eq(topupRefunds.id, where.id)
        : and(eq(topupRefunds.orderId, where.orderId), eq(topupRefunds.refundNo, where.refundNo)),
    )
    .limit(1);
  return row;
}

/** Refunds in `status` (e.g. `held`, waiting for an operator), newest first. */
export async function listTopUpRefundsByStatus(
  db: DbOrTx,
  status: TopUpRefundRow['status'],
  limit: number,
): Promise<TopUpRefundRow[]> {
  return db
    .select()
    .from(topupRefunds)
    .where(eq(topupRefunds.status, status))
    .orderBy(desc(topupRefunds.updatedAt))
    .limit(limit);
}

/** Refunds still `pending` created before `createdBefore`, oldest first (the reconciler's sweep). */
export async function listPendingTopUpRefunds(
  db: DbOrTx,
  createdBefore: Date,
  limit: number,
): Promise<TopUpRefundRow[]> {
  return db
    .select()
    .from(topupRefunds)
    .where(and(eq(topupRefunds.status, 'pending'), lt(topupRefunds.createdAt, createdBefore)))
    .orderBy(asc(topupRefunds.createdAt))
    .limit(limit);
}

/** The refunds of these orders, oldest first. */
export async function listTopUpRefunds(db: DbOrTx, orderIds: string[]): Promise<TopUpRefundRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .select()
    .from(topupRefunds)
    .where(inArray(topupRefunds.orderId, orderIds))
    .orderBy(asc(topupRefunds.createdAt));
}
