import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Alipay's certificate serial number (app_cert_sn, alipay_cert_sn): MD5 of the issuer's name,
 * attributes from the last to the first joined by commas, followed by the serial in decimal.
 */
export function alipayCertSn(pem: string): string {
  const cert = new X509Certificate(pem);
  const issuer = cert.issuer.split('\n').reverse().join(',');
  const serial = BigInt(`0x${cert.serialNumber}`).toString(10);
  return createHash('md5')
    .update(issuer + serial, 'utf8')
    .digest('hex');
}

/** alipay_root_cert_sn: the serial numbers of the root bundle's certificates, joined by `_`. */
export function alipayRootCertSn(bundle: string): string {
  return (bundle.match(PEM) ?? []).map(alipayCertSn).join('_');
}

export interface AlipayCertificateSet {
  /** the application public key certificate (appCertPublicKey_<app id>.crt) */
  appCert: string;
  /** Alipay's public key certificate (alipayCertPublicKey_RSA2.crt) */
  alipayCert: string;
  /** the root certificate (alipayRootCert.crt) */
  rootCert: string;
}

/**
 * Certificates as Alipay's open platform issues them in public-key-certificate mode: a root, and the
 * app's and Alipay's public keys certified by it (the openssl CLI: node:crypto cannot issue one).
 */
export function issueAlipayCertificates(
  appPublicKey: string,
  alipayPublicKey: string,
  appId: string,
): AlipayCertificateSet {
  const dir = mkdtempSync(path.join(tmpdir(), 'paysim-alipay-'));
  const run = (args: string[]) =>
    execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const root = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const file = (name: string, content: string) => {
      const f = path.join(dir, name);
      writeFileSync(f, content, { mode: 0o600 });
      return f;
    };
    const rootKey = file('root.key', root.privateKey);
    const serial = () => `0x${randomBytes(8).toString('hex')}`;
    const rootCert = run([
      'req',
      '-new',
      '-x509',
      '-key',
      rootKey,
      '-subj',
      '/C=CN/O=Simulated Ant Financial/CN=Simulated Alipay Root',
      '-days',
      '3650',
      '-set_serial',
      serial(),
    ]);
    const rootFile = file('root.pem', rootCert);
    // a certificate for a bare public key: openssl x509 -new with -force_pubkey
    const leaf = (publicKey: string, cn: string) =>
      run([
        'x509',
        '-new',
        '-subj',
        `/C=CN/O=Simulated/CN=${cn}`,
        '-force_pubkey',
        file(`${cn}.pub`, publicKey),
        '-CA',
        rootFile,
        '-CAkey',
        rootKey,
        '-set_serial',
        serial(),
        '-days',
        '365',
      ]);
    return { appCert: leaf(appPublicKey, appId), alipayCert: leaf(alipayPublicKey, 'Alipay'), rootCert };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
