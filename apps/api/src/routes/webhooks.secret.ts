import { getWebhookSettings, rotateWebhookSecret } from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { accountRoutes, endpoints, type RouteContract } from '../route';
import { toSecretObject, webhookSecretSchema } from './callback-views';

/**
 * GET /v1/webhooks/secret: the account's `whsec_` signing secret (created on first use).
 * POST /v1/webhooks/secret/rotate: a new secret; for 24 hours deliveries carry a signature made
 * with the old one too, so receivers can switch without rejecting anything.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
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

const op = endpoints({ tag: 'callbacks', auth: 'apiKey' });

export const contracts: RouteContract[] = [
  op('GET /v1/webhooks/secret', "The account's whsec_ signing secret", { 200: webhookSecretSchema }),
  op('POST /v1/webhooks/secret/rotate', 'Rotate the signing secret (both signatures are sent for 24 hours)', {
    200: webhookSecretSchema,
  }),
];

export const routes = accountRoutes(register, contracts, [
  'The whsec_ signing secret',
  'Rotate the signing secret (the old one also signs for 24 hours)',
]);
