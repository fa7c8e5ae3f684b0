import express, { type Express, Router } from 'express';
import type { ApiDeps } from './deps';
import { refuseCrossSiteCookieWrites } from './middleware/csrf';
import { errorHandler, notFoundHandler } from './middleware/errors';
import { httpMetrics, routeSpanName } from './middleware/metrics';
import { requestContext } from './middleware/request-context';
import { bundledUiHeaders, securityHeaders } from './middleware/security-headers';
import type { Mount } from './route';
import { routes } from './routes';
import { mountQueueDashboard } from './routes/admin.queues';
import { loadConsolePages } from './routes/console-app';

const MOUNTS: Mount[] = ['', '/v1', '/console/api', '/admin/api', '/payments'];

/** The Express app with every route; no listen, so tests and the server build the same thing. */
export function buildApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy(deps.config.TRUST_PROXY));
  app.use(requestContext(deps.logger));
  // While shutting down, answers close their connection so keep-alive clients reconnect elsewhere.
  app.use((_req, res, next) => {
    if (!deps.isAcceptingTraffic()) res.setHeader('connection', 'close');
    next();
  });
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  app.use(routeSpanName());
  app.use(securityHeaders({ upstreamBaseUrls: deps.videoUpstream.channels.baseUrls() }));
  app.use(['/docs', '/admin/queues'], bundledUiHeaders());
  app.use(refuseCrossSiteCookieWrites());

  // one router per mount, each with its routes in the list's order
  const routers = new Map<Mount, Router>(MOUNTS.map((m) => [m, Router()]));
  for (const route of routes) route.register(routers.get(route.mount)!, deps);
  const mounted = (m: Mount) => routers.get(m)!;
  app.use(mounted(''));
  app.use('/v1', mounted('/v1'));
  // the console (registration, login, tokens, balance) and the operators' API; see README
  app.use('/console/api', mounted('/console/api'));
  app.use('/admin/api', mounted('/admin/api'));
  const consolePages = loadConsolePages(deps);
  mountQueueDashboard(app, deps, consolePages);
  app.use('/payments', mounted('/payments'));

  // where each router is mounted, for the test that every route has an OpenAPI contract
  app.locals.routeMounts = MOUNTS.map((m) => [m, mounted(m)]);

  // the web console's pages at / (API paths keep their JSON answers)
  consolePages?.mount(app);

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

/** TRUST_PROXY as Express reads it: false, true, a hop count, or a list of proxy addresses. */
function trustProxy(value: string): boolean | number | string {
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
