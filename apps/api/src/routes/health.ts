import { healthResponse } from '@mediagate/shared/contracts';
import { migrationsApplied } from '@mediagate/shared/db';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { endpoints, ok, type Route, type RouteContract } from '../route';

const op = endpoints({ tag: 'operations', auth: 'none' });

export const contracts: RouteContract[] = [
  op('GET /healthz', 'Liveness', { 200: healthResponse }),
  op('GET /readyz', 'Readiness: Postgres, Redis and migrations answer and the process is not draining', {
    200: healthResponse,
    503: ok(healthResponse, 'not ready'),
  }),
];

/**
 * /healthz: the process is alive. /readyz: it can answer (Postgres and migrations, not draining).
 * Redis is reported but not required: the API keeps serving without it (reads, images, and video
 * creates that the reconciler enqueues later), so a Redis outage must not pull every replica out
 * of the load balancer at once.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks = {
      accepting: deps.isAcceptingTraffic(),
      postgres: await deps.database.pool
        .query('select 1')
        .then(() => true)
        .catch(() => false),
      redis: await deps.redis
        .ping()
        .then((r) => r === 'PONG')
        .catch(() => false),
      migrations: await migrationsApplied(deps.database.pool),
    };
    const ready = checks.accepting && checks.postgres && checks.migrations;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
}

export const route: Route = { mount: '', contracts, register };
