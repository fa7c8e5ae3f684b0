import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { issueAlipayCertificates } from './alipay-certs';

const rsa = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

/** A self-signed certificate for `privateKey` (the openssl CLI: node:crypto cannot issue one). */
function selfSigned(privateKey: string, serialHex: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'paysim-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    writeFileSync(keyFile, privateKey, { mode: 0o600 });
    return execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-x509',
        '-key',
        keyFile,
        '-subj',
        '/CN=Tenpay.com Root CA/O=Simulated',
        '-days',
        '3650',
        '-set_serial',
        `0x${serialHex}`,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A new WeChat Pay platform key and its certificate (a rotation). */
export function newPlatformCertificate(): { privateKey: string; certificate: string; serial: string } {
  const platform = rsa();
  const certificate = selfSigned(
    platform.privateKey,
    randomBytes(20).toString('hex').toUpperCase().replace(/^0+/, ''),
  );
  return {
    privateKey: platform.privateKey,
    certificate,
    serial: new X509Certificate(certificate).serialNumber.toUpperCase(),
  };
}

export interface PaymentKeySet {
  /** the simulator's environment (vendor private keys, merchant public keys) */
  sim: Record<string, string>;
  /** the merchant's (API and worker) environment, less the gateway URLs */
  merchant: Record<string, string>;
  /** the vendors' private keys, for tests that forge notifications */
  vendor: {
    alipayPrivateKey: string;
    wechatCertPrivateKey: string;
    wechatCertSerial: string;
    wechatPubKeyPrivateKey: string;
    wechatPubKeyId: string;
    wechatApiV3Key: string;
  };
}

/**
 * Fresh key pairs for both vendors and the merchant: Alipay app and Alipay keys, the WeChat Pay
 * merchant key, a platform certificate and a WeChat Pay public key (`PUB_KEY_ID_...`), an APIv3
 * key. The merchant side trusts both the certificate and the public key.
 */
export function generatePaymentKeys(
  opts: { withCertificate?: boolean; alipayCertificates?: boolean } = {},
): PaymentKeySet {
  const alipayApp = rsa();
  const alipay = rsa();
  const merchant = rsa();
  const platform = rsa();
  const pubKey = rsa();
  const apiV3Key = randomBytes(16).toString('hex');
  const appId = `2021${String(Date.now()).slice(-12)}`;
  const mchid = `19${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const appid = `wx${randomBytes(8).toString('hex')}`;
  const merchantSerial = randomBytes(20).toString('hex').toUpperCase();
  const pubKeyId = `PUB_KEY_ID_0${mchid}${String(Date.now()).slice(-12)}000001`;
  let cert: string | undefined;
  let certSerial = randomBytes(20).toString('hex').toUpperCase().replace(/^0+/, '');
  if (opts.withCertificate !== false) {
    cert = selfSigned(platform.privateKey, certSerial);
    certSerial = new X509Certificate(cert).serialNumber.toUpperCase();
  }
  // public-key-certificate mode: the same keys, certified by a simulated Alipay root
  const alipayCerts = opts.alipayCertificates
    ? issueAlipayCertificates(alipayApp.publicKey, alipay.publicKey, appId)
    : undefined;
  return {
    sim: {
      ...(alipayCerts
        ? {
            PAYSIM_ALIPAY_APP_CERT: alipayCerts.appCert,
            PAYSIM_ALIPAY_CERT: alipayCerts.alipayCert,
            PAYSIM_ALIPAY_ROOT_CERT: alipayCerts.rootCert,
          }
        : {}),
      PAYSIM_ALIPAY_APP_ID: appId,
      PAYSIM_ALIPAY_APP_PUBLIC_KEY: alipayApp.publicKey,
      PAYSIM_ALIPAY_PRIVATE_KEY: alipay.privateKey,
      PAYSIM_WECHAT_MCHID: mchid,
      PAYSIM_WECHAT_APPID: appid,
      PAYSIM_WECHAT_MERCHANT_PUBLIC_KEY: merchant.publicKey,
      PAYSIM_WECHAT_API_V3_KEY: apiV3Key,
      PAYSIM_WECHAT_CERT_PRIVATE_KEY: platform.privateKey,
      PAYSIM_WECHAT_CERT_SERIAL: certSerial,
      ...(cert ? { PAYSIM_WECHAT_CERT: cert } : {}),
      PAYSIM_WECHAT_PUBKEY_PRIVATE_KEY: pubKey.privateKey,
      PAYSIM_WECHAT_PUBKEY_ID: pubKeyId,
    },
    merchant: {
      ...(alipayCerts
        ? {
            ALIPAY_APP_CERT: alipayCerts.appCert,
            ALIPAY_PUBLIC_CERT: alipayCerts.alipayCert,
            ALIPAY_ROOT_CERT: alipayCerts.rootCert,
          }
        : {}),
      ALIPAY_APP_ID: appId,
      ALIPAY_PRIVATE_KEY: alipayApp.privateKey,
      ALIPAY_PUBLIC_KEY: alipay.publicKey,
      WECHATPAY_MCHID: mchid,
      WECHATPAY_APPID: appid,
      WECHATPAY_MERCHANT_SERIAL: merchantSerial,
      WECHATPAY_PRIVATE_KEY: merchant.privateKey,
      WECHATPAY_API_V3_KEY: apiV3Key,
      ...(cert ? { WECHATPAY_PLATFORM_CERTS: cert } : {}),
      WECHATPAY_PUBLIC_KEY: pubKey.publicKey,
      WECHATPAY_PUBLIC_KEY_ID: pubKeyId,
    },
    vendor: {
      alipayPrivateKey: alipay.privateKey,
      wechatCertPrivateKey: platform.privateKey,
      wechatCertSerial: certSerial,
      wechatPubKeyPrivateKey: pubKey.privateKey,
      wechatPubKeyId: pubKeyId,
      wechatApiV3Key: apiV3Key,
    },
  };
}
