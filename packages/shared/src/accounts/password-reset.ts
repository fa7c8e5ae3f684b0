import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { accounts, apiKeys, consoleSessions, passwordResets } from '../db/schema';
import { hashPassword, verifyPassword } from './passwords';
import { normalizeEmail } from './registration';

export interface PasswordResetPolicy {
  codeTtlMs: number;
  /** wrong codes allowed before the code stops working */
  maxAttempts: number;
  /** least time between two codes mailed to one account */
  resendCooldownMs: number;
}

/**
 * The reset did not happen. `reason` is for the log; the message is one and the same for every
 * reason, since an address without an account can only ever be "wrong": saying "expired" or "too
 * many wrong codes" would tell that the address has an account.
 */
export class PasswordResetFailedError extends Error {
  constructor(readonly reason: 'wrong_code' | 'expired' | 'too_many_attempts') {
    super(
      'The reset code is wrong or no longer valid (codes expire, work once and stop after too many wrong tries), ' +
        'or no reset was asked for this address. Check it, or ask for a new code.',
    );
    this.name = 'PasswordResetFailedError';
  }
}

/** The current password given to change it was wrong. */
export class WrongPasswordError extends Error {
  constructor() {
    super('The current password is wrong.');
    this.name = 'WrongPasswordError';
  }
}

const codeHash = (accountId: string, code: string): string =>
  createHash('sha256').update(`${accountId}:${code}`).digest('hex');

/**
 * Starts a password reset for `email`: a fresh 6-digit code (stored hashed) to mail to the
 * address, or null when there is nothing to send: no active account with a password has this
 * address, or a code went out less than the cool-down ago. Callers answer the same either way,
 * so the endpoint does not reveal accounts.
 */
export async function startPasswordReset(
  db: Db,
  email: string,
  policy: PasswordResetPolicy,
): Promise<{ accountId: string; email: string; code: string; expiresAt: Date } | null> {
  const address = normalizeEmail(email);
  const [account] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.email, address), eq(accounts.status, 'active')));
  if (!account) return null;
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const now = new Date();
  const fresh = {
    codeHash: codeHash(account.id, code),
    expiresAt: new Date(now.getTime() + policy.codeTtlMs),
    failedAttempts: 0,
    lastSentAt: now,
  };
  const rows = await db
    .insert(passwordResets)
    .values({ accountId: account.id, ...fresh })
    .onConflictDoUpdate({
      target: passwordResets.accountId,
      set: fresh,
      setWhere: lt(passwordResets.lastSentAt, new Date(now.getTime() - policy.resendCooldownMs)),
    })
    .returning({ accountId: passwordResets.accountId });
  return rows.length > 0 ? { accountId: account.id, email: address, code, expiresAt: fresh.expiresAt } : null;
}

/**
 * Withdraws the code `startPasswordReset` made when its mail could not be sent: nobody has it, and
 * the owner can ask again at once instead of after the cool-down. A newer code is left alone.
 */
export async function abandonPasswordReset(
  db: Db,
  start: { accountId: string; code: string },
): Promise<void> {
  await db
    .delete(passwordResets)
    .where(
      and(
        eq(passwordResets.accountId, start.accountId),
        eq(passwordResets.codeHash, codeHash(start.accountId, start.code)),
      ),
    );
}

/**
 * Deletes every key of the account (kept as `revoked`, as a key deleted one by one is) within the
 * transaction of a password change or reset; returns how many. The caller announces the change to
 * the API replicas once it has committed.
 */
async function revokeAllKeys(tx: Pick<Db, 'update'>, accountId: string): Promise<number> {
  const rows = await tx
    .update(apiKeys)
    .set({ status: 'revoked', revokedAt: new Date() })
    .where(and(eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')))
    .returning({ id: apiKeys.id });
  return rows.length;
}

/**
 * Sets a new password with the code of a pending reset and ends every session of the account, in
 * one transaction; the code works once. With `revokeKeys` every API key of the account is deleted
 * in the same transaction (`keysRevoked` says how many). A wrong code counts one try (in one statement, so parallel
 * guesses cannot pass the limit); after `maxAttempts` the code stops working. Throws
 * PasswordResetFailedError saying why, in words that do not reveal whether the address has an account.
 */
export async function resetPassword(
  db: Db,
  args: { email: string; code: string; password: string; revokeKeys?: boolean },
  policy: PasswordResetPolicy,
): Promise<{ accountId: string; keysRevoked: number }> {
  const [pending] = await db
    .select({
      accountId: passwordResets.accountId,
      codeHash: passwordResets.codeHash,
      expiresAt: passwordResets.expiresAt,
      failedAttempts: passwordResets.failedAttempts,
    })
    .from(passwordResets)
    .innerJoin(accounts, eq(accounts.id, passwordResets.accountId))
    .where(eq(accounts.email, normalizeEmail(args.email)));
  if (!pending) throw new PasswordResetFailedError('wrong_code');
  if (!pending.codeHash || pending.failedAttempts >= policy.maxAttempts) {
    throw new PasswordResetFailedError('too_many_attempts');
  }
  if (pending.expiresAt.getTime() <= Date.now()) throw new PasswordResetFailedError('expired');
  const presented = Buffer.from(codeHash(pending.accountId, args.code.trim()), 'hex');
  if (!timingSafeEqual(presented, Buffer.from(pending.codeHash, 'hex'))) {
    const [after] = await db
      .update(passwordResets)
      .set({
        failedAttempts: sql`${passwordResets.failedAttempts} + 1`,
        codeHash: sql`case when ${passwordResets.failedAttempts} + 1 >= ${policy.maxAttempts} then null else ${passwordResets.codeHash} end`,
      })
      .where(eq(passwordResets.accountId, pending.accountId))
      .returning({ failed: passwordResets.failedAttempts });
    throw new PasswordResetFailedError(
      after && after.failed >= policy.maxAttempts ? 'too_many_attempts' : 'wrong_code',
    );
  }
  const passwordHash = await hashPassword(args.password);
  return db.transaction(async (tx) => {
    // only the request that deletes the pending row with this very code resets the password
    const [claimed] = await tx
      .delete(passwordResets)
      .where(
        and(eq(passwordResets.accountId, pending.accountId), eq(passwordResets.codeHash, pending.codeHash!)),
      )
      .returning({ accountId: passwordResets.accountId });
    if (!claimed) throw new PasswordResetFailedError('wrong_code');
    await tx
      .update(accounts)
      .set({ passwordHash, updatedAt: new Date() })
      .where(eq(accounts.id, claimed.accountId));
    await tx
      .update(consoleSessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(consoleSessions.accountId, claimed.accountId), isNull(consoleSessions.revokedAt)));
    const keysRevoked = args.revokeKeys ? await revokeAllKeys(tx, claimed.accountId) : 0;
    return { accountId: claimed.accountId, keysRevoked };
  });
}

/**
 * Changes the password of a signed-in account after checking the current one, and ends its other
 * sessions (the one given stays), in one transaction; with `revokeKeys`, deletes every API key of
 * the account in it too (returns how many). Throws WrongPasswordError.
 */
export async function changePassword(
  db: Db,
  args: {
    accountId: string;
    currentPassword: string;
    newPassword: string;
    keepSessionId: string;
    revokeKeys?: boolean;
  },
): Promise<{ keysRevoked: number }> {
  const [row] = await db
    .select({ hash: accounts.passwordHash })
    .from(accounts)
    .where(eq(accounts.id, args.accountId));
  if (!row?.hash || !(await verifyPassword(row.hash, args.currentPassword))) throw new WrongPasswordError();
  const passwordHash = await hashPassword(args.newPassword);
  return db.transaction(async (tx) => {
    await tx
      .update(accounts)
      .set({ passwordHash, updatedAt: new Date() })
      .where(eq(accounts.id, args.accountId));
    await tx
      .update(consoleSessions)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(consoleSessions.accountId, args.accountId),
          isNull(consoleSessions.revokedAt),
          ne(consoleSessions.id, args.keepSessionId),
        ),
      );
    await tx.delete(passwordResets).where(eq(passwordResets.accountId, args.accountId));
    return { keysRevoked: args.revokeKeys ? await revokeAllKeys(tx, args.accountId) : 0 };
  });
}
