import { consoleObject } from '@mediagate/shared/contracts';
import type { AccountWebhookSettingsRow } from '@mediagate/shared/db';
import type { DeliveryWithAttempts } from '@mediagate/shared/webhooks';
import { z } from 'zod';
import { unixSeconds } from './console-views';

const unix = (d: Date | null): number | null => (d ? Math.floor(d.getTime() / 1000) : null);

export const webhookSecretSchema = consoleObject('WebhookSecret', {
  secret: z.string().describe('whsec_...'),
  created_at: unixSeconds.nullable(),
  rotated_at: unixSeconds.nullable(),
  previous_secret_expires_at: unixSeconds.nullable(),
});

export const webhookSettingsSchema = consoleObject('WebhookSettings', {
  video_processing: z.boolean(),
  events: z.array(z.string()),
});

/** The public object of a callback delivery and its attempts (GET /v1/videos/{id}/callbacks). */
export function toDeliveryObject(d: DeliveryWithAttempts) {
  return {
    id: d.id,
    object: 'video.callback',
    task_id: d.taskId,
    event_type: d.eventType,
    url: d.url,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: d.status === 'pending' ? unix(d.nextAttemptAt) : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: unix(d.createdAt),
    updated_at: unix(d.updatedAt),
    completed_at: unix(d.completedAt),
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      started_at: unix(a.startedAt),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
      response_body: a.responseBody,
    })),
  };
}

/** The account's webhook secret, as its owner sees it. */
export function toSecretObject(s: AccountWebhookSettingsRow) {
  const overlap = s.previousSecretExpiresAt && s.previousSecretExpiresAt.getTime() > Date.now();
  return {
    object: 'webhook_secret',
    secret: s.secret,
    created_at: unix(s.createdAt),
    rotated_at: unix(s.rotatedAt),
    /** until then deliveries also carry a signature made with the secret before the last rotation */
    previous_secret_expires_at: overlap ? unix(s.previousSecretExpiresAt) : null,
  };
}

/** Which events the account receives. */
export function toSettingsObject(s: Pick<AccountWebhookSettingsRow, 'sendProcessing'>) {
  return {
    object: 'webhook_settings',
    video_processing: s.sendProcessing,
    events: ['video.succeeded', 'video.failed', ...(s.sendProcessing ? ['video.processing'] : [])],
  };
}
