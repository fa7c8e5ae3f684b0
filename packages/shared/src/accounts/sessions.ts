import { createHash } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { accounts, consoleSessions } from '../db/schema';
import { newSessionId, randomBase62 } from '../ids';
import { burnPasswordCheck, verifyPassword } from './passwords';
import { normalizeEmail } from './registration';

export const SESSION_TOKEN_PATTERN = /^cs_[0-9A-Za-z]{43}$/;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Who is behind a console session. */
export interface SessionPrincipal {
  sessionId: string;
  accountId: string;
  email: string;
  role: 'user' | 'admin';
  expiresAt: Date;
}

/**
 * The account for `email` when `password` is its password and the account is active; null
 * otherwise. Takes the same time for an unknown e-mail as for a wrong password.
 */
export async function checkLogin(
  db: Db,
  email: string,
  password: string,
): Promise<{ accountId: string; role: 'user' | 'admin' } | null> {
  const [row] = await db
    .select({ id: accounts.id, role: accounts.role, status: accounts.status, hash: accounts.passwordHash })
    .from(accounts)
    .where(eq(accounts.email, normalizeEmail(email)));
  if (!row?.hash) {
    await burnPasswordCheck(password);
    return null;
  }
  const ok = await verifyPassword(row.hash, password);
  return ok && row.status === 'active' ? { accountId: row.id, role: row.role } : null;
}

/**
 * Opens a console session for the account; the token (`cs_` + 43 base62 characters) is
 * returned once and stored only as a SHA-256 hash.
 */
export async function createSession(
  db: DbOrTx,
  args: { accountId: string; ttlMs: number; ip?: string; userAgent?: string },
): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = `cs_${randomBase62(43)}`;
  const id = newSessionId();
  const expiresAt = new Date(Date.now() + args.ttlMs);
  await db.insert(consoleSessions).values({
    id,
    accountId: args.accountId,
    tokenHash: hashToken(token),
    expiresAt,
    ip: args.ip ?? null,
    userAgent: args.userAgent?.slice(0, 512) ?? null,
  });
  return { id, token, expiresAt };
}

/**
 * The session behind a token, in one indexed query; null when the token is malformed, unknown,
 * logged out, expired, or its account disabled.
 */
export async function authenticateSession(db: Db, token: string): Promise<SessionPrincipal | null> {
  if (!SESSION_TOKEN_PATTERN.test(token)) return null;
  const [row] = await db
    .select({
      sessionId: consoleSessions.id,
      accountId: consoleSessions.accountId,
      email: accounts.email,
      role: accounts.role,
      expiresAt: consoleSessions.expiresAt,
    })
    .from(consoleSessions)
    .innerJoin(accounts, eq(accounts.id, consoleSessions.accountId))
    .where(
      and(
        eq(consoleSessions.tokenHash, hashToken(token)),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, sql`now()`),
        eq(accounts.status, 'active'),
      ),
    );
  return row ?? null;
}

/** Ends a session (logout). Idempotent. */
export async function revokeSession(db: DbOrTx, sessionId: string): Promise<void> {
  await db
    .update(consoleSessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(consoleSessions.id, sessionId), isNull(consoleSessions.revokedAt)));
}
