import path from 'node:path';
import { z } from 'zod';

/** Where the console's built pages are by default: apps/console/dist beside this package. */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, '..', '..', 'console', 'dist');

/** Variables of the web console (api). Part of the api's environment schema (config.ts). */
export const consoleEnvShape = {
  /** the console's built static files (index.html and assets/); served at / when present */
  CONSOLE_DIR: z.string().min(1).default(DEFAULT_CONSOLE_DIR),
};
