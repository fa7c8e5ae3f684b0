// The webhook endpoints as the API shows them, and enabling one (the owner's routes and the operators').
import { consoleObject } from '@mediagate/shared/contracts';
import type { WebhookEndpointRow } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import { enqueueDelivery } from '@mediagate/shared/queue';
import { countHeldDeliveries, enableWebhookEndpoint } from '@mediagate/shared/webhooks';
import type { Request } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';

const unix = (d: Date | null): number | null => (d ? Math.floor(d.getTime() / 1000) : null);

export const webhookEndpointSchema = consoleObject('WebhookEndpoint', {
  object: z.literal('webhook_endpoint'),
  id: z.string().describe('ep_...'),
  url: z.string().describe('scheme, host, port and path of the callback URLs it stands for (no query)'),
  status: z.enum(['enabled', 'disabled']),
  failing: z.boolean().describe('every delivery has failed for good since failing_since'),
  failing_since: z.number().int().nullable(),
  last_failure_at: z.number().int().nullable(),
  last_error: z.string().nullable(),
  disabled_at: z.number().int().nullable(),
  disabled_reason: z.string().nullable(),
  held_deliveries: z.number().int().describe('deliveries kept while disabled: sent when it is enabled'),
  enabled_at: z.number().int().nullable(),
});

/** An endpoint as its owner (and operators) see it; `held` deliveries wait for it. */
export function toEndpointObject(e: WebhookEndpointRow, held: number) {
  return {
    object: 'webhook_endpoint' as const,
    id: e.id,
    url: e.url,
    status: e.status,
    failing: e.failingSince !== null,
    failing_since: unix(e.failingSince),
    last_failure_at: unix(e.lastFailureAt),
    last_error: e.lastError,
    disabled_at: e.status === 'disabled' ? unix(e.disabledAt) : null,
    disabled_reason: e.status === 'disabled' ? e.disabledReason : null,
    held_deliveries: held,
    enabled_at: unix(e.enabledAt),
  };
}

export const enabledEndpointSchema = consoleObject('EnabledWebhookEndpoint', {
  endpoint: webhookEndpointSchema,
  redelivered: z
    .number()
    .int()
    .describe('deliveries sent again: those held while disabled and those that failed'),
});

/** The account's endpoints with their held deliveries counted. */
export async function endpointObjects(deps: ApiDeps, rows: WebhookEndpointRow[]) {
  const held = await countHeldDeliveries(
    deps.database.db,
    rows.filter((r) => r.status === 'disabled').map((r) => r.id),
  );
  return rows.map((r) => toEndpointObject(r, held.get(r.id) ?? 0));
}

/**
 * Enables the account's endpoint `endpointId` (by `by`, the owner or an operator) and enqueues what it
 * missed. 404 when the account has no such endpoint.
 */
export async function enableEndpoint(
  deps: ApiDeps,
  req: Request,
  args: Omit<Parameters<typeof enableWebhookEndpoint>[1], 'now'>,
) {
  const done = /^ep_[0-9A-Z]{26}$/.test(args.endpointId)
    ? await enableWebhookEndpoint(deps.database.db, args)
    : null;
  if (!done)
    throw new ApiError('not_found', `No webhook endpoint '${args.endpointId.slice(0, 64)}'.`, 'endpoint_id');
  // committed first, enqueued second: if Redis does not answer, the reconciler sends them
  for (const id of done.redelivered) {
    await enqueueDelivery(deps.callbacksQueue, id, {
      promote: true,
      timeoutMs: deps.config.ENQUEUE_TIMEOUT_MS,
    }).catch((err: unknown) =>
      req.log.warn({ err, deliveryId: id }, 'enqueue failed; the reconciler will enqueue the delivery'),
    );
  }
  if (done.before.status === 'disabled') {
    req.log.info(
      { endpointId: done.after.id, accountId: args.accountId, redelivered: done.redelivered.length },
      'webhook endpoint enabled again',
    );
  }
  return {
    object: 'enabled_webhook_endpoint',
    endpoint: toEndpointObject(done.after, 0),
    redelivered: done.redelivered.length,
  };
}
