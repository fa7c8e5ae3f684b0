import { intFromEnv } from '@mediagate/shared/config';
import { mailEnvShape } from '@mediagate/shared/mail';
import { DEFAULT_RETRY_SCHEDULE, durationListFromEnv } from '@mediagate/shared/webhooks';
import { z } from 'zod';

/** Variables of the `callbacks` role (the SSRF allow-list comes from ssrfEnvSchema). */
export const callbacksEnvSchema = z.object({
  /** deliveries one dispatcher process has in flight at once */
  CALLBACK_CONCURRENCY: intFromEnv(1_000, 1),
  /** in-flight deliveries per destination host per process; the rest wait as delayed jobs */
  CALLBACK_PER_HOST_CONCURRENCY: intFromEnv(10, 1),
  /** delays between attempts after the first, comma-separated (ms, s, m, h, d) */
  CALLBACK_RETRY_SCHEDULE: durationListFromEnv(DEFAULT_RETRY_SCHEDULE),
  /** each retry delay is spread over ±this fraction */
  CALLBACK_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
  /** a Retry-After (429, 503) longer than this is cut to it */
  CALLBACK_RETRY_AFTER_MAX_MS: intFromEnv(24 * 3_600_000, 0),
  /** one attempt, connect to last byte read */
  CALLBACK_TIMEOUT_MS: intFromEnv(15_000, 1),
  /** bytes of the receiver's answer read and kept with the attempt */
  CALLBACK_RESPONSE_MAX_BYTES: intFromEnv(4_096, 0),
  /** wait of a delivery whose host is at its concurrency limit (±50 %) */
  CALLBACK_HOST_BUSY_DELAY_MS: intFromEnv(1_000, 1),
  /** a crashed dispatcher's in-flight deliveries run again after this */
  CALLBACK_LOCK_DURATION_MS: intFromEnv(30_000, 500),
  /**
   * an endpoint whose deliveries all fail for good for longer than this (one duration: 5d, 12h, 30m)
   * is disabled; its deliveries are held until its owner enables it again
   */
  WEBHOOK_ENDPOINT_DISABLE_AFTER: durationListFromEnv('5d').pipe(
    z.array(z.number().int().positive()).length(1, 'must be one duration, e.g. 5d'),
  ),
  /** SMTP_URL, MAIL_FROM: the owner of a disabled endpoint is mailed */
  ...mailEnvShape,
});
