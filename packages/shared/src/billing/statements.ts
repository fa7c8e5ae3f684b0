import { and, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { apiKeys, ledgerEntries, tasks, usageRecords } from '../db/schema';
import { sqlTemplate } from '../db/template';

/** A page of rows, newest first, and the cursor of the next (older) page. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  /** pass as `before` to get the next page; null on the last page */
  nextCursor: string | null;
}

function toPage<T extends { id: number }>(rows: T[], limit: number): Page<T> {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  return { data, hasMore, nextCursor: hasMore ? String(data[data.length - 1]!.id) : null };
}

export type LedgerKind = (typeof ledgerEntries.kind.enumValues)[number];

/**
 * The account's ledger, newest first, keyset-paged by entry id (`before` = a previous nextCursor);
 * only entries of `kind` when given. A charge or a refund of a call carries the call's model and
 * units from its usage record (same ref), which the charge statement does not copy.
 */
export async function listLedger(
  db: DbOrTx,
  accountId: string,
  opts: { limit: number; before?: number; kind?: LedgerKind },
) {
  const rows = await db
    .select({
      id: ledgerEntries.id,
      kind: ledgerEntries.kind,
      amountMicroUsd: ledgerEntries.amountMicroUsd,
      ref: ledgerEntries.ref,
      reason: ledgerEntries.reason,
      details: ledgerEntries.details,
      model: usageRecords.model,
      units: usageRecords.units,
      createdAt: ledgerEntries.createdAt,
    })
    .from(ledgerEntries)
    .leftJoin(
      usageRecords,
      and(
        inArray(ledgerEntries.kind, ['charge', 'refund']),
        eq(usageRecords.ref, ledgerEntries.ref),
        eq(usageRecords.accountId, ledgerEntries.accountId),
      ),
    )
    .where(
      and(
        eq(ledgerEntries.accountId, accountId),
        opts.kind !== undefined ? eq(ledgerEntries.kind, opts.kind) : undefined,
        opts.before !== undefined ? lt(ledgerEntries.id, opts.before) : undefined,
      ),
    )
    .orderBy(desc(ledgerEntries.id))
    .limit(opts.limit + 1);
  return toPage(rows, opts.limit);
}

/**
 * The account's billed calls, newest first, keyset-paged by record id. A video task's outcome
 * is its task's status (pending, processing, succeeded, failed); an image call's is `succeeded`,
 * `partial` (some images refunded) or `failed` (all refunded). Only calls of `model` when given.
 */
export async function listUsage(
  db: DbOrTx,
  accountId: string,
  opts: { limit: number; before?: number; model?: string },
) {
  const rows = await db
    .select({
      id: usageRecords.id,
      ref: usageRecords.ref,
      apiKeyId: usageRecords.apiKeyId,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.displayPrefix,
      model: usageRecords.model,
      units: usageRecords.units,
      costMicroUsd: usageRecords.costMicroUsd,
      refundedMicroUsd: usageRecords.refundedMicroUsd,
      outcome: sql<string>`coalesce(${tasks.status}, ${usageRecords.outcome})`,
      latencyMs: usageRecords.latencyMs,
      createdAt: usageRecords.createdAt,
      /** a video task's row: its task, from its start to its end (null until both happened) */
      taskId: tasks.id,
      taskStartedAt: tasks.startedAt,
      taskCompletedAt: tasks.completedAt,
    })
    .from(usageRecords)
    .leftJoin(apiKeys, eq(apiKeys.id, usageRecords.apiKeyId))
    .leftJoin(tasks, eq(tasks.id, usageRecords.ref))
    .where(
      and(
        eq(usageRecords.accountId, accountId),
        opts.model !== undefined ? eq(usageRecords.model, opts.model) : undefined,
        opts.before !== undefined ? lt(usageRecords.id, opts.before) : undefined,
      ),
    )
    .orderBy(desc(usageRecords.id))
    .limit(opts.limit + 1);
  return toPage(rows, opts.limit);
}

export interface DailySpend {
  /** the day, YYYY-MM-DD, in the requested time zone */
  day: string;
  model: string | null;
  calls: number;
  /** charged minus refunded */
  spentMicroUsd: number;
}

/**
 * The account's spend per day and model since `since` (charged minus refunded, by the day the call
 * was made in `timeZone`, an IANA name the caller has checked), in one grouped query over the
 * account's usage index. Days without calls are absent.
 */
export async function spendByDayAndModel(
  db: DbOrTx,
  accountId: string,
  opts: { since: Date; timeZone: string },
): Promise<DailySpend[]> {
  const day = sql<string>`to_char(${usageRecords.createdAt} at time zone ${opts.timeZone}, 'YYYY-MM-DD')`;
  const rows = await db
    .select({
      day,
      model: usageRecords.model,
      calls: sql<number>`count(*)::int`,
      spentMicroUsd: sql<string>`sum(${usageRecords.costMicroUsd} - ${usageRecords.refundedMicroUsd})`,
    })
    .from(usageRecords)
    .where(and(eq(usageRecords.accountId, accountId), gte(usageRecords.createdAt, opts.since)))
    // by position: the time zone is a bound parameter, so the day expression cannot be repeated
    .groupBy(sql`1`, usageRecords.model)
    .orderBy(sql`1`, usageRecords.model);
  return rows.map((r) => ({ ...r, spentMicroUsd: Number(r.spentMicroUsd) }));
}

export interface FinishedCall {
  accountId: string;
  requestId: string;
  latencyMs: number;
  ok: boolean;
}

/**
 * Records how the HTTP answer of a billed call went: its latency, and `succeeded` for a call
 * still marked `accepted` that was answered with a 2xx (refunds have already marked partial or
 * failed calls). Only the usage records of that request and account are touched; safe to call
 * for a request that billed nothing.
 */
export async function finishUsage(db: DbOrTx, call: FinishedCall): Promise<void> {
  await finishUsageBatch(db, [call]);
}

/**
 * finishUsage for many calls in one statement, each call found through the request index. The
 * calls arrive as parallel arrays (`unnest`), which the planner counts as a few rows (a JSON record
 * set counts as 100, and a table of a few thousand rows was scanned whole on every batch). The
 * account is compared with `is not distinct from`, which no index serves: before the table's first
 * statistics the planner otherwise also scanned the account index, every row of the account.
 */
export async function finishUsageBatch(db: DbOrTx, calls: readonly FinishedCall[]): Promise<void> {
  if (calls.length === 0) return;
  await finishUsageStatement(db, {
    requestIds: calls.map((c) => c.requestId),
    accountIds: calls.map((c) => c.accountId),
    latencies: calls.map((c) => Math.max(0, Math.min(Math.round(c.latencyMs), 2_147_483_647))),
    oks: calls.map((c) => c.ok),
  });
}

/** finishUsageBatch's statement, rendered once (the API runs it after every batch of calls). */
const finishUsageStatement = sqlTemplate<{
  requestIds: string[];
  accountIds: Array<string | null>;
  latencies: number[];
  oks: boolean[];
}>(
  (p) => sql`
    update usage_records u
    set latency_ms = v.latency_ms,
        outcome = case when v.ok and u.outcome = 'accepted' then 'succeeded' else u.outcome end
    from unnest(${p.requestIds}::text[], ${p.accountIds}::text[], ${p.latencies}::int[], ${p.oks}::boolean[])
      as v(request_id, account_id, latency_ms, ok)
    where u.request_id = v.request_id and u.account_id is not distinct from v.account_id`,
);

/** the most calls one usage statement writes */
const MAX_USAGE_BATCH = 500;

/**
 * Writes finished calls in batches: a call recorded while a write is under way joins the next one,
 * so a busy API issues one statement per batch instead of one per call. With `lingerMs`, the first
 * call of a batch also waits that long for others to join (the write happens after the answer has
 * gone out, so nobody waits for it): one statement carries every call of the interval, where
 * without it a call every 10 ms is one statement each. A batch of MAX_USAGE_BATCH calls is written
 * at once; `drain` writes whatever waits at once.
 */
export function createUsageRecorder(
  db: DbOrTx,
  onError: (err: unknown) => void,
  opts: { lingerMs?: number } = {},
) {
  const lingerMs = opts.lingerMs ?? 0;
  let pending: FinishedCall[] = [];
  let running: Promise<void> | null = null;
  let lingering: NodeJS.Timeout | null = null;
  const run = async () => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      for (let i = 0; i < batch.length; i += MAX_USAGE_BATCH) {
        await finishUsageBatch(db, batch.slice(i, i + MAX_USAGE_BATCH)).catch(onError);
      }
    }
    running = null;
  };
  const write = () => {
    if (lingering) clearTimeout(lingering);
    lingering = null;
    running ??= run();
  };
  return {
    record(call: FinishedCall): void {
      pending.push(call);
      if (running) return; // written by the run under way, once its current statement is done
      if (lingerMs <= 0 || pending.length >= MAX_USAGE_BATCH) write();
      else lingering ??= setTimeout(write, lingerMs);
    },
    /** Resolves once every call recorded so far is written (or its write failed), without lingering. */
    async drain(): Promise<void> {
      if (pending.length > 0 && !running) write();
      while (running) await running;
    },
  };
}

export type UsageRecorder = ReturnType<typeof createUsageRecorder>;
