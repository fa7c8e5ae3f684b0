import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { accounts, apiKeys } from '../db/schema';
import { InsufficientQuotaError } from '../errors';

/** What a key's account can spend now: its balance, and the key's quota left (null: no quota). */
export async function spendingRoom(
  db: DbOrTx,
  accountId: string,
  keyId: string,
): Promise<{ balanceMicroUsd: number; keyQuotaLeftMicroUsd: number | null } | null> {
  const rows = await db
    .select({
      balance: accounts.balanceMicroUsd,
      quota: apiKeys.quotaMicroUsd,
      used: apiKeys.usedMicroUsd,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return {
    balanceMicroUsd: row.balance,
    keyQuotaLeftMicroUsd: row.quota === null ? null : Math.max(0, row.quota - row.used),
  };
}

/**
 * Refuses a call the key's account cannot pay even `leastPriceMicroUsd` for (the cheapest call the
 * route could make), before its request body is read: InsufficientQuotaError, with the charge's own
 * messages. A read without a lock: the charge checks again under its lock, so this only turns away
 * early what the charge would refuse anyway.
 */
export async function refuseUnaffordable(
  db: DbOrTx,
  caller: { accountId: string; keyId: string },
  leastPriceMicroUsd: number,
): Promise<void> {
  if (leastPriceMicroUsd <= 0) return;
  const room = await spendingRoom(db, caller.accountId, caller.keyId);
  if (!room || room.balanceMicroUsd < leastPriceMicroUsd) throw new InsufficientQuotaError();
  if (room.keyQuotaLeftMicroUsd !== null && room.keyQuotaLeftMicroUsd < leastPriceMicroUsd) {
    throw new InsufficientQuotaError(
      "This API key's quota does not cover this request. Raise the key's quota or use another key.",
    );
  }
}
