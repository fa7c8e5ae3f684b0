import { catalogEnvSchema } from '@mediagate/shared/catalog';
import {
  baseEnvSchema,
  intFromEnv,
  loadConfig,
  metricsEnvShape,
  STORES_REQUIRED_IN_PRODUCTION,
} from '@mediagate/shared/config';
import { imageCallEnvSchema, refineImageCallEnv } from '@mediagate/shared/images';
import { MEDIA_REQUIRED_IN_PRODUCTION, mediaEnvSchema, refineMediaEnv } from '@mediagate/shared/media';
import { paymentsEnvShape, refinePaymentsEnv } from '@mediagate/shared/payments';
import { upstreamEnvSchema } from '@mediagate/shared/upstream';
import { ssrfEnvSchema } from '@mediagate/shared/webhooks';
import { z } from 'zod';
import { callbacksEnvSchema } from './callbacks/config';

export const ROLES = ['video', 'reconciler', 'callbacks'] as const;
export type Role = (typeof ROLES)[number];

export const workerEnvSchema = baseEnvSchema
  .extend({
    ...callbacksEnvSchema.shape,
    ...ssrfEnvSchema.shape,
    /** DASHSCOPE_* / UPSTREAM_CHANNELS: the channels video tasks are submitted on; MODEL_CATALOG_FILE */
    ...upstreamEnvSchema.shape,
    ...catalogEnvSchema.shape,
    /** reconciler: IMAGE_SETTLE_AFTER_MS, the age past which an unsettled image call is refunded in full */
    ...imageCallEnvSchema.shape,
    /** MEDIA_*: storage, links and retention of the videos the gateway keeps */
    ...mediaEnvSchema.shape,
    /** reconciler: ALIPAY_* / WECHATPAY_*, the QR top-up providers it queries and closes orders at */
    ...paymentsEnvShape,
    /** reconciler: top-up orders unpaid for longer than this are queried at their provider */
    TOPUP_RECONCILE_AFTER_MS: intFromEnv(10_000, 0),
    /** roles this process runs, comma-separated; `--role=` on the command line wins */
    WORKER_ROLE: z
      .string()
      .default('video')
      .transform((s) => s.split(',').map((r) => r.trim()))
      .pipe(z.array(z.enum(ROLES)).min(1)),
    /** port of the health (and metrics) server; 0 picks a free one, unset disables it */
    WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** address the health (and metrics) server binds; 0.0.0.0 to reach it from other hosts */
    WORKER_HTTP_HOST: z.string().default('127.0.0.1'),
    ...metricsEnvShape,
    /** video jobs one process runs at once (each run is one short upstream call) */
    VIDEO_CONCURRENCY: intFromEnv(50, 1),
    /** time between upstream polls of a running task (the vendor advises about 15 s) */
    VIDEO_POLL_INTERVAL_MS: intFromEnv(15_000, 10),
    /**
     * `adaptive`: each task is polled when its model's learned durations say it is likely done, and
     * finished tasks are found in bulk by the batch task query; `fixed`: every VIDEO_POLL_INTERVAL_MS
     */
    VIDEO_POLL_SCHEDULER: z.enum(['adaptive', 'fixed']).default('adaptive'),
    /** adaptive: no two polls of a task closer than this */
    VIDEO_POLL_MIN_INTERVAL_MS: intFromEnv(2_000, 10),
    /** adaptive: no two polls of a task further apart than this (while the budget allows, see docs/operations.md) */
    VIDEO_POLL_MAX_INTERVAL_MS: intFromEnv(120_000, 10),
    /** adaptive: polls of a task between the 5th and 95th percentile of its model's durations */
    VIDEO_POLL_SPREAD_POLLS: intFromEnv(4, 1),
    /**
     * adaptive: fraction of UPSTREAM_POLL_QPS that planned polls may use; the rest serves the batch
     * query and the tasks it found finished (default 0.25, or 1 with the batch query off)
     */
    VIDEO_POLL_PLANNED_SHARE: z.coerce.number().gt(0).max(1).optional(),
    /**
     * adaptive: the longest time between two looks of the batch task query for finished tasks
     * (sooner while its pages take little of the query budget); 0 = never
     */
    VIDEO_POLL_SWEEP_INTERVAL_MS: intFromEnv(2_000, 0),
    /** adaptive: tasks per page of the batch task query */
    VIDEO_POLL_SWEEP_PAGE_SIZE: intFromEnv(100, 1),
    /** upstream task submissions per second, fleet-wide per channel (vendor limit: 5); 0 = unlimited */
    UPSTREAM_SUBMIT_RPS: intFromEnv(5, 0),
    /** first delay of an upstream retry (429, 5xx, network); doubles up to the cap, with jitter */
    UPSTREAM_RETRY_BASE_MS: intFromEnv(1_000, 1),
    UPSTREAM_RETRY_MAX_MS: intFromEnv(60_000, 1),
    UPSTREAM_CONNECT_TIMEOUT_MS: intFromEnv(5_000, 1),
    UPSTREAM_TIMEOUT_MS: intFromEnv(30_000, 1),
    /** a job whose worker stops renewing its lock this long (a crashed process) is run again elsewhere */
    VIDEO_LOCK_DURATION_MS: intFromEnv(30_000, 500),
    RECONCILER_INTERVAL_MS: intFromEnv(30_000, 50),
    /** the reconciler leaves tasks younger than this alone (the API enqueues them itself) */
    RECONCILER_GRACE_MS: intFromEnv(10_000, 0),
    SHUTDOWN_GRACE_MS: intFromEnv(25_000, 0),
  })
  .superRefine((env, ctx) => {
    refineImageCallEnv(env, ctx);
    refinePaymentsEnv(env, ctx);
    if (env.WORKER_ROLE.some(storesMedia)) refineMediaEnv(env, ctx);
  });

/** Roles that store media or sign its links (a callbacks dispatcher sends payloads made before). */
const storesMedia = (role: Role) => role === 'video' || role === 'reconciler';

export type WorkerConfig = z.output<typeof workerEnvSchema>;

/** `--role=video,reconciler` on the command line overrides WORKER_ROLE. */
export function envWithArgs(argv: string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const role = argv.find((a) => a.startsWith('--role='))?.slice('--role='.length);
  return role ? { ...env, WORKER_ROLE: role } : env;
}

/**
 * A worker's configuration from its command line and `env`; one ConfigError lists everything to
 * fix (production included).
 */
export function loadWorkerConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const withRole = envWithArgs(argv, env);
  const roles = (withRole.WORKER_ROLE ?? 'video').split(',').map((r) => r.trim());
  return loadConfig(workerEnvSchema, withRole, {
    requiredInProduction: {
      ...STORES_REQUIRED_IN_PRODUCTION,
      ...(roles.some((r) => storesMedia(r as Role)) ? MEDIA_REQUIRED_IN_PRODUCTION : {}),
    },
  });
}
