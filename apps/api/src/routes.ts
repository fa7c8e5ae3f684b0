import type { Route } from './route';
import * as adminAccounts from './routes/admin.accounts';
import * as adminAudit from './routes/admin.audit';
import * as adminCustomer from './routes/admin.customer';
import * as adminQueues from './routes/admin.queues';
import * as adminTasks from './routes/admin.tasks';
import * as adminTopUpsRefund from './routes/admin.topups.refund';
import * as adminTransfers from './routes/admin.transfers';
import * as adminWebhooks from './routes/admin.webhooks';
import * as consoleBilling from './routes/console.billing';
import * as consoleModels from './routes/console.models';
import * as consolePassword from './routes/console.password';
import * as consoleRegister from './routes/console.register';
import * as consoleSession from './routes/console.session';
import * as consoleTokens from './routes/console.tokens';
import * as consoleTopUps from './routes/console.topups';
import * as consoleTopUpsCancel from './routes/console.topups.cancel';
import * as consoleVerify from './routes/console.verify';
import * as consoleVideos from './routes/console.videos';
import * as consoleWebhooks from './routes/console.webhooks';
import { docsRoute } from './routes/docs';
import * as health from './routes/health';
import * as imagesEdit from './routes/images.edit';
import * as imagesGenerate from './routes/images.generate';
import * as mediaGet from './routes/media.get';
import * as metrics from './routes/metrics';
import * as modelsGet from './routes/models.get';
import * as modelsList from './routes/models.list';
import * as paymentsNotify from './routes/payments.notify';
import * as paymentsQrNotify from './routes/payments.qr-notify';
import * as playgroundUploads from './routes/playground.uploads';
import * as playgroundImages from './routes/playground.images';
import * as videosCallbacksList from './routes/videos.callbacks.list';
import * as videosCallbacksRedeliver from './routes/videos.callbacks.redeliver';
import * as videosCancel from './routes/videos.cancel';
import * as videosContent from './routes/videos.content';
import * as videosCreate from './routes/videos.create';
import * as videosDelete from './routes/videos.delete';
import * as videosEvents from './routes/videos.events';
import * as videosGet from './routes/videos.get';
import * as videosList from './routes/videos.list';
import * as videosUnsupported from './routes/videos.unsupported';
import * as webhooksEndpoints from './routes/webhooks.endpoints';
import * as webhooksSecret from './routes/webhooks.secret';
import * as webhooksSettings from './routes/webhooks.settings';

/**
 * Every route module of the API, in the order its routes are matched within their mount. The app
 * registers these and the OpenAPI document is built from their contracts: a new route is its file
 * and one line here.
 */
export const routes: readonly Route[] = [
  health.route,
  metrics.route,
  docsRoute(() => routes),
  // before /media/:taskId/:file, which would take `uploads` for a task id
  playgroundUploads.routes.media,
  mediaGet.route,

  videosCreate.route,
  videosGet.routes.v1,
  videosEvents.route,
  videosList.routes.v1,
  videosCancel.route,
  videosContent.route,
  videosDelete.route,
  videosUnsupported.route,
  videosCallbacksList.routes.v1,
  videosCallbacksRedeliver.routes.v1,
  webhooksSecret.routes.v1,
  webhooksSettings.routes.v1,
  webhooksEndpoints.routes.v1,
  imagesGenerate.route,
  imagesEdit.route,
  modelsList.route,
  modelsGet.route,

  // the console: registration, login, keys, balance, and the account's videos, callbacks and
  // webhook settings as /v1 serves them to its keys
  consoleRegister.route,
  consoleVerify.route,
  consoleSession.route,
  consoleTokens.route,
  consoleBilling.route,
  consolePassword.route,
  consoleModels.route,
  consoleVideos.route,
  videosCreate.playgroundRoute,
  videosEvents.playgroundRoute,
  playgroundImages.route,
  playgroundUploads.routes.console,
  videosCallbacksList.routes.console,
  videosCallbacksRedeliver.routes.console,
  webhooksSecret.routes.console,
  webhooksSettings.routes.console,
  webhooksEndpoints.routes.console,
  consoleWebhooks.route,
  consoleTopUps.route,
  consoleTopUpsCancel.route,

  // the operators' API
  adminAccounts.route,
  adminTasks.route,
  adminCustomer.route,
  adminTransfers.route,
  adminTopUpsRefund.route,
  adminQueues.route,
  adminAudit.route,
  adminWebhooks.route,

  // the QR providers' own routes first: /payments/:provider/notify is the dev provider's
  paymentsQrNotify.route,
  paymentsNotify.route,
];
