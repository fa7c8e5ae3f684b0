import type { RedisClient } from '../queue/connection';
import { redisKey } from '../queue/keys';
import { withTimeout } from '../timeout';

/** What changed: every key of an account (disabled, limits changed) or one key (revoked, edited). */
export type KeyRevocation = { accountId: string } | { keyId: string };

/** The (sharded) pub/sub channel on which key changes are announced to every API replica. */
export const keyRevocationChannel = (prefix: string): string => redisKey(prefix, 'key-revocations');

/**
 * Tells every API replica to forget what it cached about an account's keys (or one key), after
 * the change has committed. Resolves false, never throws, when Redis does not take it within
 * `timeoutMs`: replicas then refuse the key once their cache entry expires (AUTH_CACHE_TTL_MS).
 */
export async function announceKeyRevocation(
  redis: RedisClient,
  prefix: string,
  what: KeyRevocation,
  timeoutMs = 1_000,
): Promise<boolean> {
  try {
    await withTimeout(redis.spublish(keyRevocationChannel(prefix), JSON.stringify(what)), timeoutMs, {
      what: 'key revocation announcement',
    });
    return true;
  } catch {
    return false;
  }
}

/** Parses an announcement; undefined for anything else on the channel. */
export function parseKeyRevocation(message: string): KeyRevocation | undefined {
  try {
    const v = JSON.parse(message) as Record<string, unknown>;
    if (typeof v.accountId === 'string') return { accountId: v.accountId };
    if (typeof v.keyId === 'string') return { keyId: v.keyId };
  } catch {
    // not ours
  }
  return undefined;
}
