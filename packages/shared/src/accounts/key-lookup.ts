import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { accounts, apiKeys } from '../db/schema';
import { API_KEY_PATTERN, hashApiKey } from './keys';

/** A key as an operator sees it: never the key itself, with the e-mail of its account. */
export interface OperatorKeyView {
  id: string;
  accountId: string;
  email: string;
  name: string;
  displayPrefix: string;
  status: 'active' | 'disabled' | 'revoked';
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

const VIEW = {
  id: apiKeys.id,
  accountId: apiKeys.accountId,
  email: accounts.email,
  name: apiKeys.name,
  displayPrefix: apiKeys.displayPrefix,
  status: apiKeys.status,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
  expiresAt: apiKeys.expiresAt,
};

export const KEY_ID_PATTERN = /^key_[0-9A-Z]{26}$/;
/** What displayPrefix shows: the key's first 7 and last 4 characters. */
export const KEY_DISPLAY_PATTERN = /^sk-[0-9A-Za-z]{4}\.\.\.[0-9A-Za-z]{4}$/;

/** How an operator named a key: its id, the secret itself, or the prefix the console shows. */
export type KeyReference =
  | { by: 'id'; id: string }
  | { by: 'secret'; hash: string; shown: string }
  | { by: 'display'; prefix: string };

/**
 * Reads what an operator typed as a key: `key_...` (its id), `sk-` and 48 characters (the secret,
 * e.g. a leaked one), or `sk-abcd...wxyz` (the prefix the console shows). Undefined otherwise.
 * The secret is hashed at once; only its shown prefix is kept for messages.
 */
export function parseKeyReference(text: string): KeyReference | undefined {
  const t = text.trim();
  if (KEY_ID_PATTERN.test(t)) return { by: 'id', id: t };
  if (API_KEY_PATTERN.test(t))
    return { by: 'secret', hash: hashApiKey(t), shown: `${t.slice(0, 7)}...${t.slice(-4)}` };
  if (KEY_DISPLAY_PATTERN.test(t)) return { by: 'display', prefix: t };
  return undefined;
}

/**
 * Keys matching the reference, deleted ones included (an id or a secret matches at most one; a
 * shown prefix may match several).
 */
export async function findKeys(db: DbOrTx, ref: KeyReference): Promise<OperatorKeyView[]> {
  const where =
    ref.by === 'id'
      ? eq(apiKeys.id, ref.id)
      : ref.by === 'secret'
        ? eq(apiKeys.keyHash, ref.hash)
        : eq(apiKeys.displayPrefix, ref.prefix);
  return db
    .select(VIEW)
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(where)
    .orderBy(asc(apiKeys.id))
    .limit(100);
}

/** Every key of an account, deleted ones included, oldest first. */
export async function listAccountKeys(db: DbOrTx, accountId: string): Promise<OperatorKeyView[]> {
  return db
    .select(VIEW)
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(asc(apiKeys.id));
}

/** The account with this id or e-mail (case aside), or null. */
export async function findAccountId(db: DbOrTx, idOrEmail: string): Promise<string | null> {
  const t = idOrEmail.trim();
  const [row] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(t.includes('@') ? eq(accounts.email, t.toLowerCase()) : eq(accounts.id, t))
    .limit(1);
  return row?.id ?? null;
}

/**
 * Revokes one key for good, whatever its state (active or disabled), and says what happened:
 * `revoked` with the key as it was, `already` when it was revoked before (nothing changed).
 */
export async function revokeKeyById(
  db: DbOrTx,
  keyId: string,
): Promise<{ outcome: 'revoked' | 'already'; key: OperatorKeyView } | null> {
  const changed = await db
    .update(apiKeys)
    .set({ status: 'revoked', revokedAt: sql`now()` })
    .where(and(eq(apiKeys.id, keyId), ne(apiKeys.status, 'revoked')))
    .returning({ id: apiKeys.id });
  const [key] = await findKeys(db, { by: 'id', id: keyId });
  if (!key) return null;
  return { outcome: changed.length > 0 ? 'revoked' : 'already', key };
}
