import { Readable } from 'node:stream';
import { and, asc, count, desc, eq, gt, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { type PlaygroundUploadRow, playgroundUploads } from '../db/schema';
import { randomBase62 } from '../ids';
import { STILL_IMAGE_TYPES, type StillImageType, stillImageType } from './sniff';
import { type MediaStorage, MediaTooLargeError, MediaTypeError } from './storage';

/** What a quota window is: uploads are counted over the last day. */
const QUOTA_WINDOW_MS = 24 * 3600 * 1000;

const EXTENSION: Record<StillImageType, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

/** The account has made as many uploads as it may within the quota window. */
export class UploadQuotaError extends Error {
  readonly code = 'upload_quota';
  constructor(
    readonly limit: number,
    /** when the oldest upload counted leaves the window */
    readonly retryAt: Date,
  ) {
    super(`at most ${limit} uploads a day`);
    this.name = 'UploadQuotaError';
  }
}

export interface UploadLimits {
  /** the largest file accepted */
  maxBytes: number;
  /** uploads an account may make within a day (deleted ones still count) */
  perDay: number;
  /** how long an upload is kept and served */
  lifetimeMs: number;
}

/** The public file name of an upload (`<id>.<ext>`), the last part of its URL. */
export const uploadFileName = (row: Pick<PlaygroundUploadRow, 'id' | 'contentType'>): string => {
  const type = (Object.keys(STILL_IMAGE_TYPES) as StillImageType[]).find(
    (t) => STILL_IMAGE_TYPES[t] === row.contentType,
  );
  return `${row.id}.${type ? EXTENSION[type] : 'bin'}`;
};

/**
 * Stores an image uploaded for the account: checks its type by its first bytes (PNG, JPEG or WebP,
 * else MediaTypeError) and its size (MediaTooLargeError), counts it against the account's daily
 * quota under a per-account lock (UploadQuotaError, nothing stored), records it, then stores the
 * bytes; a failed put removes the record, so it does not count. The id is 32 random base-62
 * characters: the URL it makes cannot be guessed.
 */
export async function storePlaygroundUpload(
  deps: { db: Db; storage: MediaStorage },
  accountId: string,
  body: Buffer,
  limits: UploadLimits,
): Promise<PlaygroundUploadRow> {
  const type = stillImageType(body.subarray(0, 16));
  if (!type) throw new MediaTypeError('the file is not a PNG, JPEG or WebP image');
  if (body.length > limits.maxBytes) throw new MediaTooLargeError(limits.maxBytes);
  const contentType = STILL_IMAGE_TYPES[type];
  const id = `upl_${randomBase62(32)}`;
  const storageKey = `uploads/${id}.${EXTENSION[type]}`;
  const row = await deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`playground-uploads:${accountId}`}))`);
    const since = new Date(Date.now() - QUOTA_WINDOW_MS);
    const recent = and(eq(playgroundUploads.accountId, accountId), gt(playgroundUploads.createdAt, since));
    const [held] = await tx.select({ n: count() }).from(playgroundUploads).where(recent);
    if ((held?.n ?? 0) >= limits.perDay) {
      const [oldest] = await tx
        .select({ at: playgroundUploads.createdAt })
        .from(playgroundUploads)
        .where(recent)
        .orderBy(asc(playgroundUploads.createdAt))
        .limit(1);
      throw new UploadQuotaError(
        limits.perDay,
        new Date((oldest?.at ?? new Date()).getTime() + QUOTA_WINDOW_MS),
      );
    }
    const [inserted] = await tx
      .insert(playgroundUploads)
      .values({ id, accountId, storageKey, contentType, expiresAt: new Date(Date.now() + limits.lifetimeMs) })
      .returning();
    return inserted!;
  });
  try {
    const put = await deps.storage.put(storageKey, Readable.from([body]), {
      contentType,
      maxBytes: limits.maxBytes,
    });
    const [stored] = await deps.db
      .update(playgroundUploads)
      .set({ bytes: put.bytes, sha256: put.sha256, storedAt: new Date() })
      .where(eq(playgroundUploads.id, id))
      .returning();
    return stored ?? row;
  } catch (err) {
    await deps.db.delete(playgroundUploads).where(eq(playgroundUploads.id, id));
    await deps.storage.delete(storageKey).catch(() => undefined);
    throw err;
  }
}

/** Uploads served now: stored, not deleted, not expired. */
const servedNow = () =>
  and(
    isNull(playgroundUploads.deletedAt),
    isNotNull(playgroundUploads.storedAt),
    gt(playgroundUploads.expiresAt, sql`now()`),
  );

/** An upload that is served now (stored, not deleted, not expired), or null. */
export async function getServedUpload(db: DbOrTx, id: string): Promise<PlaygroundUploadRow | null> {
  const [row] = await db
    .select()
    .from(playgroundUploads)
    .where(and(eq(playgroundUploads.id, id), servedNow()))
    .limit(1);
  return row ?? null;
}

/**
 * The account's uploads that are served now (stored, not deleted, not expired), newest first, at
 * most `limit`: what its owner can use again or delete.
 */
export async function listServedUploads(
  db: DbOrTx,
  accountId: string,
  limit: number,
): Promise<PlaygroundUploadRow[]> {
  return db
    .select()
    .from(playgroundUploads)
    .where(and(eq(playgroundUploads.accountId, accountId), servedNow()))
    .orderBy(desc(playgroundUploads.createdAt))
    .limit(limit);
}

/**
 * Deletes one of the account's uploads at its owner's request: the URL stops working at once (the
 * object is removed from storage after). False when the account has no such upload (another
 * account's included) or it is gone already. It still counts in the day's quota.
 */
export async function deletePlaygroundUpload(
  deps: { db: Db; storage: MediaStorage },
  accountId: string,
  id: string,
): Promise<boolean> {
  const [row] = await deps.db
    .update(playgroundUploads)
    .set({ deletedAt: new Date() })
    .where(
      and(
        eq(playgroundUploads.id, id),
        eq(playgroundUploads.accountId, accountId),
        isNull(playgroundUploads.deletedAt),
      ),
    )
    .returning({ storageKey: playgroundUploads.storageKey });
  if (!row) return false;
  await deps.storage.delete(row.storageKey);
  return true;
}

/** Uploads past their lifetime whose object may still be in storage, oldest first. */
export async function listExpiredUploads(
  db: DbOrTx,
  now: Date,
  limit: number,
): Promise<Array<Pick<PlaygroundUploadRow, 'id' | 'storageKey'>>> {
  return db
    .select({ id: playgroundUploads.id, storageKey: playgroundUploads.storageKey })
    .from(playgroundUploads)
    .where(and(isNull(playgroundUploads.deletedAt), lte(playgroundUploads.expiresAt, now)))
    .orderBy(asc(playgroundUploads.expiresAt))
    .limit(limit);
}

/** Records that an expired upload's object is deleted. Idempotent. */
export async function markUploadGone(db: DbOrTx, id: string): Promise<boolean> {
  const rows = await db
    .update(playgroundUploads)
    .set({ deletedAt: new Date() })
    .where(and(eq(playgroundUploads.id, id), isNull(playgroundUploads.deletedAt)))
    .returning({ id: playgroundUploads.id });
  return rows.length > 0;
}
