import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db } from '../db/client';
import { usageRecords } from '../db/schema';
import { sqlTemplate } from '../db/template';
import { refundCall } from './ledger';

/** The mark of a call settled, when it is not yet (the first settlement wins). */
const markSettled = sqlTemplate<{ ref: string; accountId: string }>(
  (p) => sql`update usage_records set settled_at = now()
    where ref = ${p.ref} and account_id = ${p.accountId} and settled_at is null
    returning id`,
);

/** What a settlement did: whether this caller settled the call, and what it gave back. */
export interface Settlement {
  /** false when the call was already settled (by the call itself or by the sweep): nothing changed */
  settled: boolean;
  refundedMicroUsd: number;
}

/**
 * Settles a call charged with `settlesLater` (an image call), in one transaction (one statement
 * when nothing is refunded): marks its usage record settled and refunds `refundMicroUsd` of it (`'all'`: whatever of its cost is not refunded
 * yet). The first settlement of a call wins: the mark is a conditional update (`settled_at is null`)
 * that holds the row lock until commit, so a concurrent or later settlement (the call's own after
 * the sweep's, or the reverse) finds the call settled and changes nothing. Idempotent; throws only
 * when the database does (then nothing is written, and the sweep settles the call later).
 */
export async function settleImageCall(
  db: Db,
  args: { accountId: string; ref: string; refundMicroUsd: number | 'all'; reason?: string },
): Promise<Settlement> {
  const settled = and(
    eq(usageRecords.ref, args.ref),
    eq(usageRecords.accountId, args.accountId),
    isNull(usageRecords.settledAt),
  );
  if (args.refundMicroUsd !== 'all' && args.refundMicroUsd <= 0) {
    // nothing to give back (every image delivered, the common case): the mark alone, one
    // statement on its own (no transaction to open and commit), rendered once
    const { rows } = await markSettled(db, { ref: args.ref, accountId: args.accountId });
    return { settled: rows.length > 0, refundedMicroUsd: 0 };
  }
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(usageRecords)
      .set({ settledAt: sql`now()` })
      .where(settled)
      .returning({ cost: usageRecords.costMicroUsd, refunded: usageRecords.refundedMicroUsd });
    if (!row) return { settled: false, refundedMicroUsd: 0 };
    const open = Math.max(0, row.cost - row.refunded);
    const amount = args.refundMicroUsd === 'all' ? open : Math.min(Math.max(0, args.refundMicroUsd), open);
    const applied =
      amount > 0 &&
      (await refundCall(tx, {
        accountId: args.accountId,
        amountMicroUsd: amount,
        ref: args.ref,
        reason: args.reason,
      }));
    return { settled: true, refundedMicroUsd: applied ? amount : 0 };
  });
}

/** One call the sweep settled. */
export interface SweptCall {
  ref: string;
  accountId: string;
  refundedMicroUsd: number;
}

/**
 * Settles every call left unsettled for longer than `olderThanMs` (by the database clock): its
 * process died between charge and settlement, or its settlement failed, so its result never
 * reached the client and it is refunded in full. Calls younger than that may still be running and
 * are not touched. Each call settles in its own transaction through settleImageCall, so running
 * the sweep twice, or in several processes at once, refunds each call once; a call whose own
 * settlement lands first keeps it. A call that cannot be settled now is logged and left to the
 * next sweep. Returns the calls this sweep settled.
 */
export async function sweepUnsettledImageCalls(
  db: Db,
  opts: { olderThanMs: number; batchSize?: number; log?: Logger },
): Promise<SweptCall[]> {
  const batchSize = opts.batchSize ?? 500;
  const swept: SweptCall[] = [];
  const reason = `not settled within ${Math.round(opts.olderThanMs / 1000)} s (the call's process ended or its settlement failed); its result never reached the client`;
  let afterId = 0;
  for (;;) {
    const batch = await db
      .select({ id: usageRecords.id, ref: usageRecords.ref, accountId: usageRecords.accountId })
      .from(usageRecords)
      .where(
        and(
          isNull(usageRecords.settledAt),
          sql`${usageRecords.createdAt} < now() - ${opts.olderThanMs} * interval '1 millisecond'`,
          gt(usageRecords.id, afterId),
        ),
      )
      .orderBy(asc(usageRecords.id))
      .limit(batchSize);
    for (const call of batch) {
      try {
        const done = await settleImageCall(db, {
          accountId: call.accountId,
          ref: call.ref,
          refundMicroUsd: 'all',
          reason,
        });
        if (!done.settled) continue;
        swept.push({ ref: call.ref, accountId: call.accountId, refundedMicroUsd: done.refundedMicroUsd });
        opts.log?.warn(
          { ref: call.ref, accountId: call.accountId, refundedMicroUsd: done.refundedMicroUsd },
          'unsettled image call refunded in full by the sweep',
        );
      } catch (err) {
        opts.log?.error(
          { err, ref: call.ref },
          'could not settle an unsettled image call; the next sweep retries',
        );
      }
    }
    if (batch.length < batchSize) break;
    afterId = batch[batch.length - 1]!.id;
  }
  return swept;
}
