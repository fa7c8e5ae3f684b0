import { createServer, type Server } from 'node:http';
import type { RedisClient } from '@mediagate/shared';
import { type Database, type Metrics, migrationsApplied } from '@mediagate/shared';

/** /healthz, /readyz and /metrics of a worker process, on their own small HTTP server. */
export function startHealthServer(opts: {
  port: number;
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
    server.listen(opts.port, '0.0.0.0', () => resolve(server));
  });
}
