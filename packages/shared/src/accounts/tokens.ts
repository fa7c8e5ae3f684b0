import { and, asc, count, eq, ne } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { apiKeys } from '../db/schema';
import { type CreatedKey, createApiKey, type KeyLimits } from './accounts';

/** Most keys (not deleted) one account may hold. */
export const MAX_KEYS_PER_ACCOUNT = 100;

/** The account already holds MAX_KEYS_PER_ACCOUNT keys. */
export class TooManyKeysError extends Error {
  constructor() {
    super(`An account may hold at most ${MAX_KEYS_PER_ACCOUNT} keys; delete one first.`);
    this.name = 'TooManyKeysError';
  }
}

/** A key as its owner sees it in the token list (never the key itself). */
export interface TokenView {
  id: string;
  name: string;
  displayPrefix: string;
  status: 'active' | 'disabled' | 'revoked';
  quotaMicroUsd: number | null;
  usedMicroUsd: number;
  expiresAt: Date | null;
  allowedModels: string[] | null;
  allowedIps: string[] | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const VIEW = {
  id: apiKeys.id,
  name: apiKeys.name,
  displayPrefix: apiKeys.displayPrefix,
  status: apiKeys.status,
  quotaMicroUsd: apiKeys.quotaMicroUsd,
  usedMicroUsd: apiKeys.usedMicroUsd,
  expiresAt: apiKeys.expiresAt,
  allowedModels: apiKeys.allowedModels,
  allowedIps: apiKeys.allowedIps,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
};

/**
 * Creates a named key with optional limits for the account. The plain key is in the result
 * only; it is never stored. Throws TooManyKeysError past MAX_KEYS_PER_ACCOUNT.
 */
export async function createToken(
  db: Db,
  accountId: string,
  args: { name: string } & KeyLimits,
): Promise<{ key: CreatedKey; token: TokenView }> {
  return db.transaction(async (tx) => {
    const [held] = await tx
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')));
    if ((held?.n ?? 0) >= MAX_KEYS_PER_ACCOUNT) throw new TooManyKeysError();
    const key = await createApiKey(tx, accountId, args.name, args);
    const token = await getToken(tx, accountId, key.id);
    return { key, token: token! };
  });
}

/** The account's keys that are not deleted, oldest first. */
export async function listTokens(db: DbOrTx, accountId: string): Promise<TokenView[]> {
  return db
    .select(VIEW)
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')))
    .orderBy(asc(apiKeys.id));
}

/** One key of the account (not deleted), or null: another account's key looks absent. */
export async function getToken(db: DbOrTx, accountId: string, keyId: string): Promise<TokenView | null> {
  const [row] = await db
    .select(VIEW)
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')));
  return row ?? null;
}

/**
 * Renames, disables or enables a key, or changes its limits (fields left undefined stay). Only
 * the account's own keys that are not deleted; returns null otherwise. A disabled key is
 * refused by every API replica from its next request on.
 */
export async function updateToken(
  db: DbOrTx,
  accountId: string,
  keyId: string,
  patch: { name?: string; status?: 'active' | 'disabled' } & KeyLimits,
): Promise<TokenView | null> {
  const set = Object.fromEntries(
    Object.entries({
      name: patch.name,
      status: patch.status,
      quotaMicroUsd: patch.quotaMicroUsd,
      expiresAt: patch.expiresAt,
      allowedModels: patch.allowedModels,
      allowedIps: patch.allowedIps,
    }).filter(([, v]) => v !== undefined),
  );
  if (Object.keys(set).length === 0) return getToken(db, accountId, keyId);
  const [row] = await db
    .update(apiKeys)
    .set(set)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')))
    .returning(VIEW);
  return row ?? null;
}

/**
 * Deletes a key of the account for good (kept as `revoked` for the usage history). Returns
 * false when the account has no such key. Refused by every API replica from its next request on.
 */
export async function deleteToken(db: DbOrTx, accountId: string, keyId: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ status: 'revoked', revokedAt: new Date() })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
