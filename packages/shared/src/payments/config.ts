import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { intFromEnv } from '../config/env';
import { createAlipayProvider } from './alipay';
import { pemFromEnv, type QrPaymentProvider } from './types';
import { createWechatPayProvider } from './wechatpay';

const optional = z
  .string()
  .optional()
  .transform((v) => (v && v.trim().length > 0 ? v.trim() : undefined));

/**
 * Variables of the QR-code payment providers (api and worker). A provider is enabled when its
 * identity and keys are all set; its gateway URL is the vendor's unless pointed elsewhere (the
 * payment simulator).
 */
export const paymentsEnvShape = {
  /** Alipay application id (enables Alipay with the two keys below) */
  ALIPAY_APP_ID: optional,
  /** the application private key (PEM or base64; `\n` may be written literally) */
  ALIPAY_PRIVATE_KEY: optional,
  /** Alipay's public key (public-key mode) */
  ALIPAY_PUBLIC_KEY: optional,
  /**
   * public-key-certificate mode, instead of ALIPAY_PUBLIC_KEY (all three; each the PEM or the path of
   * the .crt file the open platform gave): the application public key certificate
   * (appCertPublicKey_<app id>.crt)
   */
  ALIPAY_APP_CERT: optional,
  /** Alipay's public key certificate (alipayCertPublicKey_RSA2.crt), certificate mode */
  ALIPAY_PUBLIC_CERT: optional,
  /** Alipay's root certificate (alipayRootCert.crt), certificate mode */
  ALIPAY_ROOT_CERT: optional,
  /** Alipay's OpenAPI gateway; pnpm start points it at the payment simulator */
  ALIPAY_GATEWAY: z.string().url().default('https://openapi.alipay.com/gateway.do'),
  /** WeChat Pay merchant id (enables WeChat Pay with the variables below) */
  WECHATPAY_MCHID: optional,
  /** the appid the merchant is bound to (official account, mini program or app) */
  WECHATPAY_APPID: optional,
  /** serial number of the merchant API certificate whose private key follows */
  WECHATPAY_MERCHANT_SERIAL: optional,
  /** the merchant API private key (PEM; `\n` may be written literally) */
  WECHATPAY_PRIVATE_KEY: optional,
  /** the APIv3 key (32 characters): decrypts notification resources */
  WECHATPAY_API_V3_KEY: optional,
  /** platform certificate(s), PEM; and/or the WeChat Pay public key with its PUB_KEY_ID_... id */
  WECHATPAY_PLATFORM_CERTS: optional,
  /** the WeChat Pay public key (PEM), verifying what is signed under WECHATPAY_PUBLIC_KEY_ID */
  WECHATPAY_PUBLIC_KEY: optional,
  /** the WeChat Pay public key's id, PUB_KEY_ID_... (the Wechatpay-Serial it signs under) */
  WECHATPAY_PUBLIC_KEY_ID: optional,
  /**
   * minutes between downloads of the WeChat Pay platform certificates (GET /v3/certificates,
   * decrypted with the APIv3 key), also done before the newest expires and when a signature names an
   * unknown serial; 0 = never. Only merchants on platform certificates download them.
   */
  WECHATPAY_PLATFORM_CERTS_REFRESH_MIN: intFromEnv(720, 0),
  /** WeChat Pay API v3 base URL; pnpm start points it at the payment simulator */
  WECHATPAY_BASE_URL: z.string().url().default('https://api.mch.weixin.qq.com'),
  /** timeout of one call to a payment provider */
  PAYMENT_PROVIDER_TIMEOUT_MS: intFromEnv(10_000, 100),
  /** notifications (and WeChat Pay answers) older or newer than this are refused */
  PAYMENT_SIGNATURE_TOLERANCE_S: intFromEnv(300, 1),
};

export type PaymentsConfig = z.output<z.ZodObject<typeof paymentsEnvShape>>;

const ALIPAY_CERTS = ['ALIPAY_APP_CERT', 'ALIPAY_PUBLIC_CERT', 'ALIPAY_ROOT_CERT'] as const;
const ALIPAY_VARS = ['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY', 'ALIPAY_PUBLIC_KEY', ...ALIPAY_CERTS] as const;
const WECHAT_REQUIRED = [
  'WECHATPAY_MCHID',
  'WECHATPAY_APPID',
  'WECHATPAY_MERCHANT_SERIAL',
  'WECHATPAY_PRIVATE_KEY',
  'WECHATPAY_API_V3_KEY',
] as const;
const WECHAT_VARS = [
  ...WECHAT_REQUIRED,
  'WECHATPAY_PLATFORM_CERTS',
  'WECHATPAY_PUBLIC_KEY',
  'WECHATPAY_PUBLIC_KEY_ID',
] as const;

/**
 * A provider's configuration is all or nothing: once one of its variables is set, each variable it
 * needs must be, and a missing one is a startup error that names it (never a provider silently
 * left out). Alipay needs ALIPAY_APP_ID, ALIPAY_PRIVATE_KEY and either ALIPAY_PUBLIC_KEY or the
 * three certificates; WeChat Pay its five identity variables and the platform certificates or the
 * WeChat Pay public key with its id.
 */
export function refinePaymentsEnv(env: PaymentsConfig, ctx: z.RefinementCtx): void {
  const missing = (name: string, message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
  const setOf = (names: readonly (keyof PaymentsConfig)[]) => names.filter((n) => env[n] !== undefined);
  const alipay = setOf(ALIPAY_VARS);
  if (alipay.length > 0) {
    const partly = `Alipay is configured in part (${alipay.join(', ')} set): set it too, or unset every ALIPAY_ variable`;
    for (const name of ['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY'] as const)
      if (!env[name]) missing(name, `required: ${partly}`);
    const certs = setOf(ALIPAY_CERTS);
    if (certs.length > 0) {
      for (const name of ALIPAY_CERTS)
        if (!env[name])
          missing(
            name,
            `required in certificate mode (${certs.join(', ')} set): the three certificates go together`,
          );
    } else if (!env.ALIPAY_PUBLIC_KEY) {
      missing(
        'ALIPAY_PUBLIC_KEY',
        `required (or ALIPAY_APP_CERT, ALIPAY_PUBLIC_CERT and ALIPAY_ROOT_CERT in certificate mode): ${partly}`,
      );
    }
  }
  const wechat = setOf(WECHAT_VARS);
  if (wechat.length > 0) {
    const partly = `WeChat Pay is configured in part (${wechat.join(', ')} set): set it too, or unset every WECHATPAY_ variable`;
    for (const name of WECHAT_REQUIRED) if (!env[name]) missing(name, `required: ${partly}`);
    if (env.WECHATPAY_API_V3_KEY && Buffer.byteLength(env.WECHATPAY_API_V3_KEY, 'utf8') !== 32)
      missing('WECHATPAY_API_V3_KEY', 'must be the 32-character APIv3 key');
    if (env.WECHATPAY_PUBLIC_KEY && !env.WECHATPAY_PUBLIC_KEY_ID)
      missing('WECHATPAY_PUBLIC_KEY_ID', 'required with WECHATPAY_PUBLIC_KEY (its PUB_KEY_ID_... id)');
    else if (env.WECHATPAY_PUBLIC_KEY_ID && !env.WECHATPAY_PUBLIC_KEY)
      missing('WECHATPAY_PUBLIC_KEY', 'required with WECHATPAY_PUBLIC_KEY_ID (the key it names)');
    else if (!env.WECHATPAY_PLATFORM_CERTS && !env.WECHATPAY_PUBLIC_KEY)
      missing(
        'WECHATPAY_PUBLIC_KEY',
        `required, with WECHATPAY_PUBLIC_KEY_ID (or WECHATPAY_PLATFORM_CERTS): ${partly}`,
      );
  }
}

/**
 * PAYMENT_NOTIFY_BASE_URL, where the providers send notifications, must be https (WeChat Pay
 * refuses any other notify_url) unless NODE_ENV is unset, `development` or `test`.
 */
export function refinePaymentNotifyUrl(
  env: { NODE_ENV?: string; PAYMENT_NOTIFY_BASE_URL?: string },
  ctx: z.RefinementCtx,
): void {
  const url = env.PAYMENT_NOTIFY_BASE_URL;
  const local = env.NODE_ENV === undefined || env.NODE_ENV === 'development' || env.NODE_ENV === 'test';
  if (url && !local && !url.startsWith('https://'))
    ctx.addIssue({
      code: 'custom',
      path: ['PAYMENT_NOTIFY_BASE_URL'],
      message: `must be an https URL outside development and test (NODE_ENV=${env.NODE_ENV}): the providers notify only https addresses`,
    });
}

/** A certificate given as PEM (literal `\n` allowed) or as the path of its file. */
function pemOrFile(value: string): string {
  return value.includes('-----BEGIN') ? pemFromEnv(value) : readFileSync(value, 'utf8');
}

/** The providers whose configuration is complete, by name (alipay first). */
export function createQrPaymentProviders(config: PaymentsConfig): Map<string, QrPaymentProvider> {
  const providers = new Map<string, QrPaymentProvider>();
  const alipayCerts =
    config.ALIPAY_APP_CERT && config.ALIPAY_PUBLIC_CERT && config.ALIPAY_ROOT_CERT
      ? {
          app: pemOrFile(config.ALIPAY_APP_CERT),
          alipay: pemOrFile(config.ALIPAY_PUBLIC_CERT),
          root: pemOrFile(config.ALIPAY_ROOT_CERT),
        }
      : undefined;
  if (config.ALIPAY_APP_ID && config.ALIPAY_PRIVATE_KEY && (config.ALIPAY_PUBLIC_KEY || alipayCerts)) {
    providers.set(
      'alipay',
      createAlipayProvider({
        appId: config.ALIPAY_APP_ID,
        privateKey: pemFromEnv(config.ALIPAY_PRIVATE_KEY),
        // certificate mode when its three certificates are set
        ...(alipayCerts
          ? { certificates: alipayCerts }
          : { alipayPublicKey: pemFromEnv(config.ALIPAY_PUBLIC_KEY as string) }),
        gateway: config.ALIPAY_GATEWAY,
        timeoutMs: config.PAYMENT_PROVIDER_TIMEOUT_MS,
        toleranceSeconds: config.PAYMENT_SIGNATURE_TOLERANCE_S,
      }),
    );
  }
  if (
    config.WECHATPAY_MCHID &&
    config.WECHATPAY_APPID &&
    config.WECHATPAY_MERCHANT_SERIAL &&
    config.WECHATPAY_PRIVATE_KEY &&
    config.WECHATPAY_API_V3_KEY &&
    (config.WECHATPAY_PLATFORM_CERTS || (config.WECHATPAY_PUBLIC_KEY && config.WECHATPAY_PUBLIC_KEY_ID))
  ) {
    providers.set(
      'wechat',
      createWechatPayProvider({
        mchid: config.WECHATPAY_MCHID,
        appid: config.WECHATPAY_APPID,
        merchantSerialNo: config.WECHATPAY_MERCHANT_SERIAL,
        merchantPrivateKey: pemFromEnv(config.WECHATPAY_PRIVATE_KEY),
        apiV3Key: config.WECHATPAY_API_V3_KEY,
        platformCertificates: config.WECHATPAY_PLATFORM_CERTS && pemFromEnv(config.WECHATPAY_PLATFORM_CERTS),
        publicKey: config.WECHATPAY_PUBLIC_KEY && pemFromEnv(config.WECHATPAY_PUBLIC_KEY),
        publicKeyId: config.WECHATPAY_PUBLIC_KEY_ID,
        baseUrl: config.WECHATPAY_BASE_URL,
        certificateRefreshMs: config.WECHATPAY_PLATFORM_CERTS_REFRESH_MIN * 60_000,
        timeoutMs: config.PAYMENT_PROVIDER_TIMEOUT_MS,
        toleranceSeconds: config.PAYMENT_SIGNATURE_TOLERANCE_S,
      }),
    );
  }
  return providers;
}
