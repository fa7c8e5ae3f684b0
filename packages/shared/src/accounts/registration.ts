import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { accounts, emailVerifications } from '../db/schema';
import { type CreatedKey, insertAccount } from './accounts';
import { hashPassword, verifyPassword } from './passwords';

export interface RegistrationPolicy {
  codeTtlMs: number;
  /** wrong codes allowed before the code stops working (a new one must be sent) */
  maxAttempts: number;
  /** least time between two codes sent to one address */
  resendCooldownMs: number;
  /** credit granted when the account is created (micro-USD) */
  signupCreditMicroUsd: number;
}

/** A code was asked for too soon after the previous one. */
export class ResendCooldownError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`A code was sent a moment ago; ask for a new one in ${Math.ceil(retryAfterMs / 1000)} s.`);
    this.name = 'ResendCooldownError';
  }
}

/** The code did not verify; `reason` says why, to be told to the person registering. */
export class VerificationFailedError extends Error {
  constructor(readonly reason: 'wrong_code' | 'expired' | 'too_many_attempts' | 'no_registration') {
    super(
      {
        wrong_code: 'The verification code or the password is wrong.',
        expired: 'The verification code has expired; ask for a new one.',
        too_many_attempts: 'Too many wrong codes; ask for a new one.',
        no_registration: 'There is no pending registration for this e-mail address; register first.',
      }[reason],
    );
    this.name = 'VerificationFailedError';
  }
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const codeHash = (email: string, code: string): string =>
  createHash('sha256').update(`${email}:${code}`).digest('hex');

const newCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

export type RegistrationStart =
  /** a code to e-mail to the address */
  | { kind: 'code'; email: string; code: string; expiresAt: Date }
  /** the address already has an account: tell its owner instead of sending a code */
  | { kind: 'exists'; email: string };

/**
 * Starts (or restarts) the registration of `email` with `password`: stores the password's
 * argon2id hash and a fresh 6-digit code (hashed) and returns the code to send, or, when the
 * address already has an account, `exists` (tell its owner instead; the code is never sent).
 * Both cases do the same work (the hash, the cool-down, the stored row), so neither the answer,
 * its timing nor a repeat reveals which it was. Throws ResendCooldownError when the previous
 * code (or notice) went out less than the cool-down ago.
 */
export async function startRegistration(
  db: Db,
  args: { email: string; password: string },
  policy: RegistrationPolicy,
): Promise<RegistrationStart> {
  const email = normalizeEmail(args.email);
  const passwordHash = await hashPassword(args.password);
  const start = await issueCode(db, email, policy, passwordHash);
  return (await hasAccount(db, email)) ? { kind: 'exists', email } : start;
}

/**
 * Sends a new code for a pending registration (the old one stops working), or again the notice
 * when the address has an account meanwhile. Throws ResendCooldownError inside the cool-down and
 * VerificationFailedError('no_registration') when nothing is pending for the address.
 */
export async function resendRegistrationCode(
  db: Db,
  email: string,
  policy: RegistrationPolicy,
): Promise<RegistrationStart> {
  const normalized = normalizeEmail(email);
  const start = await issueCode(db, normalized, policy);
  return (await hasAccount(db, normalized)) ? { kind: 'exists', email: normalized } : start;
}

async function hasAccount(db: Db, email: string): Promise<boolean> {
  const [existing] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, email));
  return existing !== undefined;
}

async function issueCode(
  db: Db,
  email: string,
  policy: RegistrationPolicy,
  passwordHash?: string,
): Promise<RegistrationStart> {
  const code = newCode();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + policy.codeTtlMs);
  const cooledDown = lt(emailVerifications.lastSentAt, new Date(now.getTime() - policy.resendCooldownMs));
  const fresh = {
    codeHash: codeHash(email, code),
    expiresAt,
    failedAttempts: 0,
    lastSentAt: now,
  };
  const rows = passwordHash
    ? await db
        .insert(emailVerifications)
        .values({ email, passwordHash, ...fresh })
        .onConflictDoUpdate({
          target: emailVerifications.email,
          set: { passwordHash, ...fresh },
          setWhere: cooledDown,
        })
        .returning({ email: emailVerifications.email })
    : await db
        .update(emailVerifications)
        .set(fresh)
        .where(and(eq(emailVerifications.email, email), cooledDown))
        .returning({ email: emailVerifications.email });
  if (rows.length > 0) return { kind: 'code', email, code, expiresAt };
  const [pending] = await db
    .select({ lastSentAt: emailVerifications.lastSentAt })
    .from(emailVerifications)
    .where(eq(emailVerifications.email, email));
  if (!pending) throw new VerificationFailedError('no_registration');
  throw new ResendCooldownError(
    Math.max(1_000, pending.lastSentAt.getTime() + policy.resendCooldownMs - Date.now()),
  );
}

/**
 * Checks the code of a pending registration, and the password given at registration: whoever
 * completes it must know both, so someone who re-registers a victim's address with a password
 * of their own cannot have the victim's code confirm it. On a match, atomically creates the
 * account with that password, the sign-up credit (a `grant` ledger entry) and a default key, and
 * removes the pending row; the key is returned once. A wrong code or password counts one try;
 * after `maxAttempts` the code stops working. Throws VerificationFailedError saying why; throws for an address that got
 * an account meanwhile (pg unique violation 23505).
 */
export async function verifyRegistration(
  db: Db,
  args: { email: string; code: string; password: string },
  policy: RegistrationPolicy,
): Promise<{ accountId: string; email: string; key: CreatedKey }> {
  const email = normalizeEmail(args.email);
  const [pending] = await db.select().from(emailVerifications).where(eq(emailVerifications.email, email));
  if (!pending) throw new VerificationFailedError('no_registration');
  if (!pending.codeHash || pending.failedAttempts >= policy.maxAttempts) {
    throw new VerificationFailedError('too_many_attempts');
  }
  if (pending.expiresAt.getTime() <= Date.now()) throw new VerificationFailedError('expired');
  const presented = Buffer.from(codeHash(email, args.code.trim()), 'hex');
  const codeOk = timingSafeEqual(presented, Buffer.from(pending.codeHash, 'hex'));
  const passwordOk = await verifyPassword(pending.passwordHash, args.password);
  if (!codeOk || !passwordOk) {
    // Counted in one statement, so parallel guesses cannot exceed the limit between read and write.
    const [after] = await db
      .update(emailVerifications)
      .set({
        failedAttempts: sql`${emailVerifications.failedAttempts} + 1`,
        codeHash: sql`case when ${emailVerifications.failedAttempts} + 1 >= ${policy.maxAttempts} then null else ${emailVerifications.codeHash} end`,
      })
      .where(eq(emailVerifications.email, email))
      .returning({ failed: emailVerifications.failedAttempts });
    throw new VerificationFailedError(
      after && after.failed >= policy.maxAttempts ? 'too_many_attempts' : 'wrong_code',
    );
  }
  // Only the request that deletes the pending row (with this very code) creates the account.
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .delete(emailVerifications)
      .where(and(eq(emailVerifications.email, email), eq(emailVerifications.codeHash, pending.codeHash!)))
      .returning({ passwordHash: emailVerifications.passwordHash });
    if (!claimed) throw new VerificationFailedError('no_registration');
    const { accountId, key } = await insertAccount(tx, {
      email,
      passwordHash: claimed.passwordHash,
      initialCreditMicroUsd: policy.signupCreditMicroUsd,
      grant: 'signup_credit',
    });
    return { accountId, email, key };
  });
}
