import { createServer, type Server } from 'node:http';
import { type Database, migrationsApplied } from '@mediagate/shared/db';
import { bearerMatches, type Metrics } from '@mediagate/shared/metrics';
import { type QueueName, queueKeyPrefix, type RedisClient } from '@mediagate/shared/queue';
import { withTimeout } from '@mediagate/shared/timeout';

/**
 * /healthz, /readyz and /metrics of a worker process, on their own small HTTP server bound to
 * `host` (WORKER_HTTP_HOST, 127.0.0.1 unless configured). With `metricsToken`, /metrics answers
 * only `Authorization: Bearer <token>` (401 otherwise).
 */
export function startHealthServer(opts: {
  port: number;
  host: string;
  metricsToken?: string;
  database: Database;
  redis: RedisClient;
  isAccepting: () => boolean;
  metrics?: Metrics;
  /**
   * keys of the queues this worker works on (queueReadinessKeys): it is ready only while the Redis
   * node holding each answers, on a Redis Cluster the master of its slot. Without them, a PING.
   */
  redisKeys?: string[];
  /** how long each check of /readyz may take before it counts as failed (default 2 s) */
  checkTimeoutMs?: number;
}): Promise<Server> {
  const timeoutMs = opts.checkTimeoutMs ?? 2_000;
  // every check answers within timeoutMs: a dependency that does not answer is a failed check
  const check = (what: string, work: () => Promise<boolean>) =>
    withTimeout(Promise.resolve().then(work), timeoutMs, { what: `readiness check ${what}` }).catch(
      () => false,
    );
  const redisAnswers = async () => {
    // a single server being reconnected to: no need to wait for the timeout
    if (opts.redis.status === 'reconnecting' || opts.redis.status === 'end') return false;
    const keys = opts.redisKeys ?? [];
    if (keys.length === 0) return (await opts.redis.ping()) === 'PONG';
    // a keyed read goes to the node that holds the key's slot (on a cluster, its master)
    await Promise.all(keys.map((k) => opts.redis.exists(k)));
    return true;
  };
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/healthz') return send(200, { status: 'ok' });
    if (req.url === '/metrics' && opts.metrics) {
      if (opts.metricsToken && !bearerMatches(req.headers.authorization, opts.metricsToken)) {
        return send(401, {
          error: {
            message: 'Send the metrics token as a bearer token.',
            type: 'authentication_error',
            code: 'invalid_api_key',
          },
        });
      }
      const body = await opts.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': opts.metrics.registry.contentType });
      return res.end(body);
    }
    if (req.url === '/readyz') {
      const [postgres, redis, migrations] = await Promise.all([
        check('postgres', () => opts.database.pool.query('select 1').then(() => true)),
        check('redis', redisAnswers),
        check('migrations', () => migrationsApplied(opts.database.pool)),
      ]);
      const checks = { accepting: opts.isAccepting(), postgres, redis, migrations };
      const ready = Object.values(checks).every(Boolean);
      return send(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks });
    }
    send(404, { error: { message: 'Unknown route', type: 'not_found_error', code: 'not_found' } });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve(server));
  });
}

/**
 * The keys /readyz reads to know that the Redis nodes of `queues` answer: one per queue, under the
 * queue's hash tag, so on a Redis Cluster each is held by the master that holds the queue.
 */
export function queueReadinessKeys(queuePrefix: string, queues: Iterable<QueueName>): string[] {
  return [...new Set(queues)].map((q) => `${queueKeyPrefix(queuePrefix, q)}:${q}:meta`);
}
