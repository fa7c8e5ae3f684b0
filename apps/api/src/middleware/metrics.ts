import type { Metrics } from '@mediagate/shared/metrics';
import { routeNamerOfActiveSpan } from '@mediagate/shared/tracing';
import type { RequestHandler } from 'express';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
/**
 * The route pattern with its router's mount path. Express forgets req.baseUrl once a router is
 * done, so the mount comes from the table buildApp records in app.locals.routeMounts.
 */
export function routeLabel(req: Parameters<RequestHandler>[0]): string {
  if (!req.route?.path) return 'unmatched';
  const path = req.originalUrl.split('?')[0] ?? '';
  const mounts = ((req.app.locals.routeMounts ?? []) as Array<[string, unknown]>)
    .map(([m]) => m)
    .filter(Boolean);
  const mount = mounts.find((m) => path.startsWith(`${m}/`)) ?? '';
  return `${mount}${String(req.route.path)}`;
}

/**
 * Observes every request's duration by method, route pattern (`/v1/videos/:taskId`, never the
 * raw path, so label values stay bounded) and status code.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpRequestDuration.startTimer();
    res.once('finish', () => {
      end({
        method: METHODS.has(req.method) ? req.method : 'other',
        route: routeLabel(req),
        status_code: String(res.statusCode),
      });
    });
    next();
  };
}

/**
 * Names the request's server span after its route pattern (`POST /v1/videos`), not its method
 * alone: the name is set as the answer ends, when the route is known and the span still open.
 */
export function routeSpanName(): RequestHandler {
  return (req, res, next) => {
    const nameSpan = routeNamerOfActiveSpan();
    const end = res.end;
    res.end = function (this: typeof res, ...args: Parameters<typeof end>) {
      const route = routeLabel(req);
      if (route !== 'unmatched') nameSpan(req.method, route);
      return end.apply(this, args);
    } as typeof end;
    next();
  };
}
