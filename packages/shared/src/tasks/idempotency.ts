import { createHash } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { idempotencyKeys } from '../db/schema';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

export interface IdempotencyClaim {
  key: string;
  requestHash: string;
}

/** A key reused with another body: the caller answers 409. */
export class IdempotencyMismatchError extends Error {
  constructor() {
    super('This Idempotency-Key was already used with a different request body.');
    this.name = 'IdempotencyMismatchError';
  }
}

/** The same key is being used by a request that has not finished yet: the caller may retry. */
export class IdempotencyInFlightError extends Error {
  constructor(readonly taskId: string) {
    super('A request with this Idempotency-Key is still being processed.');
    this.name = 'IdempotencyInFlightError';
  }
}

/** SHA-256 of a value's canonical JSON (object keys sorted), so key order does not matter. */
export function requestHash(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)))
    .digest('hex');
}

/**
 * The task an earlier request with this key created, within the 24-hour window. Throws
 * IdempotencyMismatchError when that request had another body. Null when the key is new.
 */
export async function findIdempotentTask(
  db: DbOrTx,
  accountId: string,
  claim: IdempotencyClaim,
): Promise<string | null> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.accountId, accountId),
        eq(idempotencyKeys.key, claim.key),
        sql`${idempotencyKeys.createdAt} > now() - make_interval(secs => ${IDEMPOTENCY_WINDOW_MS / 1000})`,
      ),
    )
    .limit(1);
  if (!row) return null;
  if (row.requestHash !== claim.requestHash) throw new IdempotencyMismatchError();
  return row.taskId;
}

/**
 * Records the key for `taskId` inside the creating transaction. An expired row of the same key
 * is replaced. When another transaction holds the key (a concurrent request), Postgres makes this
 * insert wait for it; if that one committed, this throws (IdempotencyMismatchError for another
 * body, else IdempotencyInFlightError naming the winner's task) and the caller's transaction,
 * charge included, rolls back.
 */
export async function claimIdempotencyKey(
  tx: DbOrTx,
  accountId: string,
  claim: IdempotencyClaim,
  taskId: string,
): Promise<void> {
  await tx
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.accountId, accountId),
        eq(idempotencyKeys.key, claim.key),
        sql`${idempotencyKeys.createdAt} <= now() - make_interval(secs => ${IDEMPOTENCY_WINDOW_MS / 1000})`,
      ),
    );
  const inserted = await tx
    .insert(idempotencyKeys)
    .values({ accountId, key: claim.key, requestHash: claim.requestHash, taskId })
    .onConflictDoNothing()
    .returning({ taskId: idempotencyKeys.taskId });
  if (inserted.length > 0) return;
  const winner = await findIdempotentTask(tx, accountId, claim);
  throw new IdempotencyInFlightError(winner ?? '');
}

/** Deletes keys older than the window. Returns how many. */
export async function deleteExpiredIdempotencyKeys(db: DbOrTx): Promise<number> {
  const rows = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS)))
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}
