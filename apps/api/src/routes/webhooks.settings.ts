import { getWebhookSettings, updateWebhookEvents } from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { parseBody } from '../middleware/body';
import { accountRoutes, endpoints, type RouteContract } from '../route';
import { toSettingsObject, webhookSettingsSchema } from './callback-views';

/** Body of POST /v1/webhooks/settings. */
export const webhookSettingsBody = z.strictObject({ video_processing: z.boolean() });

/**
 * GET /v1/webhooks/settings: which events the account's callbacks carry (`video.succeeded` and
 * `video.failed` always). POST /v1/webhooks/settings `{"video_processing": true}` opts in to
 * `video.processing` for tasks that start from then on.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
  router.get('/webhooks/settings', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    res.status(200).json(toSettingsObject(await getWebhookSettings(deps.database.db, accountId)));
  });
  router.post(
    '/webhooks/settings',
    ...auth.handlers,
    ...parseBody({ limitBytes: 4_096 }),
    async (req, res) => {
      const accountId = auth.accountOf(req);
      const body = webhookSettingsBody.parse(req.body ?? {});
      const settings = await updateWebhookEvents(deps.database.db, accountId, {
        sendProcessing: body.video_processing,
      });
      res.status(200).json(toSettingsObject(settings));
    },
  );
}

const op = endpoints({ tag: 'callbacks', auth: 'apiKey' });

export const contracts: RouteContract[] = [
  op('GET /v1/webhooks/settings', 'Which events the account receives', { 200: webhookSettingsSchema }),
  op('POST /v1/webhooks/settings', 'Opt in or out of video.processing events', {
    body: webhookSettingsBody,
    200: webhookSettingsSchema,
  }),
];

export const routes = accountRoutes(register, contracts, [
  'Which events callbacks carry',
  'Opt in or out of video.processing events',
]);
