/**
 * The names of the gateway's Redis keys and channels. Every name starts with the deployment's
 * namespace: `QUEUE_PREFIX` without braces (`{mediagate}`, the braced form older versions
 * required, and `mediagate` name the same namespace).
 *
 * On a Redis Cluster a key's slot is the hash of its hash tag (the text between its first `{` and
 * the next `}`) or, without one, of the whole key. So that the keys spread over the masters:
 * - each BullMQ queue has a hash tag of its own, `{<namespace>:<queue>}` (BullMQ needs every key
 *   of one queue in one slot, and nothing more);
 * - a key that is used alone (a limiter, a lock, a cache entry, a channel) has no tag at all;
 * - a group of keys one script touches together (the poll calendar's seconds of one channel)
 *   shares a tag of its own.
 */

/** The namespace of every key: `queuePrefix` (QUEUE_PREFIX) without braces. */
export function redisNamespace(queuePrefix: string): string {
  return queuePrefix.replace(/[{}]/g, '');
}

/** The BullMQ `prefix` of `queue`: a hash tag of its own, `{<namespace>:<queue>}`. */
export function queueKeyPrefix(queuePrefix: string, queue: string): string {
  return `{${redisNamespace(queuePrefix)}:${queue}}`;
}

/**
 * The BullMQ `prefix` every queue had before each got a hash tag of its own: `{<namespace>}`, one
 * slot for all of them. Jobs left there by an older version are moved (see moveLegacyJobs).
 */
export function legacyQueueKeyPrefix(queuePrefix: string): string {
  return `{${redisNamespace(queuePrefix)}}`;
}

/** A key used on its own (no hash tag): `<namespace>:<part>:<part>...`. */
export function redisKey(queuePrefix: string, ...parts: string[]): string {
  return [redisNamespace(queuePrefix), ...parts].join(':');
}

/** A group of keys that share one slot: `{<namespace>:<part>...}`; members add `:<suffix>`. */
export function redisKeyGroup(queuePrefix: string, ...parts: string[]): string {
  return `{${redisKey(queuePrefix, ...parts)}}`;
}
