import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createAccount, hashPassword } from '@mediagate/shared/accounts';
import type { Database } from '@mediagate/shared/db';
import { freePort, type RunningProcess, startProcess, waitFor } from '@mediagate/shared/testing';

const PAYSIM = path.join(__dirname, '..', '..', 'apps', 'payment-sim', 'dist');

/** The payment simulator as a process of its own, and what a stack needs to use it. */
export interface PaySimProcess {
  url: string;
  /** its control API's token (its pay pages take it too) */
  token: string;
  /** the merchant's side of its keys, with the gateway addresses: a stack's `env` for QR top-ups */
  merchantEnv: Record<string, string>;
  /** POSTs to its control API (pay, refund, what the next refund does) */
  control: (p: string, body: unknown) => Promise<Record<string, unknown>>;
  stop: () => Promise<void>;
}

/** Starts the built payment simulator on a free port with fresh keys and a random control token. */
export async function startPaySimProcess(): Promise<PaySimProcess> {
  const keys = require(path.join(PAYSIM, 'keys.js')).generatePaymentKeys({ withCertificate: false });
  const token = randomBytes(18).toString('base64url');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process: RunningProcess = await startProcess({
    name: 'paysim',
    entry: path.join(PAYSIM, 'main.js'),
    env: {
      ...keys.sim,
      PAYSIM_PORT: String(port),
      PAYSIM_HOST: '127.0.0.1',
      PAYSIM_CONTROL_TOKEN: token,
      LOG_LEVEL: 'warn',
    },
    readyUrl: `${url}/healthz`,
  });
  return {
    url,
    token,
    merchantEnv: { ...keys.merchant, ALIPAY_GATEWAY: `${url}/gateway.do`, WECHATPAY_BASE_URL: url },
    control: async (p, body) => {
      const res = await fetch(`${url}/_control${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return res.json() as Promise<Record<string, unknown>>;
    },
    stop: async () => {
      await process.stop();
    },
  };
}

/** Signs in as the customer and places a QR top-up through the console API; returns its id. */
export async function placeTopUp(
  apiUrl: string,
  customer: { email: string; password: string },
  order: { amountCny?: number; provider?: 'alipay' | 'wechat' } = {},
): Promise<string> {
  const post = (p: string, body: unknown, session?: string) =>
    fetch(`${apiUrl}${p}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(session ? { authorization: `Bearer ${session}` } : {}),
      },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, string>>);
  const { token } = await post('/console/api/login', customer);
  const placed = await post(
    '/console/api/topups',
    { amount_cny: order.amountCny ?? 35, provider: order.provider ?? 'alipay' },
    token,
  );
  if (!placed.id) throw new Error(`no top-up: ${JSON.stringify(placed)}`);
  return placed.id;
}

/**
 * A new customer `email` (password Customer-pass-42, no credit) who placed a 35 CNY Alipay top-up
 * and paid it in the simulator; returns once the gateway credited it.
 */
export async function paidTopUp(
  deps: { database: Database; apiUrl: string; paysim: PaySimProcess },
  email: string,
): Promise<{ accountId: string; topUp: string }> {
  const password = 'Customer-pass-42';
  const { accountId } = await createAccount(deps.database.db, {
    email,
    initialCreditMicroUsd: 0,
    passwordHash: await hashPassword(password),
  });
  const topUp = await placeTopUp(deps.apiUrl, { email, password });
  await deps.paysim.control('/pay', { vendor: 'alipay', out_trade_no: topUp });
  await waitFor(
    async () =>
      (
        await deps.database.pool.query<{ status: string }>('select status from topup_orders where id = $1', [
          topUp,
        ])
      ).rows[0]?.status === 'credited',
    { what: `top-up ${topUp} credited` },
  );
  return { accountId, topUp };
}
