import { type KeyObject, X509Certificate } from 'node:crypto';

/** One entry of `GET /v3/certificates`. */
interface CertificateEntry {
  serial_no?: unknown;
  effective_time?: unknown;
  expire_time?: unknown;
  encrypt_certificate?: {
    algorithm?: unknown;
    nonce?: unknown;
    associated_data?: unknown;
    ciphertext?: unknown;
  };
}

export interface PlatformCertificateStoreOptions {
  apiV3Key: string;
  /** the verification keys by serial, shared with the provider: downloaded certificates join it */
  verifiers: Map<string, KeyObject>;
  /** GET /v3/certificates, signed; the answer unverified (this store verifies it) */
  download: () => Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
  }>;
  /** download again after this long (and when a certificate expires within a day) */
  refreshMs: number;
  toleranceSeconds: number;
  /** an unknown serial asks for a download at most this often */
  minIntervalMs?: number;
  /** AEAD_AES_256_GCM with the APIv3 key (decryptWechatResource) */
  decrypt: (
    apiV3Key: string,
    resource: { ciphertext: string; nonce: string; associated_data?: string },
  ) => string;
  /** checks Wechatpay-* headers over a body with the keys by serial (verifyWechatSignature) */
  verify: (
    keys: Map<string, KeyObject>,
    headers: Record<string, string | string[] | undefined>,
    body: string,
    toleranceSeconds: number,
  ) => void;
}

/**
 * WeChat Pay platform certificates, downloaded and kept current: each certificate comes encrypted
 * with the APIv3 key (AEAD_AES_256_GCM, so a decrypted one is WeChat Pay's), its serial must be the
 * one listed, and the answer's own signature must verify with the keys known plus the downloaded
 * ones. Downloaded again before the newest certificate expires, after `refreshMs`, and when a
 * signature names a serial nobody knows (a rotation); one download at a time.
 */
export function createPlatformCertificateStore(opts: PlatformCertificateStoreOptions) {
  const downloaded = new Map<string, X509Certificate>();
  let lastDownload = 0;
  let lastLearn = 0;
  let inFlight: Promise<number> | null = null;
  const minInterval = opts.minIntervalMs ?? 60_000;

  async function download(): Promise<number> {
    const res = await opts.download();
    if (res.status !== 200) throw new Error(`GET /v3/certificates answered ${res.status}`);
    const body = JSON.parse(res.text) as { data?: CertificateEntry[] };
    const fresh = new Map<string, X509Certificate>();
    for (const entry of body.data ?? []) {
      const enc = entry.encrypt_certificate;
      if (
        enc?.algorithm !== 'AEAD_AES_256_GCM' ||
        typeof enc.ciphertext !== 'string' ||
        typeof enc.nonce !== 'string' ||
        typeof entry.serial_no !== 'string'
      ) {
        throw new Error('a certificate is not AEAD_AES_256_GCM-encrypted');
      }
      const pem = opts.decrypt(opts.apiV3Key, {
        ciphertext: enc.ciphertext,
        nonce: enc.nonce,
        associated_data: typeof enc.associated_data === 'string' ? enc.associated_data : '',
      });
      const cert = new X509Certificate(pem);
      const serial = cert.serialNumber.toUpperCase();
      if (serial !== entry.serial_no.toUpperCase()) {
        throw new Error(`certificate ${entry.serial_no} carries serial ${serial}`);
      }
      if (Date.parse(cert.validTo) > Date.now()) fresh.set(serial, cert);
    }
    // the answer itself: signed by a key known already or by one it brings
    const keys = new Map(opts.verifiers);
    for (const [serial, cert] of fresh) keys.set(serial, cert.publicKey);
    opts.verify(keys, res.headers, res.text, opts.toleranceSeconds);
    for (const [serial, cert] of fresh) {
      downloaded.set(serial, cert);
      opts.verifiers.set(serial, cert.publicKey);
    }
    lastDownload = Date.now();
    return fresh.size;
  }

  const store = {
    /** Downloads now (joining one under way); resolves the number of valid certificates listed. */
    refresh(): Promise<number> {
      inFlight ??= download().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    /** True when a download is due: never done, older than refreshMs, or the newest expires within a day. */
    due(): boolean {
      if (lastDownload === 0 || Date.now() - lastDownload > opts.refreshMs) return true;
      const newest = Math.max(0, ...[...downloaded.values()].map((c) => Date.parse(c.validTo)));
      return newest - Date.now() < 86_400_000;
    },
    /** Downloads when a signature names `serial` and it is unknown (not more often than once a minute). */
    async learn(serial: string | undefined): Promise<boolean> {
      if (!serial || opts.verifiers.has(serial) || opts.verifiers.has(serial.toUpperCase())) return false;
      if (!inFlight && Date.now() - lastLearn < minInterval) return false;
      lastLearn = Date.now();
      await store.refresh();
      return opts.verifiers.has(serial) || opts.verifiers.has(serial.toUpperCase());
    },
    /** The serial of the newest downloaded certificate (the one WeChat Pay signs with after a rotation). */
    newestSerial(): string | undefined {
      let best: X509Certificate | undefined;
      for (const c of downloaded.values())
        if (!best || Date.parse(c.validFrom) >= Date.parse(best.validFrom)) best = c;
      return best?.serialNumber.toUpperCase();
    },
  };
  return store;
}
