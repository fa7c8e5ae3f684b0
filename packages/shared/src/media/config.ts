import path from 'node:path';
import { z } from 'zod';
import { boolFromEnv, intFromEnv } from '../config/env';

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

/**
 * A development-only signing secret: it is public, so links signed with it can be forged. Used only
 * when MEDIA_SIGNING_SECRET is unset and NODE_ENV is `development` or `test` (see refineMediaEnv).
 */
export const DEV_MEDIA_SIGNING_SECRET = 'mediagate-development-media-signing-secret';

/** Whether this process runs for development or tests (NODE_ENV `development` or `test`). */
export const isDevelopmentEnv = (nodeEnv: string | undefined = process.env.NODE_ENV): boolean =>
  nodeEnv === 'development' || nodeEnv === 'test';

/** Media storage, links and retention: read by the API and the workers alike. */
export const mediaEnvSchema = z.object({
  /** `local` (files under MEDIA_DIR) or `s3` (any S3-compatible store) */
  MEDIA_DRIVER: z.enum(['local', 's3']).default('local'),
  MEDIA_DIR: z.string().min(1).default('.data/media'),
  MEDIA_S3_BUCKET: z.string().min(1).optional(),
  /** MinIO, OSS, COS, R2...: the store's endpoint; unset = AWS S3 */
  MEDIA_S3_ENDPOINT: httpUrl.optional(),
  MEDIA_S3_REGION: z.string().min(1).default('us-east-1'),
  MEDIA_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  MEDIA_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  MEDIA_S3_FORCE_PATH_STYLE: boolFromEnv(false),
  /** a CDN (or public origin) in front of the bucket: stored media is served from `<base>/<key>` */
  MEDIA_PUBLIC_BASE_URL: httpUrl.optional(),
  /** the largest video copied into storage */
  MEDIA_MAX_BYTES: intFromEnv(200 * 1024 * 1024, 1),
  /** how long a succeeded task's video is kept and its links work */
  MEDIA_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(7),
  /** HMAC key of the media links; every API replica and video worker needs the same one */
  MEDIA_SIGNING_SECRET: z.string().min(32).optional(),
  /** the gateway's public origin, the base of the media links in task objects and callbacks */
  PUBLIC_BASE_URL: httpUrl.default('http://127.0.0.1:8080'),
  /**
   * Hosts a vendor's media may be fetched from besides each channel's own host (or its
   * `mediaHosts`), comma-separated; `*.example.com` matches subdomains. Their addresses must be
   * public (or inside SSRF_ALLOW_CIDRS).
   */
  MEDIA_ALLOWED_HOSTS: z
    .string()
    .default('*.aliyuncs.com')
    .transform((s) =>
      s
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** tries of one copy job before the copy is left to the reconciler */
  MEDIA_COPY_ATTEMPTS: intFromEnv(3, 1),
  /** the longest one copy may take, download and upload */
  MEDIA_COPY_TIMEOUT_MS: intFromEnv(600_000, 1_000),
  /** copies one video worker runs at once */
  MEDIA_COPY_CONCURRENCY: intFromEnv(4, 1),
  /** the ffmpeg binary that makes thumbnails */
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
});
export type MediaEnv = z.output<typeof mediaEnvSchema>;

/** Cross-field checks of the media variables (add with superRefine). */
export function refineMediaEnv(env: MediaEnv & { NODE_ENV?: string }, ctx: z.RefinementCtx): void {
  if (env.MEDIA_DRIVER === 's3' && !env.MEDIA_S3_BUCKET) {
    ctx.addIssue({ code: 'custom', path: ['MEDIA_S3_BUCKET'], message: 'required when MEDIA_DRIVER=s3' });
  }
  // NODE_ENV of the environment parsed (a manifest check passes the pod's), else this process's
  const nodeEnv = env.NODE_ENV ?? process.env.NODE_ENV;
  if (!env.MEDIA_SIGNING_SECRET && !isDevelopmentEnv(nodeEnv)) {
    ctx.addIssue({
      code: 'custom',
      path: ['MEDIA_SIGNING_SECRET'],
      message:
        'required unless NODE_ENV=development (at least 32 characters, the same on every API and worker); ' +
        'without it media links would be signed with the public development secret',
    });
  }
  if (nodeEnv === 'production' && env.MEDIA_DRIVER === 'local' && !path.isAbsolute(env.MEDIA_DIR)) {
    ctx.addIssue({
      code: 'custom',
      path: ['MEDIA_DIR'],
      message:
        'with MEDIA_DRIVER=local, production needs an absolute path on a volume every API replica and video worker mounts (or MEDIA_DRIVER=s3)',
    });
  }
}

/** Media variables production requires besides MEDIA_SIGNING_SECRET (see refineMediaEnv and loadConfig). */
export const MEDIA_REQUIRED_IN_PRODUCTION = {
  PUBLIC_BASE_URL: "the gateway's public origin (https://...), the base of media links",
} as const;

export const mediaRetentionMs = (env: Pick<MediaEnv, 'MEDIA_RETENTION_DAYS'>): number =>
  Math.round(env.MEDIA_RETENTION_DAYS * 24 * 3600 * 1000);
