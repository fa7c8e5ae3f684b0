import {
  baseEnvSchema,
  intFromEnv,
  loadConfig,
  metricsEnvShape,
  STORES_REQUIRED_IN_PRODUCTION,
} from '@mediagate/shared/config';
import { refineImageCallEnv } from '@mediagate/shared/images';
import { MEDIA_REQUIRED_IN_PRODUCTION, mediaEnvSchema, refineMediaEnv } from '@mediagate/shared/media';
import { refinePaymentNotifyUrl, refinePaymentsEnv } from '@mediagate/shared/payments';
import { ssrfEnvSchema } from '@mediagate/shared/webhooks';
import { z } from 'zod';
import { accountsEnvShape } from './config-accounts';
import { consoleEnvShape } from './config-console';
import { imagesEnvShape } from './config-images';
import { paymentsApiEnvShape } from './config-payments';

export const apiEnvSchema = baseEnvSchema
  .extend({
    PORT: intFromEnv(8080, 0),
    HOST: z.string().default('0.0.0.0'),
    /** largest request body accepted, in bytes */
    BODY_LIMIT_BYTES: intFromEnv(1_048_576, 1024),
    /**
     * bytes of image and video request bodies one replica holds at once (counted before a body is
     * read, until its answer is sent; past them a request is answered 429); at least the largest
     * body limit. About 4 bytes of memory per byte held: 64 MiB keeps a replica under 512 MB.
     */
    BODY_IN_FLIGHT_BYTES: intFromEnv(64 * 1024 * 1024, 1024),
    /** the same, of one account's requests on one replica; at least the largest body limit */
    BODY_IN_FLIGHT_BYTES_PER_ACCOUNT: intFromEnv(50 * 1024 * 1024, 1024),
    /** a video task not finished after this long is failed (and refunded) */
    VIDEO_DEADLINE_MS: intFromEnv(30 * 60_000, 1_000),
    /** how long the API waits for Redis when enqueueing before it leaves the job to the reconciler */
    ENQUEUE_TIMEOUT_MS: intFromEnv(2_000, 10),
    /** on SIGTERM, how long /readyz answers 503 while requests are still served, before draining */
    SHUTDOWN_DELAY_MS: intFromEnv(5_000, 0),
    /** time allowed for in-flight requests to finish once draining */
    SHUTDOWN_GRACE_MS: intFromEnv(10_000, 0),
    /**
     * how long a replica trusts a key it has seen while Redis is unreachable (key changes are
     * otherwise announced to every replica at once); 0 = no cache
     */
    AUTH_CACHE_TTL_MS: intFromEnv(2_000, 0).pipe(z.number().max(5_000)),
    /** finished tasks whose answers a replica keeps in memory (they never change); 0 = no cache */
    TASK_CACHE_ENTRIES: intFromEnv(20_000, 0),
    /** how long a replica serves an unfinished task's answer from memory (each move replaces it at once); 0 = never */
    TASK_RUNNING_CACHE_MS: intFromEnv(2_000, 0),
    /** GET /v1/videos/{id}/events streams one key may hold open on one replica */
    SSE_MAX_STREAMS_PER_KEY: intFromEnv(10, 1),
    /** event streams one account (all its keys together) may hold open on one replica */
    SSE_MAX_STREAMS_PER_ACCOUNT: intFromEnv(50, 1),
    /** event streams one replica holds open in all (each holds a connection and its file descriptor) */
    SSE_MAX_STREAMS: intFromEnv(500, 1),
    /** a comment line on an idle event stream this often, so proxies keep it open */
    SSE_HEARTBEAT_MS: intFromEnv(15_000, 100),
    /** an event stream re-reads its task this often (moves published while pub/sub was down) */
    SSE_RESYNC_MS: intFromEnv(30_000, 100),
    /** the reconnection delay an event stream asks clients to use */
    SSE_RETRY_MS: intFromEnv(2_000, 0),
    /** a request whose headers take longer than this to arrive is answered 408 and closed */
    HTTP_HEADERS_TIMEOUT_MS: intFromEnv(15_000, 100),
    /** a request (headers and body) not received within this is answered 408 and closed */
    HTTP_REQUEST_TIMEOUT_MS: intFromEnv(120_000, 100),
    /** an idle keep-alive connection is closed after this */
    HTTP_KEEPALIVE_TIMEOUT_MS: intFromEnv(65_000, 100),
    ...metricsEnvShape,
    /** serve /metrics on its own listener (METRICS_HOST:METRICS_PORT) instead of the API port */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_HOST: z.string().default('127.0.0.1'),
    /** SSRF_ALLOW_CIDRS, SSRF_DNS_TIMEOUT_MS: see packages/shared/src/webhooks/ssrf.ts */
    ...ssrfEnvSchema.shape,
    /** MEDIA_*: storage, links and retention of the videos the gateway keeps */
    ...mediaEnvSchema.shape,
  })
  .extend(accountsEnvShape)
  .extend(imagesEnvShape)
  .extend(paymentsApiEnvShape)
  .extend(consoleEnvShape)
  .superRefine((env, ctx) => {
    refineImageCallEnv(env, ctx);
    refineMediaEnv(env, ctx);
    refinePaymentsEnv(env, ctx);
    refinePaymentNotifyUrl(env, ctx);
    const largest = Math.max(env.BODY_LIMIT_BYTES, env.IMAGE_BODY_LIMIT_BYTES);
    for (const name of ['BODY_IN_FLIGHT_BYTES', 'BODY_IN_FLIGHT_BYTES_PER_ACCOUNT'] as const) {
      if (env[name] < largest) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `must be at least the largest body limit (${largest} bytes), or a request of that size is never taken`,
        });
      }
    }
  });

export type ApiConfig = z.output<typeof apiEnvSchema>;

/** The API's configuration from `env`; one ConfigError lists everything to fix (production included). */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return loadConfig(apiEnvSchema, env, {
    requiredInProduction: { ...STORES_REQUIRED_IN_PRODUCTION, ...MEDIA_REQUIRED_IN_PRODUCTION },
  });
}
