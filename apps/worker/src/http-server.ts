import { createServer, type Server } from 'node:http';
import { type Database, migrationsApplied } from '@mediagate/shared/db';
import { bearerMatches, type Metrics } from '@mediagate/shared/metrics';
import type { RedisClient } from '@mediagate/shared/queue';

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
}): Promise<Server> {
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
      const checks = {
        accepting: opts.isAccepting(),
        postgres: await opts.database.pool.query('select 1').then(
          () => true,
          () => false,
        ),
        redis: await opts.redis.ping().then(
          (r) => r === 'PONG',
          () => false,
        ),
        migrations: await migrationsApplied(opts.database.pool),
      };
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
