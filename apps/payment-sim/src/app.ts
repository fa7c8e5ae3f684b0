import { createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { Logger } from '@mediagate/shared/log';
import express, { type Express } from 'express';
import pino from 'pino';
import { alipayCertSn, alipayRootCertSn } from './alipay-certs';
import { alipayGateway } from './alipay-gateway';
import type { PaySimConfig } from './config';
import { type SimContext, settleOrder } from './context';
import { controlApi } from './control';
import { createNotifier } from './notify';
import { rateLimiter, type SimOrder } from './orders';
import { payPages } from './pay-pages';
import { wechatApi, wechatTransaction } from './wechat-api';

export { type PaySimConfig, paySimEnvSchema } from './config';
export { generatePaymentKeys, type PaymentKeySet } from './keys';
export {
  type AlipayTradeFacts,
  alipayTradeNotice,
  type WechatRefundFacts,
  wechatPaymentNotice,
  wechatRefundNotice,
} from './notification-bodies';
export { RETRY_SCHEDULES, SIGNTEST_PREFIX } from './notify';

const key = (pem: string | undefined, pub: boolean): KeyObject | undefined =>
  pem ? (pub ? createPublicKey(pem) : createPrivateKey(pem)) : undefined;

/**
 * The payment simulator as an Express app (no listen): Alipay's gateway (`POST /gateway.do`) and
 * WeChat Pay API v3 (`/v3/...`), each checking the merchant's signature and answering as the
 * vendor does, and a control API that plays the payer, the merchant portal and the passing of
 * time, after which the vendors' signed notifications are posted and retried on their schedules.
 */
export function buildPaymentSim(config: PaySimConfig, logger?: Logger): { app: Express; close: () => void } {
  const log = logger ?? pino({ level: 'silent' });
  const orders = new Map<string, SimOrder>();
  const timers = new Set<NodeJS.Timeout>();
  const wechat: SimContext['wechat'] = {
    mchid: config.PAYSIM_WECHAT_MCHID,
    appid: config.PAYSIM_WECHAT_APPID,
    merchantPublicKey: key(config.PAYSIM_WECHAT_MERCHANT_PUBLIC_KEY, true),
    apiV3Key: config.PAYSIM_WECHAT_API_V3_KEY,
    signers: {
      certificate: config.PAYSIM_WECHAT_CERT_PRIVATE_KEY
        ? {
            key: createPrivateKey(config.PAYSIM_WECHAT_CERT_PRIVATE_KEY),
            serial: config.PAYSIM_WECHAT_CERT_SERIAL ?? '',
          }
        : undefined,
      public_key: config.PAYSIM_WECHAT_PUBKEY_PRIVATE_KEY
        ? {
            key: createPrivateKey(config.PAYSIM_WECHAT_PUBKEY_PRIVATE_KEY),
            serial: config.PAYSIM_WECHAT_PUBKEY_ID ?? '',
          }
        : undefined,
    },
    signWith: config.PAYSIM_WECHAT_SIGN_WITH,
    certificates:
      config.PAYSIM_WECHAT_CERT && config.PAYSIM_WECHAT_CERT_SERIAL
        ? [{ serial: config.PAYSIM_WECHAT_CERT_SERIAL, pem: config.PAYSIM_WECHAT_CERT }]
        : [],
  };
  const certMode =
    config.PAYSIM_ALIPAY_APP_CERT && config.PAYSIM_ALIPAY_CERT && config.PAYSIM_ALIPAY_ROOT_CERT;
  const alipay: SimContext['alipay'] = {
    appId: config.PAYSIM_ALIPAY_APP_ID,
    // in certificate mode the app's key is the one its certificate holds
    appPublicKey: certMode
      ? new X509Certificate(config.PAYSIM_ALIPAY_APP_CERT as string).publicKey
      : key(config.PAYSIM_ALIPAY_APP_PUBLIC_KEY, true),
    privateKey: key(config.PAYSIM_ALIPAY_PRIVATE_KEY, false),
    certificates: certMode
      ? {
          appCertSn: alipayCertSn(config.PAYSIM_ALIPAY_APP_CERT as string),
          alipayCertSn: alipayCertSn(config.PAYSIM_ALIPAY_CERT as string),
          rootCertSn: alipayRootCertSn(config.PAYSIM_ALIPAY_ROOT_CERT as string),
        }
      : undefined,
  };
  const wechatSigner = () =>
    wechat.signers[wechat.signWith] ?? wechat.signers.public_key ?? wechat.signers.certificate;
  const notifier = createNotifier({
    log,
    timeScale: config.PAYSIM_TIME_SCALE,
    alipay,
    wechat,
    wechatSigner,
    wechatTransaction: (order) => wechatTransaction({ wechat }, order),
    timers,
  });
  const ctx: SimContext = {
    config,
    log,
    orders,
    notifier,
    limiter: rateLimiter(config.PAYSIM_RATE_LIMIT_PER_S),
    stats: {
      alipay: { requests: 0, refused: 0, limited: 0 },
      wechat: {
        requests: 0,
        refused: 0,
        limited: 0,
        signedWith: { public_key: 0, certificate: 0 },
        certificateDownloads: 0,
      },
    },
    alipay,
    wechat,
    settle: (order) => settleOrder({ notifier }, order),
  };
  // trades time out without anyone asking (Alipay then notifies TRADE_CLOSED)
  const sweep = setInterval(() => {
    for (const order of orders.values()) if (order.status === 'WAIT') ctx.settle(order);
  }, 1_000);
  sweep.unref();

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', alipay: Boolean(alipay.privateKey), wechat: Boolean(wechatSigner()) });
  });
  app.use(alipayGateway(ctx));
  app.use('/v3', wechatApi(ctx));
  app.use('/_control', controlApi(ctx));
  app.use('/_pay', payPages(ctx));
  app.use((req, res) => {
    res.status(404).json({ code: 'NOT_FOUND', message: `Unknown route: ${req.method} ${req.path}` });
  });

  return {
    app,
    close: () => {
      clearInterval(sweep);
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
