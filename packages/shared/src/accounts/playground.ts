import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiKeys } from '../db/schema';
import { activePrincipal, createApiKey, type Principal } from './accounts';
import { lockAccountKeys, MAX_KEYS_PER_ACCOUNT, TooManyKeysError } from './tokens';

/** The name of the key the console's playground calls with; listed with the account's keys. */
export const PLAYGROUND_KEY_NAME = 'Console playground';

/** The playground key exists but is disabled or expired (its owner turned it off), or the account is disabled. */
export class PlaygroundKeyOffError extends Error {
  constructor() {
    super(
      'The console playground key is disabled or expired; enable it under API keys to use the playground.',
    );
    this.name = 'PlaygroundKeyOffError';
  }
}

/**
 * The principal the console's playground calls as, for a signed-in account: its own key named
 * PLAYGROUND_KEY_NAME, made on first use (its secret is never kept nor shown: the browser never holds
 * a key, and the calls are billed, limited and listed like any other key's). One key per account:
 * made under a per-account lock. Throws PlaygroundKeyOffError when the owner disabled it (or it
 * expired, or the account is disabled), TooManyKeysError when the account holds the most keys.
 */
export async function playgroundPrincipal(db: Db, accountId: string): Promise<Principal> {
  const keyId = await db.transaction(async (tx) => {
    await lockAccountKeys(tx, accountId);
    const [existing] = await tx
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.accountId, accountId),
          sql`lower(${apiKeys.name}) = lower(${PLAYGROUND_KEY_NAME})`,
          ne(apiKeys.status, 'revoked'),
        ),
      )
      .orderBy(asc(apiKeys.id))
      .limit(1);
    if (existing) return existing.id;
    const [held] = await tx
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), ne(apiKeys.status, 'revoked')));
    if ((held?.n ?? 0) >= MAX_KEYS_PER_ACCOUNT) throw new TooManyKeysError();
    return (await createApiKey(tx, accountId, PLAYGROUND_KEY_NAME)).id;
  });
  const principal = await activePrincipal(db, eq(apiKeys.id, keyId));
  if (!principal) throw new PlaygroundKeyOffError();
  return principal;
}
