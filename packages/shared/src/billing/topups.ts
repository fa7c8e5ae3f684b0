import { and, eq } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { accounts, payments } from '../db/schema';
import { creditAccount } from './ledger';

/** When a top-up is accepted and what bonus it earns. */
export interface TopUpPolicy {
  minMicroUsd: number;
  /** a single top-up of at least this much earns the bonus */
  bonusThresholdMicroUsd: number;
  bonusPercent: number;
}

/** The top-up is below the minimum; nothing was credited. */
export class TopUpTooSmallError extends Error {
  constructor(readonly minMicroUsd: number) {
    super(`A top-up must be at least ${minMicroUsd / 1_000_000} USD.`);
    this.name = 'TopUpTooSmallError';
  }
}

/** The account a payment names does not exist; nothing was credited. */
export class UnknownAccountError extends Error {
  constructor(readonly accountId: string) {
    super(`No account ${accountId}.`);
    this.name = 'UnknownAccountError';
  }
}

/** The bonus a top-up of `amountMicroUsd` earns under `policy` (0 below the threshold). */
export function topUpBonus(amountMicroUsd: number, policy: TopUpPolicy): number {
  if (policy.bonusPercent <= 0 || amountMicroUsd < policy.bonusThresholdMicroUsd) return 0;
  return Math.floor((amountMicroUsd * policy.bonusPercent) / 100);
}

export interface TopUpResult {
  /** false when this (provider, reference) was already credited: nothing changed */
  credited: boolean;
  paymentId: number;
  accountId: string;
  amountMicroUsd: number;
  bonusMicroUsd: number;
}

/**
 * Credits a received payment: the payment row, a `topup` ledger entry and, at or above the
 * policy's threshold, a separate `bonus` entry, in one transaction. Idempotent per
 * (provider, reference): a repeat returns the first payment with `credited: false`. Throws
 * TopUpTooSmallError below the minimum and UnknownAccountError for a missing account.
 * `inTransaction` runs inside that transaction when the payment is credited, for what must
 * commit with it (an operator's audit record).
 */
export async function recordTopUp(
  db: Db,
  args: {
    accountId: string;
    provider: string;
    reference: string;
    amountMicroUsd: number;
    note?: string;
    createdBy?: string;
    raw?: unknown;
  },
  policy: TopUpPolicy,
  opts: { inTransaction?: (tx: DbOrTx, credited: TopUpResult) => Promise<void> } = {},
): Promise<TopUpResult> {
  if (!Number.isSafeInteger(args.amountMicroUsd) || args.amountMicroUsd < policy.minMicroUsd) {
    throw new TopUpTooSmallError(policy.minMicroUsd);
  }
  return db.transaction(async (tx) => {
    const [account] = await tx
      .select({ id: accounts.id })
      .from(accounts)
      .where(eq(accounts.id, args.accountId))
      .limit(1);
    if (!account) throw new UnknownAccountError(args.accountId);
    const bonus = topUpBonus(args.amountMicroUsd, policy);
    const [inserted] = await tx
      .insert(payments)
      .values({
        accountId: args.accountId,
        provider: args.provider,
        reference: args.reference,
        amountMicroUsd: args.amountMicroUsd,
        bonusMicroUsd: bonus,
        note: args.note,
        createdBy: args.createdBy,
        raw: args.raw ?? null,
      })
      .onConflictDoNothing()
      .returning({ id: payments.id });
    if (!inserted) {
      const [existing] = await tx
        .select()
        .from(payments)
        .where(and(eq(payments.provider, args.provider), eq(payments.reference, args.reference)))
        .limit(1);
      return {
        credited: false,
        paymentId: existing!.id,
        accountId: existing!.accountId,
        amountMicroUsd: existing!.amountMicroUsd,
        bonusMicroUsd: existing!.bonusMicroUsd,
      };
    }
    const ref = `${args.provider}:${args.reference}`;
    await creditAccount(tx, {
      accountId: args.accountId,
      amountMicroUsd: args.amountMicroUsd,
      kind: 'topup',
      ref,
      // the operator's note stays on the payment row (operators only); the owner sees this
      reason: `top-up via ${args.provider}`,
    });
    await creditAccount(tx, {
      accountId: args.accountId,
      amountMicroUsd: bonus,
      kind: 'bonus',
      ref,
      reason: `${policy.bonusPercent}% bonus on a top-up of at least ${policy.bonusThresholdMicroUsd / 1_000_000} USD`,
    });
    const result = {
      credited: true,
      paymentId: inserted.id,
      accountId: args.accountId,
      amountMicroUsd: args.amountMicroUsd,
      bonusMicroUsd: bonus,
    };
    await opts.inTransaction?.(tx, result);
    return result;
  });
}
