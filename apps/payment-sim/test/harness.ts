import { createSign, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@mediagate/shared/config';
import {
  alipaySignContent,
  alipayTime,
  createQrPaymentProviders,
  paymentsEnvShape,
  rsa2Sign,
} from '@mediagate/shared/payments';
import expressApp, { type default as express, raw as expressRaw } from 'express';
import { z } from 'zod';
import { buildPaymentSim, generatePaymentKeys, paySimEnvSchema } from '../src/app';

export const CONTROL_TOKEN = 'payment-sim-control-token-for-tests';

/** A simulator listening on loopback, the merchant keys that match it, and ways to drive it. */
export async function startSim(env: Record<string, string> = {}, keys = generatePaymentKeys()) {
  const servers: Server[] = [];
  const listen = async (app: express.Express): Promise<string> => {
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const sim = buildPaymentSim(
    loadConfig(paySimEnvSchema, {
      ...keys.sim,
      PAYSIM_CONTROL_TOKEN: CONTROL_TOKEN,
      LOG_LEVEL: 'silent',
      ...env,
    }),
  );
  const url = await listen(sim.app);
  const providers = (merchant: Record<string, string | undefined> = {}) =>
    createQrPaymentProviders(
      z.object(paymentsEnvShape).parse({
        ...keys.merchant,
        ALIPAY_GATEWAY: `${url}/gateway.do`,
        WECHATPAY_BASE_URL: url,
        ...merchant,
      }),
    );
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/_control${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CONTROL_TOKEN}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: control answers are free-form JSON
    return { status: res.status, json: (await res.json()) as any };
  };
  return {
    url,
    keys,
    providers,
    control,
    listen,
    close: async () => {
      sim.close();
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

/** Waits for a condition with a deadline (no fixed sleeps). */
export async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let seq = 0;
/** An out_trade_no both vendors accept (6-32 characters). */
export const orderNo = (tag: string) =>
  `top_${tag}${Date.now().toString(36)}${(seq++).toString(36)}`.slice(0, 32);

/** A signed Alipay gateway call as a merchant makes it; the raw answer and its parsed body. */
export async function alipayCall(
  url: string,
  keys: { ALIPAY_APP_ID?: string; ALIPAY_PRIVATE_KEY?: string },
  method: string,
  biz: Record<string, unknown>,
  extra: Record<string, string> = {},
) {
  const params: Record<string, string> = {
    app_id: keys.ALIPAY_APP_ID ?? '',
    method,
    format: 'JSON',
    charset: 'utf-8',
    sign_type: 'RSA2',
    timestamp: alipayTime(new Date()),
    version: '1.0',
    biz_content: JSON.stringify(biz),
    ...extra,
  };
  params.sign = rsa2Sign(keys.ALIPAY_PRIVATE_KEY ?? '', alipaySignContent(params, false));
  const res = await fetch(`${url}/gateway.do`, { method: 'POST', body: new URLSearchParams(params) });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: vendor answers are free-form JSON
  const json = JSON.parse(text) as any;
  return { text, json, response: json[`${method.replaceAll('.', '_')}_response`] ?? json.error_response };
}

/** A signed WeChat Pay API v3 call; `serial` is the Wechatpay-Serial header (none when undefined). */
export async function wechatCall(
  url: string,
  keys: { WECHATPAY_MCHID?: string; WECHATPAY_PRIVATE_KEY?: string; WECHATPAY_MERCHANT_SERIAL?: string },
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  serial?: string,
  // biome-ignore lint/suspicious/noExplicitAny: vendor answers are free-form JSON
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const signature = createSign('RSA-SHA256')
    .update(`${method}\n${path}\n${timestamp}\n${nonce}\n${text}\n`)
    .sign(keys.WECHATPAY_PRIVATE_KEY ?? '', 'base64');
  const res = await fetch(url + path, {
    method,
    headers: {
      authorization: `WECHATPAY2-SHA256-RSA2048 mchid="${keys.WECHATPAY_MCHID}",nonce_str="${nonce}",signature="${signature}",timestamp="${timestamp}",serial_no="${keys.WECHATPAY_MERCHANT_SERIAL}"`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(serial ? { 'wechatpay-serial': serial } : {}),
    },
    body: body === undefined ? undefined : text,
  });
  const answer = await res.text();
  return { status: res.status, headers: res.headers, text: answer, json: answer ? JSON.parse(answer) : {} };
}

/** A merchant endpoint recording every notification it is sent, answering with `answer`. */
export interface ReceivedNotification {
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  status: number;
}

export function notificationSink(
  answer: (req: express.Request, raw: Buffer) => { status: number; body?: string },
): { app: express.Express; received: ReceivedNotification[] } {
  const received: ReceivedNotification[] = [];
  const app = expressApp();
  app.post('/notify', expressRaw({ type: () => true }), (req, res) => {
    const raw = req.body as Buffer;
    const a = answer(req, raw);
    received.push({ headers: req.headers, raw, status: a.status });
    res.status(a.status).send(a.body ?? '');
  });
  return { app, received };
}
