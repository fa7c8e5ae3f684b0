import type { Router } from 'express';
import type { ApiDeps } from '../deps';

/** GET /metrics: Prometheus text format (process, HTTP, queue depth, billing). Serve it to the scraper only. */
export function register(router: Router, deps: ApiDeps): void {
  const metrics = deps.metrics;
  if (!metrics) return;
  router.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', metrics.registry.contentType);
    res.status(200).send(await metrics.registry.metrics());
  });
}
