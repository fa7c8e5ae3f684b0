import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The Standard Webhooks headers of one attempt, signed with the `standardwebhooks` package: one
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret, space-separated (a receiver accepts
 * the message when any of them verifies, which is what lets a secret rotate without a gap).
 * `msgId` is the delivery id, the same on every retry; `timestamp` is the attempt's send time.
 */
export function signWebhook(
  secrets: readonly string[],
  msgId: string,
  timestamp: Date,
  body: string,
): WebhookHeaders {
  if (secrets.length === 0) throw new Error('no signing secret');
  const signatures = secrets.map((s) => new Webhook(s).sign(msgId, timestamp, body));
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
