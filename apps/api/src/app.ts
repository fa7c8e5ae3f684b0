import express, { type Express, Router } from 'express';
import type { ApiDeps } from './deps';
import { refuseCrossSiteCookieWrites } from './middleware/csrf';
import { errorHandler, notFoundHandler } from './middleware/errors';
import { httpMetrics } from './middleware/metrics';
import { requestContext } from './middleware/request-context';
import { bundledUiHeaders, securityHeaders } from './middleware/security-headers';
import * as adminAccounts from './routes/admin.accounts';
import * as adminQueues from './routes/admin.queues';
import * as adminTasks from './routes/admin.tasks';
import { loadConsolePages } from './routes/console-app';
import { sessionAuth } from './middleware/account-auth';
import * as adminTransfers from './routes/admin.transfers';
import * as consoleBilling from './routes/console.billing';
import * as consoleModels from './routes/console.models';
import * as consolePassword from './routes/console.password';
import * as consoleWebhooks from './routes/console.webhooks';
import * as consoleRegister from './routes/console.register';
import * as consoleSession from './routes/console.session';
import * as consoleTokens from './routes/console.tokens';
import * as consoleTopUps from './routes/console.topups';
import * as consoleVerify from './routes/console.verify';
import * as docs from './routes/docs';
import * as health from './routes/health';
import * as imagesEdit from './routes/images.edit';
import * as imagesGenerate from './routes/images.generate';
import * as mediaGet from './routes/media.get';
import * as metricsRoute from './routes/metrics';
import * as modelsGet from './routes/models.get';
import * as modelsList from './routes/models.list';
import * as paymentsNotify from './routes/payments.notify';
import * as paymentsQrNotify from './routes/payments.qr-notify';
import * as videosCallbacksList from './routes/videos.callbacks.list';
import * as videosCallbacksRedeliver from './routes/videos.callbacks.redeliver';
import * as videosCancel from './routes/videos.cancel';
import * as videosContent from './routes/videos.content';
import * as videosCreate from './routes/videos.create';
import * as videosEvents from './routes/videos.events';
import * as videosDelete from './routes/videos.delete';
import * as videosGet from './routes/videos.get';
import * as videosList from './routes/videos.list';
import * as videosUnsupported from './routes/videos.unsupported';
import * as webhooksSecret from './routes/webhooks.secret';
import * as webhooksSettings from './routes/webhooks.settings';

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
  app.use(securityHeaders());
  app.use(['/docs', '/admin/queues'], bundledUiHeaders());
  app.use(refuseCrossSiteCookieWrites());

  const root = Router();
  health.register(root, deps);
  metricsRoute.register(root, deps);
  docs.register(root, deps);
  mediaGet.register(root, deps);
  app.use(root);

  const v1 = Router();
  videosCreate.register(v1, deps);
  videosGet.register(v1, deps);
  videosEvents.register(v1, deps);
  videosList.register(v1, deps);
  videosCancel.register(v1, deps);
  videosContent.register(v1, deps);
  videosDelete.register(v1, deps);
  videosUnsupported.register(v1, deps);
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
  consolePassword.register(consoleApi, deps);
  consoleModels.register(consoleApi, deps);
  // the account's videos, callbacks and webhook settings, as /v1 serves them to its keys
  const session = sessionAuth(deps);
  videosList.register(consoleApi, deps, session);
  videosGet.register(consoleApi, deps, session);
  videosCallbacksList.register(consoleApi, deps, session);
  videosCallbacksRedeliver.register(consoleApi, deps, session);
  webhooksSecret.register(consoleApi, deps, session);
  webhooksSettings.register(consoleApi, deps, session);
  consoleWebhooks.register(consoleApi, deps);
  consoleTopUps.register(consoleApi, deps);
  app.use('/console/api', consoleApi);
  const adminApi = Router();
  adminAccounts.register(adminApi, deps);
  adminTasks.register(adminApi, deps);
  adminTransfers.register(adminApi, deps);
  adminQueues.register(adminApi, deps);
  app.use('/admin/api', adminApi);
  const consolePages = loadConsolePages(deps);
  adminQueues.mountQueueDashboard(app, deps, consolePages);
  const payments = Router();
  // the QR providers' own routes first: /payments/:provider/notify is the dev provider's
  paymentsQrNotify.register(payments, deps);
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
