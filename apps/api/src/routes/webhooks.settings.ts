import { getWebhookSettings, updateWebhookEvents } from '@mediagate/shared';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { type AccountAuth, apiKeyAuth } from '../middleware/account-auth';
import { parseBody } from '../middleware/body';
import { toSettingsObject } from './callback-views';

/** Body of POST /v1/webhooks/settings. */
export const webhookSettingsBody = z.strictObject({ video_processing: z.boolean() });

/**
 * GET /v1/webhooks/settings: which events the account's callbacks carry (`video.succeeded` and
 * `video.failed` always). POST /v1/webhooks/settings `{"video_processing": true}` opts in to
 * `video.processing` for tasks that start from then on.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth = apiKeyAuth(deps)): void {
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
