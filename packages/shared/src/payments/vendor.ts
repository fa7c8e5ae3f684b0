// The vendors' side of the two QR-payment protocols: what Alipay and WeChat Pay sign and how
// they check a merchant's request. Used by the payment simulator and by tests that forge
// notifications; the merchant side is alipay.ts and wechatpay.ts.
import { createCipheriv, createSign, createVerify, type KeyLike, randomBytes } from 'node:crypto';
import { WECHATPAY_SCHEMA } from './wechatpay';

/** Alipay's string to sign: the fields sorted by name, `sign` (and for notifications `sign_type`) left out, empty values skipped. */
export function alipaySignContent(fields: Record<string, string>, omitSignType: boolean): string {
  return Object.keys(fields)
    .filter(
      (k) =>
        k !== 'sign' && !(omitSignType && k === 'sign_type') && fields[k] !== '' && fields[k] !== undefined,
    )
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
}

export function rsa2Sign(privateKey: KeyLike, content: string): string {
  return createSign('RSA-SHA256').update(content, 'utf8').sign(privateKey, 'base64');
}

/** An asynchronous notification as Alipay posts it: the fields plus sign_type and sign. */
export function signAlipayNotification(
  fields: Record<string, string>,
  alipayPrivateKey: KeyLike,
): Record<string, string> {
  const all = { ...fields, sign_type: 'RSA2' };
  return { ...all, sign: rsa2Sign(alipayPrivateKey, alipaySignContent(all, true)) };
}

/** A gateway answer: `{"<method>_response":{...},"sign":"..."}`, signed over the exact inner JSON. */
export function alipayResponseBody(
  method: string,
  response: Record<string, unknown>,
  alipayPrivateKey: KeyLike,
): string {
  const inner = JSON.stringify(response);
  const key = `${method.replaceAll('.', '_')}_response`;
  return `{"${key}":${inner},"sign":"${rsa2Sign(alipayPrivateKey, inner)}"}`;
}

/** Checks a merchant's gateway request (all parameters, URL and form) with the app's public key. */
export function verifyAlipayRequest(params: Record<string, string>, appPublicKey: KeyLike): boolean {
  if (!params.sign) return false;
  try {
    return createVerify('RSA-SHA256')
      .update(alipaySignContent(params, false), 'utf8')
      .verify(appPublicKey, params.sign, 'base64');
  } catch {
    return false;
  }
}

/** The Wechatpay-* headers WeChat Pay puts on an answer or a notification with `body`. */
export function wechatSignedHeaders(
  privateKey: KeyLike,
  serial: string,
  body: string,
  at = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const nonce = randomBytes(16).toString('hex');
  const signature = createSign('RSA-SHA256').update(`${at}\n${nonce}\n${body}\n`).sign(privateKey, 'base64');
  return {
    'wechatpay-timestamp': String(at),
    'wechatpay-nonce': nonce,
    'wechatpay-signature': signature,
    'wechatpay-serial': serial,
    'wechatpay-signature-type': WECHATPAY_SCHEMA,
  };
}

/** A notification resource: AEAD_AES_256_GCM with the APIv3 key and a 12-character nonce. */
export function wechatEncryptResource(apiV3Key: string, plaintext: string, associatedData = 'transaction') {
  const nonce = randomBytes(6).toString('hex');
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(nonce, 'utf8'));
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return {
    original_type: 'transaction',
    algorithm: 'AEAD_AES_256_GCM',
    ciphertext: data.toString('base64'),
    associated_data: associatedData,
    nonce,
  };
}

/**
 * Checks a merchant's Authorization header (WECHATPAY2-SHA256-RSA2048) for `method path body`
 * with the merchant's public key; returns its mchid and serial, or a reason it fails.
 */
export function verifyWechatRequest(
  authorization: string | undefined,
  method: string,
  pathWithQuery: string,
  body: string,
  merchantPublicKey: KeyLike,
): { ok: true; mchid: string; serialNo: string; timestamp: number } | { ok: false; reason: string } {
  if (!authorization?.startsWith(`${WECHATPAY_SCHEMA} `))
    return { ok: false, reason: 'missing or unknown schema' };
  const parts: Record<string, string> = {};
  for (const m of authorization.slice(WECHATPAY_SCHEMA.length + 1).matchAll(/(\w+)="([^"]*)"/g)) {
    parts[m[1]!] = m[2]!;
  }
  const { mchid, nonce_str: nonce, signature, timestamp, serial_no: serialNo } = parts;
  if (!mchid || !nonce || !signature || !timestamp || !serialNo) return { ok: false, reason: 'incomplete' };
  let ok = false;
  try {
    ok = createVerify('RSA-SHA256')
      .update(`${method}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${body}\n`)
      .verify(merchantPublicKey, signature, 'base64');
  } catch {
    ok = false;
  }
  return ok
    ? { ok: true, mchid, serialNo, timestamp: Number(timestamp) }
    : { ok: false, reason: 'signature' };
}
