import IORedis, { type RedisOptions } from 'ioredis';

/**
 * A Redis connection for BullMQ. `worker` connections retry commands forever (BullMQ requires
 * it for blocking commands); `producer` connections fail a command fast so an API request never
 * hangs on a Redis outage.
 */
export function createRedis(url: string, role: 'worker' | 'producer', extra: RedisOptions = {}): IORedis {
  const redis = new IORedis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableReadyCheck: true,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    ...extra,
  });
  // Connection errors are retried by ioredis; without a listener they would crash the process.
  redis.on('error', () => {});
  return redis;
}
