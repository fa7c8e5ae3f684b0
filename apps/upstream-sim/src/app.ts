import type { Logger } from '@mediagate/shared/log';
import express, { type ErrorRequestHandler, type Express, type RequestHandler, Router } from 'express';
import pino from 'pino';
import * as arkImages from './ark-images';
import type { SimConfig } from './config';
import * as control from './control';
import * as imageEdit from './dashscope-image-edit';
import * as video from './dashscope-video';
import * as media from './media';
import { PngCache } from './png';
import { SimState } from './state';
import {
  defaultVendorError,
  renderVendorError,
  type Vendor,
  VendorError,
  vendorForPath,
} from './vendor-errors';

/** Largest request body: 14 reference images of up to 10 MB each, base64-encoded, fit. */
const BODY_LIMIT = '200mb';

/**
 * The simulator as an Express app (no listen) and the in-memory state behind it, so tests can listen
 * on a free port and inspect or steer the state directly.
 */
export function buildSimApp(config: SimConfig, logger?: Logger): { app: Express; state: SimState } {
  const log = logger ?? pino({ level: 'silent' });
  const state = new SimState(config);
  const pngs = new PngCache();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (log.isLevelEnabled('debug')) app.use(requestLog(log));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const routes = Router();
  routes.use('/api', express.json({ limit: BODY_LIMIT }));
  video.register(routes, state);
  imageEdit.register(routes, state);
  arkImages.register(routes, state, pngs);
  media.register(routes, pngs, state);
  control.register(routes, state, config.SIM_CONTROL_TOKEN);
  app.use(routes);

  app.use(notFound);
  app.use(errorHandler(log));
  return { app, state };
}

function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const start = performance.now();
    res.on('finish', () => {
      const ms = Math.round((performance.now() - start) * 10) / 10;
      log.debug({ method: req.method, url: req.originalUrl, status: res.statusCode, ms }, 'request');
    });
    next();
  };
}

const NOT_FOUND_CODE: Record<Vendor, string> = { dashscope: 'NotFound', ark: 'NotFound', sim: 'not_found' };

const notFound: RequestHandler = (req, _res, next) => {
  const vendor = vendorForPath(req.path);
  next(new VendorError(vendor, 404, NOT_FOUND_CODE[vendor], `Unknown route: ${req.method} ${req.path}`));
};

/** The one error handler: every failure leaves in the envelope of the vendor whose path was called. */
function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const vendorErr = err instanceof VendorError ? err : fromOtherError(err, vendorForPath(req.path), log);
    if (res.headersSent) {
      res.end();
      return;
    }
    const { body, headers } = renderVendorError(vendorErr);
    res.status(vendorErr.status).set(headers).json(body);
  };
}

/** Body-parser and file-sending failures are the client's; anything else is a logged 500. */
function fromOtherError(err: unknown, vendor: Vendor, log: Logger): VendorError {
  const e = err as { type?: string; status?: number; message?: string };
  const badRequest = vendor === 'sim' ? 'invalid_control_request' : 'InvalidParameter';
  if (e.type === 'entity.parse.failed')
    return new VendorError(vendor, 400, badRequest, 'The request body is not valid JSON.');
  if (e.type === 'entity.too.large')
    return new VendorError(vendor, 413, badRequest, 'The request body is too large.');
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    const code = e.status === 400 ? badRequest : defaultVendorError(vendor, e.status).code;
    return new VendorError(vendor, e.status, code, e.message || 'Bad request.');
  }
  log.error({ err }, 'unhandled error');
  const fallback = defaultVendorError(vendor, 500);
  return new VendorError(vendor, 500, fallback.code, fallback.message);
}
