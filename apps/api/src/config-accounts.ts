import { intFromEnv } from '@mediagate/shared/config';
import { mailEnvShape } from '@mediagate/shared/mail';
import { z } from 'zod';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.length > 0 ? v : undefined));

const usd = (def: number) => z.coerce.number().min(0).default(def);

/**
 * Variables of accounts, console, billing, top-ups and rate limits (api). Part of the api's
 * environment schema (config.ts).
 */
export const accountsEnvShape = {
  /** SMTP_URL, MAIL_FROM */
  ...mailEnvShape,
  /** credit granted to a new account, in USD (spec: 0.05) */
  SIGNUP_CREDIT_USD: usd(0.05),
  VERIFICATION_CODE_TTL_MS: intFromEnv(10 * 60_000, 1_000),
  VERIFICATION_MAX_ATTEMPTS: intFromEnv(5, 1),
  VERIFICATION_RESEND_COOLDOWN_MS: intFromEnv(60_000, 0),
  SESSION_TTL_MS: intFromEnv(7 * 24 * 3_600_000, 60_000),
  /**
   * mark the session cookie Secure (HTTPS only); unset = Secure unless PUBLIC_BASE_URL is http://
   */
  SESSION_COOKIE_SECURE: z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === 'yes')),
  /** the operator account, created or updated at start-up when both are set */
  ADMIN_EMAIL: optionalString,
  ADMIN_PASSWORD: optionalString,
  /** requests per minute per API key (accounts may have their own) */
  RATE_LIMIT_RPM: intFromEnv(600, 1),
  /** requests per minute per console session account */
  CONSOLE_RATE_LIMIT_RPM: intFromEnv(300, 1),
  /** unfinished video tasks per account (accounts may have their own) */
  VIDEO_MAX_ACTIVE_TASKS: intFromEnv(20, 1),
  /** login / registration / code attempts allowed per e-mail and per IP in AUTH_LIMIT_WINDOW_S */
  AUTH_LIMIT_PER_EMAIL: intFromEnv(10, 1),
  /**
   * login / registration / code attempts allowed per IP in AUTH_LIMIT_WINDOW_S; also session tokens
   * that do not authenticate at `GET /console/api/session`, per IP
   */
  AUTH_LIMIT_PER_IP: intFromEnv(100, 1),
  /** the window of AUTH_LIMIT_PER_EMAIL and AUTH_LIMIT_PER_IP, in seconds */
  AUTH_LIMIT_WINDOW_S: intFromEnv(900, 1),
  /**
   * the longest spacing of login attempts on an account past AUTH_LIMIT_PER_EMAIL wrong passwords
   * (from any address) in the window; addresses it signed in from lately are not spaced
   */
  AUTH_LOGIN_BACKOFF_MAX_S: intFromEnv(30, 1),
  TOPUP_MIN_USD: usd(7),
  /** a single top-up of at least this many USD earns TOPUP_BONUS_PERCENT as a bonus entry */
  TOPUP_BONUS_THRESHOLD_USD: usd(100),
  TOPUP_BONUS_PERCENT: intFromEnv(10, 0),
  /** enables the `dev` payment provider (HMAC-signed notifications) with this secret */
  PAYMENT_DEV_SECRET: optionalString,
  PAYMENT_SIGNATURE_TOLERANCE_S: intFromEnv(300, 1),
  /** Express `trust proxy`: false, true, a hop count, or comma-separated addresses/CIDRs of proxies */
  TRUST_PROXY: z.string().default('false'),
};

export type AccountsConfig = z.output<z.ZodObject<typeof accountsEnvShape>>;
