import { recordOperatorAction } from '@mediagate/shared/audit';
import { listDisabledEndpoints, listWebhookEndpoints } from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import { z } from 'zod';
import { auditActor } from '../audit';
import type { ApiDeps } from '../deps';
import { requireAdmin } from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import { cursorPage } from './console-views';
import {
  enabledEndpointSchema,
  enableEndpoint,
  endpointObjects,
  webhookEndpointSchema,
} from './endpoint-views';

export const adminEndpointsQuery = z.strictObject({
  account_id: z.string().min(1).max(100).optional(),
  after: z
    .string()
    .regex(/^ep_[0-9A-Z]{26}$/, 'must be a next_cursor')
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const adminEndpoint = webhookEndpointSchema
  .extend({ account_id: z.string(), account_email: z.string().nullable() })
  .meta({ id: 'AdminWebhookEndpoint' });

/**
 * GET /admin/api/webhook-endpoints: the disabled callback endpoints of every account (with the
 * owner's e-mail), or with `account_id` every endpoint of that account that ever failed.
 * POST /admin/api/accounts/:id/webhook-endpoints/:endpointId/enable: enables one for its owner,
 * sends what it missed, and records it in the audit log.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  router.get('/webhook-endpoints', ...requireAdmin(deps), async (req, res) => {
    const q = adminEndpointsQuery.parse(req.query);
    if (q.account_id) {
      const rows = await listWebhookEndpoints(db, q.account_id);
      const data = (await endpointObjects(deps, rows)).map((e, i) => ({
        ...e,
        account_id: rows[i]!.accountId,
        account_email: null,
      }));
      res.status(200).json({ object: 'list', data, has_more: false, next_cursor: null });
      return;
    }
    const page = await listDisabledEndpoints(db, { limit: q.limit, after: q.after });
    const data = (await endpointObjects(deps, page.rows)).map((e, i) => ({
      ...e,
      account_id: page.rows[i]!.accountId,
      account_email: page.rows[i]!.email,
    }));
    res.status(200).json({
      object: 'list',
      data,
      has_more: page.hasMore,
      next_cursor: page.hasMore ? (data[data.length - 1]?.id ?? null) : null,
    });
  });

  router.post(
    '/accounts/:id/webhook-endpoints/:endpointId/enable',
    ...requireAdmin(deps),
    async (req, res) => {
      const actor = auditActor(req);
      const accountId = String(req.params.id);
      res.status(200).json(
        await enableEndpoint(deps, req, {
          accountId,
          endpointId: String(req.params.endpointId),
          by: actor.operatorId,
          inTransaction: (tx, change) =>
            recordOperatorAction(tx, actor, {
              action: 'webhook_endpoint.enable',
              accountId,
              targetType: 'webhook_endpoint',
              targetId: change.after.id,
              before: { url: change.before.url, status: change.before.status },
              after: { url: change.after.url, status: change.after.status, redelivered: change.redelivered },
            }),
        }),
      );
    },
  );
}

const op = endpoints({ tag: 'admin', auth: 'admin' });

export const contracts: RouteContract[] = [
  op(
    'GET /admin/api/webhook-endpoints',
    "Disabled callback endpoints of every account, or one account's endpoints",
    {
      query: adminEndpointsQuery,
      200: cursorPage(adminEndpoint, 'AdminWebhookEndpointList'),
    },
  ),
  op(
    'POST /admin/api/accounts/:id/webhook-endpoints/:endpointId/enable',
    "Enable a customer's disabled endpoint (audited): what it missed is sent",
    { 200: enabledEndpointSchema, 404: 'no such endpoint' },
  ),
];

export const route: Route = { mount: '/admin/api', contracts, register };
