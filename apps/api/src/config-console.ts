import path from 'node:path';
import { intFromEnv } from '@mediagate/shared/config';
import { z } from 'zod';

/** Where the console's built pages are by default: apps/console/dist beside this package. */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, '..', '..', 'console', 'dist');

/** Variables of the web console (api). Part of the api's environment schema (config.ts). */
export const consoleEnvShape = {
  /** the console's built static files (index.html and assets/); served at / when present */
  CONSOLE_DIR: z.string().min(1).default(DEFAULT_CONSOLE_DIR),
  /** the largest image the playground takes as a video's input (the vendor takes up to 10 MB) */
  PLAYGROUND_UPLOAD_MAX_BYTES: intFromEnv(10 * 1024 * 1024, 1024),
  /** images an account may upload in the playground within a day */
  PLAYGROUND_UPLOADS_PER_DAY: intFromEnv(30, 1),
  /** how long an uploaded image is kept and served (long enough for a task to reach its vendor) */
  PLAYGROUND_UPLOAD_TTL_MS: intFromEnv(24 * 3600 * 1000, 60_000),
};
