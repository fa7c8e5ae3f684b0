import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@mediagate/shared/config';
import { createQrPaymentProviders, paymentsEnvShape } from '@mediagate/shared/payments';
import express from 'express';
import { z } from 'zod';
import { buildPaymentSim, generatePaymentKeys, paySimEnvSchema, RETRY_SCHEDULES } from './app';

const SCALE = 0.001;
const CONTROL_TOKEN = 'payment-sim-control-token-for-tests';
const keys = generatePaymentKeys({ withCertificate: false });
let sim: ReturnType<typeof buildPaymentSim>;
const servers: Server[] = [];
let simUrl: string;

async function listen(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  sim = buildPaymentSim(
    loadConfig(paySimEnvSchema, {
      ...keys.sim,
      PAYSIM_TIME_SCALE: String(SCALE),
      PAYSIM_CONTROL_TOKEN: CONTROL_TOKEN,
    }),
  );
  simUrl = await listen(sim.app);
});
afterAll(async () => {
  sim.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const providers = () =>
  createQrPaymentProviders(
    z.object(paymentsEnvShape).parse({
      ...keys.merchant,
      ALIPAY_GATEWAY: `${simUrl}/gateway.do`,
      WECHATPAY_BASE_URL: simUrl,
    }),
  );

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${simUrl}/_control${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CONTROL_TOKEN}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: control answers are free-form JSON
  return { status: res.status, json: (await res.json()) as any };
};

/** Waits for a condition with a deadline (no fixed sleeps). */
async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(['alipay', 'wechat'] as const)('%s notifications', (vendor) => {
  it("retries on the vendor's schedule until answered as the protocol requires", async () => {
    const wrongAnswers = 3;
    let calls = 0;
    const merchant = express();
    merchant.post('/notify', express.text({ type: () => true }), (_req, res) => {
      calls += 1;
      if (calls <= wrongAnswers) {
        // a 200 that is not `success` for Alipay; a 500 for WeChat Pay: both mean "send again"
        if (vendor === 'alipay') res.status(200).send('ok');
        else res.status(500).json({ code: 'FAIL', message: 'busy' });
        return;
      }
      if (vendor === 'alipay') res.status(200).send('success');
      else res.status(204).end();
    });
    const notifyUrl = `${await listen(merchant)}/notify`;
    const id = `top_SIM${vendor.toUpperCase()}${Date.now()}`;
    await providers()
      .get(vendor)!
      .createQr({
        id,
        amountFen: 3500,
        subject: 'test',
        expiresAt: new Date(Date.now() + 15 * 60_000),
        notifyUrl,
      });
    expect((await control('POST', '/pay', { vendor, out_trade_no: id })).status).toBe(200);
    const order = await until(async () => {
      const o = (await control('GET', `/orders/${vendor}/${id}`)).json;
      return o.notification?.answered ? o : undefined;
    });
    const attempts = order.notification.attempts as Array<{ at: number; ok: boolean }>;
    expect(attempts.map((a) => a.ok)).toEqual([false, false, false, true]);
    for (let i = 1; i < attempts.length; i += 1) {
      expect(attempts[i]!.at - attempts[i - 1]!.at).toBeGreaterThanOrEqual(
        RETRY_SCHEDULES[vendor][i - 1]! * SCALE - 5,
      );
    }
  });

  it('answers query and close, signed, and checks the merchant signature', async () => {
    const p = providers().get(vendor)!;
    const id = `top_SIMQ${vendor.toUpperCase()}${Date.now()}`;
    await p.createQr({
      id,
      amountFen: 4000,
      subject: 'test',
      expiresAt: new Date(Date.now() + 60_000),
      notifyUrl: 'http://127.0.0.1:9/',
    });
    expect(await p.query(id)).toMatchObject({ state: 'unpaid' });
    // WeChat Pay closed the order; Alipay had no trade to close (never scanned): its code stays payable
    expect(await p.close(id)).toBe(vendor === 'wechat' ? 'closed' : 'absent');
    expect((await control('POST', '/pay', { vendor, out_trade_no: id })).status).toBe(
      vendor === 'wechat' ? 409 : 200,
    );
    // a request signed with another key is refused
    const wrong = generatePaymentKeys({ withCertificate: false });
    const impostor = createQrPaymentProviders(
      z.object(paymentsEnvShape).parse({
        ...keys.merchant,
        ALIPAY_PRIVATE_KEY: wrong.merchant.ALIPAY_PRIVATE_KEY,
        WECHATPAY_PRIVATE_KEY: wrong.merchant.WECHATPAY_PRIVATE_KEY,
        ALIPAY_GATEWAY: `${simUrl}/gateway.do`,
        WECHATPAY_BASE_URL: simUrl,
      }),
    ).get(vendor)!;
    await expect(
      impostor.createQr({
        id: `${id}X`,
        amountFen: 4000,
        subject: 't',
        expiresAt: new Date(Date.now() + 60_000),
        notifyUrl: 'http://127.0.0.1:9/',
      }),
    ).rejects.toThrow(vendor === 'alipay' ? /invalid-signature/ : /SIGN_ERROR/);
  });
});

describe('answers signed with a key the merchant does not trust', () => {
  it('are refused by the merchant side', async () => {
    const other = generatePaymentKeys({ withCertificate: false });
    const p = createQrPaymentProviders(
      z.object(paymentsEnvShape).parse({
        ...keys.merchant,
        ALIPAY_PUBLIC_KEY: other.merchant.ALIPAY_PUBLIC_KEY,
        WECHATPAY_PUBLIC_KEY: other.merchant.WECHATPAY_PUBLIC_KEY,
        ALIPAY_GATEWAY: `${simUrl}/gateway.do`,
        WECHATPAY_BASE_URL: simUrl,
      }),
    );
    const order = {
      id: `top_SIMV${Date.now()}`,
      amountFen: 3500,
      subject: 't',
      expiresAt: new Date(Date.now() + 60_000),
      notifyUrl: 'http://127.0.0.1:9/',
    };
    await expect(p.get('alipay')!.createQr(order)).rejects.toThrow(/alipay.trade.precreate failed/);
    await expect(p.get('wechat')!.createQr(order)).rejects.toThrow(/not verified/);
  });
});

describe('the control API (it marks orders paid)', () => {
  it('listens on loopback unless told otherwise', () => {
    expect(paySimEnvSchema.parse({}).PAYSIM_HOST).toBe('127.0.0.1');
  });

  it('needs the control token: without it or with another, 401 and the order stays unpaid', async () => {
    const orderNo = `top_SIMCTL${Date.now()}`;
    await providers()
      .get('wechat')!
      .createQr({
        id: orderNo,
        amountFen: 500_000,
        subject: 'test',
        expiresAt: new Date(Date.now() + 60_000),
        notifyUrl: 'http://127.0.0.1:9/',
      });
    // no header, another token, the token without its scheme
    for (const authorization of [undefined, 'Bearer another-token-of-some-length', CONTROL_TOKEN]) {
      const res = await fetch(`${simUrl}/_control/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ vendor: 'wechat', out_trade_no: orderNo, notify: false }),
      });
      expect(res.status).toBe(401);
    }
    expect((await control('GET', `/orders/wechat/${orderNo}`)).json.status).toBe('WAIT');
    expect(
      (await control('POST', '/pay', { vendor: 'wechat', out_trade_no: orderNo, notify: false })).status,
    ).toBe(200);
  });

  it('is off when no token is configured (403)', async () => {
    const off = buildPaymentSim(loadConfig(paySimEnvSchema, { ...keys.sim, LOG_LEVEL: 'silent' }));
    try {
      const url = await listen(off.app);
      const res = await fetch(`${url}/_control/stats`, {
        headers: { authorization: `Bearer ${CONTROL_TOKEN}` },
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: string }).error).toContain('PAYSIM_CONTROL_TOKEN');
    } finally {
      off.close();
    }
  });
});
