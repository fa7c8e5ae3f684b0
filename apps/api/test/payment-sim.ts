import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildPaymentSim,
  generatePaymentKeys,
  type PaymentKeySet,
  paySimEnvSchema,
} from '@mediagate/payment-sim';
import { getAccount } from '@mediagate/shared/accounts';
import { loadConfig } from '@mediagate/shared/config';
import { startTestApi, type TestApi } from './harness';
import type { Provider, SignedNotification } from './payment-notifications';

const CONTROL_TOKEN = 'payment-sim-control-token-for-tests';

/** The payment simulator over real HTTP and an API whose providers are it. */
export interface PaymentSimApi {
  api: TestApi;
  keys: PaymentKeySet;
  simUrl: string;
  /** the control API's token (its pay pages take it too) */
  controlToken: string;
  /** the simulator's control API (what payers and time do): status and JSON answer */
  control: (
    method: string,
    path: string,
    body?: unknown,
  ) => Promise<{ status: number; json: Record<string, any> }>;
  /** POSTs a notification to the API's /payments/<provider>/notify, as the provider does */
  notify: (provider: Provider, n: SignedNotification) => Promise<Response>;
  /** an account's balance, in micro-USD */
  balance: (accountId: string) => Promise<number>;
  close: () => Promise<void>;
}

/**
 * Starts the payment simulator (vendors' retry schedules 1000 times faster; `simEnv` on top of
 * its configuration) and a test API using it, with `env` on top; the API's notify URL is its own.
 */
export async function startPaymentSimApi(
  env: Parameters<typeof startTestApi>[0] = {},
  simEnv: Record<string, string> = {},
): Promise<PaymentSimApi> {
  const keys = generatePaymentKeys();
  const sim = buildPaymentSim(
    loadConfig(paySimEnvSchema, {
      ...keys.sim,
      LOG_LEVEL: 'silent',
      PAYSIM_TIME_SCALE: '0.001',
      PAYSIM_CONTROL_TOKEN: CONTROL_TOKEN,
      ...simEnv,
    }),
  );
  const server: Server = sim.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const simUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api = await startTestApi({
    ...keys.merchant,
    ALIPAY_GATEWAY: `${simUrl}/gateway.do`,
    WECHATPAY_BASE_URL: simUrl,
    TOPUP_QUERY_AFTER_MS: 3_600_000,
    ...env,
  });
  api.deps.config.PAYMENT_NOTIFY_BASE_URL = api.url;
  return {
    api,
    keys,
    simUrl,
    controlToken: CONTROL_TOKEN,
    control: async (method, path, body) => {
      const res = await fetch(`${simUrl}/_control${path}`, {
        method,
        headers: {
          authorization: `Bearer ${CONTROL_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, never> };
    },
    notify: (provider, n) =>
      fetch(`${api.url}/payments/${provider}/notify`, { method: 'POST', headers: n.headers, body: n.body }),
    balance: async (accountId) => (await getAccount(api.database.db, accountId))!.balanceMicroUsd,
    close: async () => {
      sim.close();
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closed;
      await api.close();
    },
  };
}
