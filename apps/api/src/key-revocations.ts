import {
  announceKeyRevocation,
  type KeyRevocation,
  keyRevocationChannel,
  type Principal,
  parseKeyRevocation,
} from '@mediagate/shared/accounts';
import type { Logger } from '@mediagate/shared/log';
import type { LruCache } from '@mediagate/shared/lru';
import type { RedisClient } from '@mediagate/shared/queue';

/** Drops the cached principals a change concerns (this replica only). */
export function forgetKeys(cache: LruCache<string, Principal> | undefined, what: KeyRevocation): void {
  if (!cache) return;
  if ('accountId' in what) cache.deleteWhere((p) => p.accountId === what.accountId);
  else cache.deleteWhere((p) => p.keyId === what.keyId);
}

/**
 * After a key or account change has committed: forgets it here at once and announces it to every
 * replica (Redis sharded pub/sub), before the change is answered. When Redis does not take the
 * announcement, other replicas still refuse the key once their entry expires (AUTH_CACHE_TTL_MS).
 */
export async function announceKeyChange(
  deps: { redis: RedisClient; queuePrefix: string; authCache?: LruCache<string, Principal>; logger: Logger },
  what: KeyRevocation,
): Promise<void> {
  forgetKeys(deps.authCache, what);
  if (!(await announceKeyRevocation(deps.redis, deps.queuePrefix, what))) {
    deps.logger.warn(
      { ...what },
      'key change not announced (Redis unavailable); replicas refuse it after AUTH_CACHE_TTL_MS',
    );
  }
}

/**
 * Keeps this replica's key cache in step with changes made anywhere: subscribes `subscriber` (a
 * connection of its own) to the announcements and drops what each concerns. The cache is
 * emptied whenever the subscription (re)starts, since announcements sent while it was down are
 * lost; until then, entries live at most AUTH_CACHE_TTL_MS. Returns a function that stops it.
 */
export function listenForKeyChanges(opts: {
  subscriber: RedisClient;
  queuePrefix: string;
  cache: LruCache<string, Principal>;
  logger: Logger;
}): () => Promise<void> {
  const { subscriber, cache } = opts;
  const channel = keyRevocationChannel(opts.queuePrefix);
  const subscribe = () => {
    subscriber.ssubscribe(channel).then(
      () => cache.clear(),
      (err: unknown) => opts.logger.warn({ err }, 'could not subscribe to key changes'),
    );
  };
  subscriber.on('smessage', (ch: string, message: string) => {
    if (ch !== channel) return;
    const what = parseKeyRevocation(message);
    if (what) forgetKeys(cache, what);
  });
  // ioredis re-subscribes by itself after a reconnect; the cache is emptied again then
  subscriber.on('ready', () => cache.clear());
  subscribe();
  return async () => {
    await subscriber.sunsubscribe(channel).catch(() => {});
    subscriber.disconnect();
  };
}
