import { getWebhookSettings, rotateWebhookSecret } from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { type AccountAuth, apiKeyAuth } from '../middleware/account-auth';
import { toSecretObject } from './callback-views';

/**
 * GET /v1/webhooks/secret: the account's `whsec_` signing secret (created on first use).
 * POST /v1/webhooks/secret/rotate: a new secret; for 24 hours deliveries carry a signature made
 * with the old one too, so receivers can switch without rejecting anything.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth = apiKeyAuth(deps)): void {
  router.get('/webhooks/secret', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    res.status(200).json(toSecretObject(await getWebhookSettings(deps.database.db, accountId)));
  });
  router.post('/webhooks/secret/rotate', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    const rotated = await rotateWebhookSecret(deps.database.db, accountId);
    req.log.info({ accountId }, 'webhook secret rotated');
    res.status(200).json(toSecretObject(rotated));
  });
}
