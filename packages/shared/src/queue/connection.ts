import IORedis, { Cluster, type RedisOptions } from 'ioredis';

/** A connection to a single Redis server or to a Redis Cluster; BullMQ and the limiters take either. */
export type RedisClient = IORedis | Cluster;

/**
 * A Redis connection for BullMQ. `worker` connections retry commands forever (BullMQ requires
 * it for blocking commands); `producer` connections fail a command fast so an API request never
 * hangs on a Redis outage. With `cluster`, `url` is any node of a Redis Cluster (the others are
 * discovered); each queue's keys share a hash tag of their own (see keys.ts), so a queue lives in
 * one slot and the queues and other keys spread over the masters. A `subscriber` connection
 * listens to sharded channels (SSUBSCRIBE): on a cluster it keeps one connection per master.
 */
export function createRedis(
  url: string,
  role: 'worker' | 'producer',
  opts: { cluster?: boolean; subscriber?: boolean } = {},
): RedisClient {
  const options: RedisOptions = {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableReadyCheck: true,
    connectTimeout: 5_000,
    // reconnect attempts at most half a second apart: work waiting on Redis resumes within half a
    // second of its return
    retryStrategy: (times) => Math.min(times * 100, 500),
  };
  const redis = opts.cluster
    ? new Cluster([clusterSeed(url)], {
        redisOptions: { ...redisAuth(url), ...options },
        clusterRetryStrategy: (times) => Math.min(times * 100, 500),
        enableReadyCheck: true,
        shardedSubscribers: opts.subscriber === true,
      })
    : new IORedis(url, options);
  // Connection errors are retried by ioredis; without a listener they would crash the process.
  redis.on('error', () => {});
  return redis;
}

function clusterSeed(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 6379) };
}

function redisAuth(url: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const first = new URL(url);
  return {
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
