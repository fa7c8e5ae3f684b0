import { intFromEnv } from '@mediagate/shared/config';
import { z } from 'zod';

const optional = z
  .string()
  .optional()
  .transform((v) => (v && v.trim().length > 0 ? v.replace(/\\n/g, '\n').trim() : undefined));

/**
 * Environment of the payment simulator. The merchant's identities and public keys (to check its
 * requests) and the vendors' private keys (to sign answers and notifications); any missing key
 * set is generated at start and its merchant side printed (see keys.ts).
 */
export const paySimEnvSchema = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PAYSIM_PORT: intFromEnv(8091, 0),
  /** listen address: loopback by default; `0.0.0.0` only where the network in front is trusted */
  PAYSIM_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * the control API's token (`/_control/*`, which marks orders paid), sent as
   * `Authorization: Bearer <token>`; unset = the control API answers 403
   */
  PAYSIM_CONTROL_TOKEN: z
    .union([z.literal(''), z.string().min(16, 'must be at least 16 characters')])
    .optional()
    .transform((v) => v || undefined),
  /** retry delays of notifications are multiplied by this (1 = the vendors' schedules) */
  PAYSIM_TIME_SCALE: z.coerce.number().positive().default(1),
  PAYSIM_ALIPAY_APP_ID: optional,
  PAYSIM_ALIPAY_APP_PUBLIC_KEY: optional,
  PAYSIM_ALIPAY_PRIVATE_KEY: optional,
  /**
   * public-key-certificate mode (all three, PEM): the app's public key certificate, Alipay's public
   * key certificate and the root; requests must then carry app_cert_sn and alipay_root_cert_sn
   */
  PAYSIM_ALIPAY_APP_CERT: optional,
  PAYSIM_ALIPAY_CERT: optional,
  PAYSIM_ALIPAY_ROOT_CERT: optional,
  PAYSIM_WECHAT_MCHID: optional,
  PAYSIM_WECHAT_APPID: optional,
  PAYSIM_WECHAT_MERCHANT_PUBLIC_KEY: optional,
  PAYSIM_WECHAT_API_V3_KEY: optional,
  /** the platform certificate's private key and serial (certificate mode) */
  PAYSIM_WECHAT_CERT_PRIVATE_KEY: optional,
  PAYSIM_WECHAT_CERT_SERIAL: optional,
  /** the platform certificate itself (PEM), listed encrypted by GET /v3/certificates */
  PAYSIM_WECHAT_CERT: optional,
  /** the WeChat Pay public key's private half and its PUB_KEY_ID_... (public-key mode) */
  PAYSIM_WECHAT_PUBKEY_PRIVATE_KEY: optional,
  PAYSIM_WECHAT_PUBKEY_ID: optional,
  /** which of the two signs answers and notifications (switchable at /_control/wechat/signer) */
  PAYSIM_WECHAT_SIGN_WITH: z.enum(['public_key', 'certificate']).default('public_key'),
  /** every Nth signed WeChat Pay answer carries a WECHATPAY/SIGNTEST/ probe signature (0 = none) */
  PAYSIM_WECHAT_SIGNTEST_EVERY: intFromEnv(0, 0),
  /** how long a WeChat Pay refund stays PROCESSING before it ends (SUCCESS, or as /_control/refund-behaviour says) */
  PAYSIM_WECHAT_REFUND_MS: intFromEnv(1_000, 0),
  /** requests per second per method and vendor before the vendors' rate-limit answers (0 = no limit) */
  PAYSIM_RATE_LIMIT_PER_S: intFromEnv(500, 0),
});

export type PaySimConfig = z.output<typeof paySimEnvSchema>;
