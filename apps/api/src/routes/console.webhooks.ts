import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import {
  activeSigningSecrets,
  assertPublicUrl,
  createSsrfSafeAgent,
  getWebhookSettings,
  isSsrfError,
  newDeliveryId,
  sendWebhook,
  signWebhook,
} from '@mediagate/shared/webhooks';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { parseBody } from '../middleware/body';
import { requireSession, sessionOf } from '../middleware/session';
import { endpoint, type Route } from '../route';

export const webhookTestBody = z.strictObject({
  url: z
    .string()
    .trim()
    .max(2048)
    .pipe(z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' })),
});

const TEST_TIMEOUT_MS = 10_000;
const TEST_RESPONSE_MAX_BYTES = 4_096;

/**
 * POST /console/api/webhooks/test {url}: sends one `webhook.test` event to `url` now, signed like
 * every callback (Standard Webhooks headers, the account's current secrets), through the same
 * SSRF guard, and answers with what came back (status code, latency, error, the start of the body).
 * Nothing is stored or retried.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.post(
    '/webhooks/test',
    requireSession(deps),
    ...parseBody({ limitBytes: 8 * 1024 }),
    async (req, res) => {
      const { url } = webhookTestBody.parse(req.body ?? {});
      const accountId = sessionOf(req).accountId;
      try {
        await assertPublicUrl(deps.ssrf, url);
      } catch (err) {
        if (isSsrfError(err)) throw new ApiError('invalid_request', (err as Error).message, 'url');
        throw err;
      }
      const settings = await getWebhookSettings(deps.database.db, accountId);
      const id = newDeliveryId();
      const now = new Date();
      const body = JSON.stringify({
        type: 'webhook.test',
        created_at: Math.floor(now.getTime() / 1000),
        data: {
          object: 'webhook_test',
          account_id: accountId,
          message: 'A test event from the mediagate console.',
        },
      });
      const agent = createSsrfSafeAgent(deps.ssrf, {
        connectTimeoutMs: 5_000,
        headersTimeoutMs: TEST_TIMEOUT_MS,
        bodyTimeoutMs: TEST_TIMEOUT_MS,
        connections: 1,
      });
      try {
        const result = await sendWebhook(
          agent,
          { url, headers: { ...signWebhook(activeSigningSecrets(settings, now), id, now, body) }, body },
          { timeoutMs: TEST_TIMEOUT_MS, maxResponseBytes: TEST_RESPONSE_MAX_BYTES },
        );
        req.log.info({ url: new URL(url).host, statusCode: result.statusCode }, 'webhook test event sent');
        res.status(200).json({
          object: 'webhook_test',
          id,
          url,
          delivered: result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300,
          status_code: result.statusCode,
          latency_ms: result.latencyMs,
          error: result.error,
          response_body: result.responseBody,
        });
      } finally {
        await agent.close().catch(() => {});
      }
    },
  );
}

const webhookTestResult = consoleObject('WebhookTestResult', {
  id: z.string(),
  url: z.string(),
  delivered: z.boolean(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  response_body: z.string().nullable(),
});

export const contract = endpoint(
  'POST /console/api/webhooks/test',
  'Send a signed webhook.test event to a URL now and show the answer',
  { tag: 'console', auth: 'session', body: webhookTestBody, 200: webhookTestResult },
);

export const route: Route = { mount: '/console/api', contracts: [contract], register };
