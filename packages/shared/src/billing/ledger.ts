import { and, eq, gte, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { accounts, apiKeys, ledgerEntries, usageRecords } from '../db/schema';
import { InsufficientQuotaError, PermissionDeniedError } from '../errors';

export interface ChargeArgs {
  accountId: string;
  amountMicroUsd: number;
  /** the call's billing reference (task id, image call id): one charge and one refund per ref */
  ref: string;
  /**
   * The key making the call. When given, its quota is checked and its used amount raised in the
   * same transaction, its model allow-list is enforced, and the usage record names it.
   */
  keyId?: string;
  /** public model id, for the key's allow-list and the usage log */
  model?: string;
  /** images requested, or 1 for a video task */
  units?: number;
  /** the HTTP request id, so the API can record the answer's latency and outcome on the usage record */
  requestId?: string;
  /**
   * True for a call whose settlement follows (an image call: settleImageCall once it ends, or the
   * reconciler's sweepUnsettledImageCalls if it never does). The usage record is written unsettled.
   */
  settlesLater?: boolean;
}

/**
 * Takes `amountMicroUsd` from the account for the call `ref`, inside the caller's transaction,
 * and writes the ledger row and the usage record. With `keyId`, also raises the key's used amount
 * and checks its quota and model allow-list in the same transaction. Throws (and, with the
 * caller's transaction rolled back, changes nothing): InsufficientQuotaError when the balance or
 * the key's remaining quota does not cover the price, PermissionDeniedError when the key may not
 * use `model`. Idempotent per ref: a second charge for the same ref is refused by the ledger's
 * unique index. Concurrent charges of one account serialize on its row, so the balance is never
 * overdrawn.
 */
export async function chargeForCall(tx: DbOrTx, args: ChargeArgs): Promise<void> {
  if (args.amountMicroUsd <= 0) return;
  // Lock order everywhere: the account row, then the key row (refunds do the same), so
  // concurrent charges and refunds cannot deadlock.
  const updated = await tx
    .update(accounts)
    .set({
      balanceMicroUsd: sql`${accounts.balanceMicroUsd} - ${args.amountMicroUsd}`,
      updatedAt: new Date(),
    })
    .where(and(eq(accounts.id, args.accountId), gte(accounts.balanceMicroUsd, args.amountMicroUsd)))
    .returning({ id: accounts.id });
  if (updated.length === 0) throw new InsufficientQuotaError();
  if (args.keyId) {
    const [key] = await tx
      .update(apiKeys)
      .set({
        usedMicroUsd: sql`${apiKeys.usedMicroUsd} + ${args.amountMicroUsd}`,
        lastUsedAt: new Date(),
      })
      .where(and(eq(apiKeys.id, args.keyId), eq(apiKeys.accountId, args.accountId)))
      .returning({
        used: apiKeys.usedMicroUsd,
        quota: apiKeys.quotaMicroUsd,
        allowedModels: apiKeys.allowedModels,
      });
    if (!key)
      throw new Error(`chargeForCall: key ${args.keyId} does not belong to account ${args.accountId}`);
    if (args.model !== undefined && key.allowedModels && !key.allowedModels.includes(args.model)) {
      throw new PermissionDeniedError(`This API key may not use the model '${args.model}'.`);
    }
    if (key.quota !== null && key.used > key.quota) {
      throw new InsufficientQuotaError(
        "This API key's quota does not cover this request. Raise the key's quota or use another key.",
      );
    }
  }
  await tx.insert(ledgerEntries).values({
    accountId: args.accountId,
    kind: 'charge',
    amountMicroUsd: -args.amountMicroUsd,
    ref: args.ref,
  });
  await tx.insert(usageRecords).values({
    accountId: args.accountId,
    apiKeyId: args.keyId ?? null,
    ref: args.ref,
    model: args.model ?? null,
    units: args.units ?? 1,
    costMicroUsd: args.amountMicroUsd,
    requestId: args.requestId ?? null,
    ...(args.settlesLater ? { settledAt: null } : {}),
  });
}

/**
 * Gives back `amountMicroUsd` of the call `ref`, inside the caller's transaction: for an image
 * batch the price of the images not delivered, for a failed task its whole price. Lowers the
 * used amount of the key that paid and marks the usage record `partial` or `failed`.
 * Idempotent: the first refund for a ref applies, every later one does nothing. Returns whether
 * it applied.
 */
export async function refundCall(
  tx: DbOrTx,
  args: { accountId: string; amountMicroUsd: number; ref: string; reason?: string },
): Promise<boolean> {
  if (args.amountMicroUsd <= 0) return false;
  const inserted = await tx
    .insert(ledgerEntries)
    .values({
      accountId: args.accountId,
      kind: 'refund',
      amountMicroUsd: args.amountMicroUsd,
      ref: args.ref,
      reason: args.reason,
    })
    .onConflictDoNothing()
    .returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return false;
  await tx
    .update(accounts)
    .set({
      balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${args.amountMicroUsd}`,
      updatedAt: new Date(),
    })
    .where(eq(accounts.id, args.accountId));
  const [usage] = await tx
    .update(usageRecords)
    .set({
      refundedMicroUsd: sql`${usageRecords.refundedMicroUsd} + ${args.amountMicroUsd}`,
      outcome: sql`case when ${usageRecords.refundedMicroUsd} + ${args.amountMicroUsd} >= ${usageRecords.costMicroUsd} then 'failed' else 'partial' end`,
    })
    .where(and(eq(usageRecords.ref, args.ref), eq(usageRecords.accountId, args.accountId)))
    .returning({ keyId: usageRecords.apiKeyId });
  if (usage?.keyId) {
    await tx
      .update(apiKeys)
      .set({ usedMicroUsd: sql`greatest(${apiKeys.usedMicroUsd} - ${args.amountMicroUsd}, 0)` })
      .where(eq(apiKeys.id, usage.keyId));
  }
  return true;
}

/** Adds credit (grant, top-up, bonus) with its ledger row, inside the caller's transaction. */
export async function creditAccount(
  tx: DbOrTx,
  args: {
    accountId: string;
    amountMicroUsd: number;
    kind: 'grant' | 'topup' | 'bonus';
    ref?: string;
    reason?: string;
  },
): Promise<void> {
  if (args.amountMicroUsd <= 0) return;
  await tx.insert(ledgerEntries).values({
    accountId: args.accountId,
    kind: args.kind,
    amountMicroUsd: args.amountMicroUsd,
    ref: args.ref,
    reason: args.reason,
  });
  await tx
    .update(accounts)
    .set({
      balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${args.amountMicroUsd}`,
      updatedAt: new Date(),
    })
    .where(eq(accounts.id, args.accountId));
}

/**
 * An operator's signed correction of the balance, with its reason, inside the caller's
 * transaction. A negative adjustment larger than the balance throws InsufficientQuotaError
 * (nothing written). With `ref`, idempotent: a second adjustment with the same ref does nothing
 * and returns false.
 */
export async function adjustBalance(
  tx: DbOrTx,
  args: { accountId: string; amountMicroUsd: number; reason: string; ref?: string },
): Promise<boolean> {
  if (args.amountMicroUsd === 0) return false;
  const inserted = await tx
    .insert(ledgerEntries)
    .values({
      accountId: args.accountId,
      kind: 'adjustment',
      amountMicroUsd: args.amountMicroUsd,
      ref: args.ref,
      reason: args.reason,
    })
    .onConflictDoNothing()
    .returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return false;
  const updated = await tx
    .update(accounts)
    .set({
      balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${args.amountMicroUsd}`,
      updatedAt: new Date(),
    })
    .where(
      and(eq(accounts.id, args.accountId), gte(sql`${accounts.balanceMicroUsd} + ${args.amountMicroUsd}`, 0)),
    )
    .returning({ id: accounts.id });
  if (updated.length === 0) {
    throw new InsufficientQuotaError('The adjustment would make the balance negative.');
  }
  return true;
}

/** Accounts whose balance differs from the sum of their ledger (empty when the books are right). */
export async function findLedgerMismatches(
  db: DbOrTx,
): Promise<Array<{ accountId: string; balance: number; ledgerSum: number }>> {
  const rows = await db.execute<{ account_id: string; balance: string; ledger_sum: string }>(sql`
    select a.id as account_id, a.balance_micro_usd::text as balance, coalesce(sum(l.amount_micro_usd), 0)::text as ledger_sum
    from accounts a left join ledger_entries l on l.account_id = a.id
    group by a.id having a.balance_micro_usd <> coalesce(sum(l.amount_micro_usd), 0)`);
  return rows.rows.map((r) => ({
    accountId: r.account_id,
    balance: Number(r.balance),
    ledgerSum: Number(r.ledger_sum),
  }));
}

export const usdToMicro = (usd: number): number => Math.round(usd * 1_000_000);
