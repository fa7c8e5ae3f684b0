import { listOf } from '@mediagate/shared/contracts';
import { listWebhookEndpoints } from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import type { AccountAuth } from '../middleware/account-auth';
import { accountRoutes, endpoints, type RouteContract } from '../route';
import {
  enabledEndpointSchema,
  enableEndpoint,
  endpointObjects,
  webhookEndpointSchema,
} from './endpoint-views';

/**
 * GET /v1/webhooks/endpoints: the account's callback endpoints that ever failed for good, with
 * their state (failing since when, disabled when and why, the last error, deliveries held).
 * POST /v1/webhooks/endpoints/:id/enable: enables a disabled one again and sends what it missed.
 */
export function register(router: Router, deps: ApiDeps, auth: AccountAuth): void {
  router.get('/webhooks/endpoints', ...auth.handlers, async (req, res) => {
    const rows = await listWebhookEndpoints(deps.database.db, auth.accountOf(req));
    res.status(200).json({ object: 'list', data: await endpointObjects(deps, rows) });
  });
  router.post('/webhooks/endpoints/:endpointId/enable', ...auth.handlers, async (req, res) => {
    const accountId = auth.accountOf(req);
    res.status(200).json(
      await enableEndpoint(deps, req, {
        accountId,
        endpointId: String(req.params.endpointId),
        by: accountId,
      }),
    );
  });
}

const op = endpoints({ tag: 'callbacks', auth: 'apiKey' });

export const contracts: RouteContract[] = [
  op(
    'GET /v1/webhooks/endpoints',
    "The account's callback endpoints that failed, and whether they are disabled",
    {
      200: listOf(webhookEndpointSchema, 'WebhookEndpointList'),
    },
  ),
  op('POST /v1/webhooks/endpoints/:endpointId/enable', 'Enable a disabled endpoint: what it missed is sent', {
    200: enabledEndpointSchema,
    404: 'no such endpoint',
  }),
];

export const routes = accountRoutes(register, contracts, [
  'Callback endpoints that failed, and whether they are disabled',
  'Enable a disabled endpoint: what it missed is sent',
]);
