import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db } from '../db/client';
import { type CallRefundDetails, usageRecords } from '../db/schema';
import { sqlTemplate } from '../db/template';
import { refundCall } from './ledger';

/** The marks of calls settled, those not settled yet (the first settlement of a call wins). */
const markSettled = sqlTemplate<{ refs: string[]; accountIds: string[] }>(
  (p) => sql`update usage_records u set settled_at = now()
    from unnest(${p.refs}::text[], ${p.accountIds}::text[]) as s(ref, account_id)
    where u.ref = s.ref and u.account_id = s.account_id and u.settled_at is null
    returning u.ref`,
);

/** the most calls one mark statement settles */
const MAX_MARKS = 500;

/**
 * The marks of calls settled with nothing to refund, for one database: a call marks at once when
 * no mark is on its way, else it waits for that one and goes with every call that ended meanwhile,
 * in one statement (a group commit: at 300 calls a second one statement marks many calls, and
 * alone a call waits for nobody). Each call hears whether its mark applied.
 */
class SettlementMarks {
  private waiting: Array<{
    accountId: string;
    ref: string;
    resolve: (settled: boolean) => void;
    reject: (err: unknown) => void;
  }> = [];
  private running = false;

  constructor(private readonly db: Db) {}

  mark(accountId: string, ref: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ accountId, ref, resolve, reject });
      if (!this.running) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_MARKS);
        // a call marked twice in one batch: the first mark is the one that may apply
        const first = new Map<string, (typeof batch)[number]>();
        for (const b of batch) if (!first.has(b.ref)) first.set(b.ref, b);
        try {
          const { rows } = await markSettled<{ ref: string }>(this.db, {
            refs: [...first.values()].map((b) => b.ref),
            accountIds: [...first.values()].map((b) => b.accountId),
          });
          const marked = new Set(rows.map((r) => r.ref));
          for (const b of batch) b.resolve(first.get(b.ref) === b && marked.has(b.ref));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}

const settlementMarks = new WeakMap<Db, SettlementMarks>();
const marksOf = (db: Db): SettlementMarks => {
  let marks = settlementMarks.get(db);
  if (!marks) {
    marks = new SettlementMarks(db);
    settlementMarks.set(db, marks);
  }
  return marks;
};

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
  args: {
    accountId: string;
    ref: string;
    refundMicroUsd: number | 'all';
    reason?: string;
    details?: CallRefundDetails;
  },
): Promise<Settlement> {
  if (args.refundMicroUsd !== 'all' && args.refundMicroUsd <= 0) {
    // nothing to give back (every image delivered, the common case): the mark alone, one
    // statement on its own (no transaction to open and commit), shared with the calls that end
    // while another mark is on its way (see SettlementMarks)
    return { settled: await marksOf(db).mark(args.accountId, args.ref), refundedMicroUsd: 0 };
  }
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(usageRecords)
      .set({ settledAt: sql`now()` })
      .where(
        and(
          eq(usageRecords.ref, args.ref),
          eq(usageRecords.accountId, args.accountId),
          isNull(usageRecords.settledAt),
        ),
      )
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
        details: args.details,
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
  const afterS = Math.round(opts.olderThanMs / 1000);
  const reason = `not settled within ${afterS} s (the call's process ended or its settlement failed); its result never reached the client`;
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
          details: { cause: 'unsettled', after_s: afterS },
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
