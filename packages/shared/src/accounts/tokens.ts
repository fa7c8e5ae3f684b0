import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
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

/**
 * The account already has a key by that name (compared without regard to case, among its keys
 * that are not deleted: active or disabled; a deleted key's name is free again).
 */
export class DuplicateKeyNameError extends Error {
  constructor(readonly keyName: string) {
    super(`You already have a key named "${keyName}"; choose another name.`);
    this.name = 'DuplicateKeyNameError';
  }
}

/**
 * Serializes the changes of one account's key names and count (create, rename, the playground's
 * key) until the transaction ends, so two at once cannot both take a name or the last place.
 */
export async function lockAccountKeys(tx: DbOrTx, accountId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`api-keys:${accountId}`}))`);
}

/** Whether another key of the account (not deleted) has this name, case aside. */
async function nameTaken(
  tx: DbOrTx,
  accountId: string,
  name: string,
  exceptKeyId?: string,
): Promise<boolean> {
  const [row] = await tx
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.accountId, accountId),
        ne(apiKeys.status, 'revoked'),
        sql`lower(${apiKeys.name}) = lower(${name})`,
        exceptKeyId ? ne(apiKeys.id, exceptKeyId) : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
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
 * only; it is never stored. Throws TooManyKeysError past MAX_KEYS_PER_ACCOUNT and
 * DuplicateKeyNameError when another key has the name (both checked under the account's lock).
 */
export async function createToken(
  db: Db,
  accountId: string,
  args: { name: string } & KeyLimits,
): Promise<{ key: CreatedKey; token: TokenView }> {
  return db.transaction(async (tx) => {
    await lockAccountKeys(tx, accountId);
    if (await nameTaken(tx, accountId, args.name)) throw new DuplicateKeyNameError(args.name);
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
 * refused by every API replica from its next request on. A new name another key has throws
 * DuplicateKeyNameError (a key may change the case of its own).
 */
export async function updateToken(
  db: Db,
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
  const update = async (tx: DbOrTx) => {
    const [row] = await tx
      .update(apiKeys)
      .set(set)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')))
      .returning(VIEW);
    return row ?? null;
  };
  const name = patch.name;
  if (name === undefined) return update(db);
  return db.transaction(async (tx) => {
    await lockAccountKeys(tx, accountId);
    if (await nameTaken(tx, accountId, name, keyId)) throw new DuplicateKeyNameError(name);
    return update(tx);
  });
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
