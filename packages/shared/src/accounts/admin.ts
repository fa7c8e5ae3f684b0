import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { accounts } from '../db/schema';
import { newAccountId } from '../ids';
import { hashPassword, verifyPassword } from './passwords';
import { normalizeEmail } from './registration';

/** An account as operators see it. */
export interface AccountView {
  id: string;
  email: string;
  status: 'active' | 'disabled';
  role: 'user' | 'admin';
  balanceMicroUsd: number;
  rpmLimit: number | null;
  maxActiveVideoTasks: number | null;
  createdAt: Date;
}

const VIEW = {
  id: accounts.id,
  email: accounts.email,
  status: accounts.status,
  role: accounts.role,
  balanceMicroUsd: accounts.balanceMicroUsd,
  rpmLimit: accounts.rpmLimit,
  maxActiveVideoTasks: accounts.maxActiveVideoTasks,
  createdAt: accounts.createdAt,
};

/**
 * Accounts in id order (oldest first) after `after`, optionally only those whose e-mail
 * contains `email` (case-insensitive).
 */
export async function listAccounts(
  db: DbOrTx,
  opts: { limit: number; after?: string; email?: string },
): Promise<{ data: AccountView[]; hasMore: boolean; nextCursor: string | null }> {
  const pattern = opts.email ? `%${opts.email.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const rows = await db
    .select(VIEW)
    .from(accounts)
    .where(
      and(
        opts.after ? gt(accounts.id, opts.after) : undefined,
        pattern ? sql`${accounts.email} like ${pattern}` : undefined,
      ),
    )
    .orderBy(asc(accounts.id))
    .limit(opts.limit + 1);
  const hasMore = rows.length > opts.limit;
  const data = hasMore ? rows.slice(0, opts.limit) : rows;
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1]!.id : null };
}

/** The e-mail of each of `accountIds` that exists, by id (for lists that name accounts). */
export async function accountEmails(db: DbOrTx, accountIds: readonly string[]): Promise<Map<string, string>> {
  const ids = [...new Set(accountIds)];
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: accounts.id, email: accounts.email })
    .from(accounts)
    .where(inArray(accounts.id, ids));
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** One account by id, or null. */
export async function getAccountView(db: DbOrTx, accountId: string): Promise<AccountView | null> {
  const [row] = await db.select(VIEW).from(accounts).where(eq(accounts.id, accountId));
  return row ?? null;
}

/** An operator's change of an account: the account as it was, and as the change left it. */
export interface AccountChange {
  before: AccountView;
  after: AccountView;
}

/**
 * Disables or re-enables an account. A disabled account's keys and console sessions are
 * refused from their next request on. Returns the account before and after, or null when there
 * is none. In a transaction the row stays locked from the read of `before` to the commit.
 */
export async function setAccountStatus(
  db: DbOrTx,
  accountId: string,
  status: 'active' | 'disabled',
): Promise<AccountChange | null> {
  return changeAccount(db, accountId, { status });
}

/** Sets (or, with null, clears) the account's rate-limit overrides; undefined fields stay. */
export async function setAccountLimits(
  db: DbOrTx,
  accountId: string,
  limits: { rpmLimit?: number | null; maxActiveVideoTasks?: number | null },
): Promise<AccountChange | null> {
  return changeAccount(
    db,
    accountId,
    Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
  );
}

async function changeAccount(
  db: DbOrTx,
  accountId: string,
  set: Partial<Pick<typeof accounts.$inferInsert, 'status' | 'rpmLimit' | 'maxActiveVideoTasks'>>,
): Promise<AccountChange | null> {
  const [before] = await db.select(VIEW).from(accounts).where(eq(accounts.id, accountId)).for('update');
  if (!before) return null;
  const [after] = await db
    .update(accounts)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(accounts.id, accountId))
    .returning(VIEW);
  return after ? { before, after } : null;
}

/**
 * Makes sure the configured operator can log in: creates the admin account for `email` when
 * missing, or gives the existing one the admin role and the configured password (rehashed only
 * when it changed). Safe to run from several replicas at once.
 */
export async function ensureAdminAccount(db: Db, args: { email: string; password: string }): Promise<string> {
  const email = normalizeEmail(args.email);
  const [existing] = await db
    .select({ id: accounts.id, hash: accounts.passwordHash, role: accounts.role, status: accounts.status })
    .from(accounts)
    .where(eq(accounts.email, email));
  const passwordOk = existing?.hash ? await verifyPassword(existing.hash, args.password) : false;
  if (existing && passwordOk && existing.role === 'admin' && existing.status === 'active') return existing.id;
  const passwordHash = passwordOk ? existing!.hash! : await hashPassword(args.password);
  const [row] = await db
    .insert(accounts)
    .values({ id: newAccountId(), email, passwordHash, role: 'admin' })
    .onConflictDoUpdate({
      target: accounts.email,
      set: { passwordHash, role: 'admin', status: 'active', updatedAt: new Date() },
    })
    .returning({ id: accounts.id });
  return row!.id;
}
