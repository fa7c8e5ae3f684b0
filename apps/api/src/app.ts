import express, { type Express, Router } from 'express';
import type { ApiDeps } from './deps';
import { errorHandler, notFoundHandler } from './middleware/errors';
import { httpMetrics } from './middleware/metrics';
import { requestContext } from './middleware/request-context';
import * as adminAccounts from './routes/admin.accounts';
import * as adminQueues from './routes/admin.queues';
import * as adminTasks from './routes/admin.tasks';
import * as consoleBilling from './routes/console.billing';
import * as consoleRegister from './routes/console.register';
import * as consoleSession from './routes/console.session';
import * as consoleTokens from './routes/console.tokens';
import * as consoleVerify from './routes/console.verify';
import * as docs from './routes/docs';
import * as health from './routes/health';
import * as imagesEdit from './routes/images.edit';
import * as imagesGenerate from './routes/images.generate';
import * as metricsRoute from './routes/metrics';
import * as modelsGet from './routes/models.get';
import * as modelsList from './routes/models.list';
import * as paymentsNotify from './routes/payments.notify';
import * as videosCallbacksList from './routes/videos.callbacks.list';
import * as videosCallbacksRedeliver from './routes/videos.callbacks.redeliver';
import * as videosCancel from './routes/videos.cancel';
import * as videosCreate from './routes/videos.create';
import * as videosEvents from './routes/videos.events';
import * as videosGet from './routes/videos.get';
import * as videosList from './routes/videos.list';
import * as webhooksSecret from './routes/webhooks.secret';
import * as webhooksSettings from './routes/webhooks.settings';

/** The Express app with every route; no listen, so tests and the server build the same thing. */
export function buildApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy(deps.config.TRUST_PROXY));
  app.use(requestContext(deps.logger));
  if (deps.metrics) app.use(httpMetrics(deps.metrics));

  const root = Router();
  health.register(root, deps);
  metricsRoute.register(root, deps);
  docs.register(root, deps);
  app.use(root);

  const v1 = Router();
  videosCreate.register(v1, deps);
  videosGet.register(v1, deps);
  videosEvents.register(v1, deps);
  videosList.register(v1, deps);
  videosCancel.register(v1, deps);
  videosCallbacksList.register(v1, deps);
  videosCallbacksRedeliver.register(v1, deps);
  webhooksSecret.register(v1, deps);
  webhooksSettings.register(v1, deps);
  imagesGenerate.register(v1, deps);
  imagesEdit.register(v1, deps);
  modelsList.register(v1, deps);
  modelsGet.register(v1, deps);
  app.use('/v1', v1);

  // The console (registration, login, tokens, balance) and the operators' API; see README.
  const consoleApi = Router();
  consoleRegister.register(consoleApi, deps);
  consoleVerify.register(consoleApi, deps);
  consoleSession.register(consoleApi, deps);
  consoleTokens.register(consoleApi, deps);
  consoleBilling.register(consoleApi, deps);
  app.use('/console/api', consoleApi);
  const adminApi = Router();
  adminAccounts.register(adminApi, deps);
  adminTasks.register(adminApi, deps);
  adminQueues.register(adminApi, deps);
  app.use('/admin/api', adminApi);
  adminQueues.mountQueueDashboard(app, deps);
  const payments = Router();
  paymentsNotify.register(payments, deps);
  app.use('/payments', payments);

  // where each router is mounted, for the test that every route has an OpenAPI contract
  app.locals.routeMounts = [
    ['', root],
    ['/v1', v1],
    ['/console/api', consoleApi],
    ['/admin/api', adminApi],
    ['/payments', payments],
  ];

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
