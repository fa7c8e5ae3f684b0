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
