import { ApiError } from '@mediagate/shared/errors';
import { bearerMatches } from '@mediagate/shared/metrics';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { ApiDeps } from '../deps';
import { errorHandler, notFoundHandler } from '../middleware/errors';
import { requestContext } from '../middleware/request-context';
import { type ContractDeps, endpoint, type Route, type RouteContract } from '../route';

export const contracts = (deps: ContractDeps): RouteContract[] =>
  metricsOnApiPort(deps)
    ? [
        endpoint('GET /metrics', 'Prometheus metrics (Authorization: Bearer <METRICS_TOKEN>)', {
          tag: 'operations',
          auth: 'none',
          200: { description: 'Prometheus text format', contentType: 'text/plain' },
          401: 'no or wrong metrics token',
        }),
      ]
    : [];

/**
 * GET /metrics: Prometheus text format (process, HTTP, queue depth, billing), for the scraper
 * only. On the API port it is served when METRICS_TOKEN is set, to requests that bring it as a
 * bearer token (401 otherwise), and not at all (404) when METRICS_PORT gives it a listener of
 * its own or no token is configured.
 */
export function register(router: Router, deps: ApiDeps): void {
  if (!metricsOnApiPort(deps)) return;
  router.get('/metrics', serveMetrics(deps));
}

/** Whether /metrics is served on the API port (a token is set and no listener of its own). */
export function metricsOnApiPort(deps: Partial<Pick<ApiDeps, 'metrics' | 'config'>>): boolean {
  return (
    deps.metrics !== undefined &&
    deps.config !== undefined &&
    deps.config.METRICS_PORT === undefined &&
    !!deps.config.METRICS_TOKEN
  );
}

export const route: Route = { mount: '', contracts, register };

function serveMetrics(deps: ApiDeps): RequestHandler {
  const metrics = deps.metrics!;
  const token = deps.config.METRICS_TOKEN;
  return async (req, res) => {
    if (token && !bearerMatches(req.headers.authorization, token)) {
      throw new ApiError(
        'invalid_api_key',
        'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.',
      );
    }
    res.setHeader('content-type', metrics.registry.contentType);
    res.status(200).send(await metrics.registry.metrics());
  };
}

/** The listener of its own for /metrics (METRICS_HOST:METRICS_PORT); the token applies there too when set. */
export function buildMetricsApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestContext(deps.logger));
  if (deps.metrics) app.get('/metrics', serveMetrics(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
