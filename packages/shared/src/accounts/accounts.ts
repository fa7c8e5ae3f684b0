import { and, eq, gt, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { creditAccount } from '../billing/ledger';
import type { Db, DbOrTx } from '../db/client';
import { accounts, apiKeys } from '../db/schema';
import { newAccountId, newKeyId } from '../ids';
import { API_KEY_PATTERN, displayPrefix, generateApiKey, hashApiKey } from './keys';

export interface CreatedKey {
  id: string;
  key: string;
  displayPrefix: string;
}

/** What a key may do; every field optional (no limit). */
export interface KeyLimits {
  quotaMicroUsd?: number | null;
  expiresAt?: Date | null;
  allowedModels?: string[] | null;
  allowedIps?: string[] | null;
}

/** Creates a key for the account inside the caller's transaction; the plain key is returned once, never stored. */
export async function createApiKey(
  tx: DbOrTx,
  accountId: string,
  name: string,
  limits: KeyLimits = {},
): Promise<CreatedKey> {
  const key = generateApiKey();
  const id = newKeyId();
  const prefix = displayPrefix(key);
  await tx.insert(apiKeys).values({
    id,
    accountId,
    name,
    keyHash: hashApiKey(key),
    displayPrefix: prefix,
    quotaMicroUsd: limits.quotaMicroUsd ?? null,
    expiresAt: limits.expiresAt ?? null,
    allowedModels: limits.allowedModels ?? null,
    allowedIps: limits.allowedIps ?? null,
  });
  return { id, key, displayPrefix: prefix };
}

/** Why an account starts with credit, and the English text older ledger readers show. */
const GRANT_REASONS = {
  signup_credit: 'test credit for a new account',
  operator_grant: 'operator grant (cli)',
  initial_credit: 'initial credit',
} as const;

export interface NewAccountArgs {
  email: string;
  initialCreditMicroUsd?: number;
  /** why the account starts with credit (the grant's ledger details); initial_credit by default */
  grant?: keyof typeof GRANT_REASONS;
  passwordHash?: string;
}

/**
 * Creates an account with a default key and, when `initialCreditMicroUsd` > 0, a grant ledger
 * entry. Atomic. Throws when the e-mail is taken (unique violation, pg code 23505).
 */
export async function createAccount(
  db: Db,
  args: NewAccountArgs,
): Promise<{ accountId: string; key: CreatedKey }> {
  return db.transaction((tx) => insertAccount(tx, args));
}

/** createAccount's work inside the caller's transaction. */
export async function insertAccount(
  tx: DbOrTx,
  args: NewAccountArgs,
): Promise<{ accountId: string; key: CreatedKey }> {
  const accountId = newAccountId();
  await tx.insert(accounts).values({
    id: accountId,
    email: args.email.trim().toLowerCase(),
    passwordHash: args.passwordHash ?? null,
  });
  await creditAccount(tx, {
    accountId,
    amountMicroUsd: args.initialCreditMicroUsd ?? 0,
    kind: 'grant',
    reason: GRANT_REASONS[args.grant ?? 'initial_credit'],
    details: { cause: args.grant ?? 'initial_credit' },
  });
  const key = await createApiKey(tx, accountId, 'default');
  return { accountId, key };
}

export interface Principal {
  accountId: string;
  keyId: string;
  /** public model ids the key may call; null = all */
  allowedModels: string[] | null;
  /** IPs / CIDR blocks the key may be used from; null = anywhere */
  allowedIps: string[] | null;
  /** the account's override of the per-key requests-per-minute limit; null = the default */
  rpmLimit: number | null;
  /** the account's override of its unfinished-video-task limit; null = the default */
  maxActiveVideoTasks: number | null;
  lastUsedAt: Date | null;
  /** when the key stops working; null = never */
  expiresAt: Date | null;
}

/**
 * The principal of the one usable key `which` selects: the key must be active and unexpired and its
 * account active, else null. One query (the key joined to its account); what authenticates a
 * presented key and what the console's playground calls as.
 */
export async function activePrincipal(db: Db, which: SQL): Promise<Principal | null> {
  const rows = await db
    .select({
      keyId: apiKeys.id,
      accountId: apiKeys.accountId,
      allowedModels: apiKeys.allowedModels,
      allowedIps: apiKeys.allowedIps,
      rpmLimit: accounts.rpmLimit,
      maxActiveVideoTasks: accounts.maxActiveVideoTasks,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(
      and(
        which,
        eq(apiKeys.status, 'active'),
        eq(accounts.status, 'active'),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)),
      ),
    )
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The key and account behind a presented key, in one query through the key-hash index; null
 * when the key is malformed, unknown, disabled, deleted or expired, or its account disabled.
 * Reads the database every time (no cache), so a key turned off anywhere stops working on every
 * API replica at once.
 */
export async function authenticateApiKey(db: Db, presented: string): Promise<Principal | null> {
  if (!API_KEY_PATTERN.test(presented)) return null;
  return activePrincipal(db, eq(apiKeys.keyHash, hashApiKey(presented)));
}

/**
 * Whether a key still authenticates now, by its id (what an open event stream re-checks when a key
 * or account change is announced): null when it is disabled, deleted or expired, or its account
 * disabled; otherwise its IP allow-list (null = anywhere). One query through the primary key.
 */
export async function apiKeyStanding(db: Db, keyId: string): Promise<{ allowedIps: string[] | null } | null> {
  const rows = await db
    .select({ allowedIps: apiKeys.allowedIps })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(
      and(
        eq(apiKeys.id, keyId),
        eq(apiKeys.status, 'active'),
        eq(accounts.status, 'active'),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)),
      ),
    )
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Sets the key's last-used time, at most once a minute per key (the condition makes a recent
 * key a no-op), so busy keys do not turn every request into a row write.
 */
export async function touchApiKey(db: DbOrTx, keyId: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiKeys.id, keyId),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '60 seconds'`)),
      ),
    );
}

/** Revokes a key for good. Idempotent. */
export async function revokeApiKey(db: DbOrTx, keyId: string): Promise<void> {
  await db.update(apiKeys).set({ status: 'revoked', revokedAt: new Date() }).where(eq(apiKeys.id, keyId));
}

export async function getAccount(db: DbOrTx, accountId: string) {
  const rows = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  return rows[0] ?? null;
}
