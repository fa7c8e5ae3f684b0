import { z } from 'zod';
import { loadConfig } from '../config/env';
import { paymentsEnvShape, refinePaymentNotifyUrl, refinePaymentsEnv } from './config';

const schema = z
  .object({
    ...paymentsEnvShape,
    NODE_ENV: z.string().optional(),
    PAYMENT_NOTIFY_BASE_URL: z.string().url().optional(),
  })
  .superRefine((env, ctx) => {
    refinePaymentsEnv(env, ctx);
    refinePaymentNotifyUrl(env, ctx);
  });
const problems = (env: Record<string, string>): string => {
  try {
    loadConfig(schema, env);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
};

const WECHAT = {
  WECHATPAY_MCHID: '1900000001',
  WECHATPAY_APPID: 'wx0000000000000001',
  WECHATPAY_MERCHANT_SERIAL: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
  WECHATPAY_PRIVATE_KEY: 'k',
  WECHATPAY_API_V3_KEY: 'a'.repeat(32),
  WECHATPAY_PUBLIC_KEY: 'p',
  WECHATPAY_PUBLIC_KEY_ID: 'PUB_KEY_ID_0000000000000000000000000001',
};
const ALIPAY = { ALIPAY_APP_ID: '2021000000000001', ALIPAY_PRIVATE_KEY: 'k', ALIPAY_PUBLIC_KEY: 'p' };

describe('payment provider configuration, all or nothing', () => {
  it('accepts no provider, or complete ones', () => {
    expect(problems({})).toBe('');
    expect(problems({ ...ALIPAY, ...WECHAT })).toBe('');
    const { ALIPAY_PUBLIC_KEY: _, ...certMode } = ALIPAY;
    expect(
      problems({ ...certMode, ALIPAY_APP_CERT: 'a', ALIPAY_PUBLIC_CERT: 'b', ALIPAY_ROOT_CERT: 'c' }),
    ).toBe('');
  });

  it('refuses a provider configured in part, naming each missing variable', () => {
    for (const name of Object.keys(ALIPAY)) {
      const env: Record<string, string> = { ...ALIPAY };
      delete env[name];
      expect(problems(env)).toMatch(new RegExp(`^  ${name}: required`, 'm'));
    }
    for (const name of Object.keys(WECHAT)) {
      const env: Record<string, string> = { ...WECHAT };
      delete env[name];
      expect(problems(env)).toMatch(new RegExp(`^  ${name}: required`, 'm'));
    }
    expect(problems({ ...ALIPAY, ALIPAY_ROOT_CERT: 'c' })).toMatch(/^ {2}ALIPAY_APP_CERT: required/m);
    expect(problems({ ...WECHAT, WECHATPAY_API_V3_KEY: 'short' })).toMatch(
      /WECHATPAY_API_V3_KEY: must be the 32-character/,
    );
    // platform certificates instead of the public key are enough
    const { WECHATPAY_PUBLIC_KEY: _k, WECHATPAY_PUBLIC_KEY_ID: _i, ...certs } = WECHAT;
    expect(problems({ ...certs, WECHATPAY_PLATFORM_CERTS: 'pem' })).toBe('');
  });

  it('wants an https notify URL outside development and test', () => {
    const http = { PAYMENT_NOTIFY_BASE_URL: 'http://api.example.com' };
    expect(problems({ ...http, NODE_ENV: 'production' })).toMatch(
      /PAYMENT_NOTIFY_BASE_URL: must be an https URL/,
    );
    expect(problems({ ...http, NODE_ENV: 'staging' })).toMatch(
      /PAYMENT_NOTIFY_BASE_URL: must be an https URL/,
    );
    expect(problems({ PAYMENT_NOTIFY_BASE_URL: 'https://api.example.com', NODE_ENV: 'production' })).toBe('');
    for (const NODE_ENV of ['development', 'test']) expect(problems({ ...http, NODE_ENV })).toBe('');
    expect(problems(http)).toBe('');
  });
});
