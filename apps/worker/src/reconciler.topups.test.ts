import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildPaymentSim, generatePaymentKeys, paySimEnvSchema } from '@mediagate/payment-sim';
import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches, getTopUpOrder, insertTopUpOrder } from '@mediagate/shared/billing';
import { loadConfig } from '@mediagate/shared/config';
import { newTopUpOrderId } from '@mediagate/shared/ids';
import { createLogger } from '@mediagate/shared/log';
import { createQrPaymentProviders, paymentsEnvShape } from '@mediagate/shared/payments';
import { waitFor } from '@mediagate/shared/testing';
import { z } from 'zod';
import { startWorkerHarness, type WorkerHarness } from '../test/harness';
import { reconcileOnce, startReconciler } from './reconciler';

let h: WorkerHarness;
const CONTROL_TOKEN = 'payment-sim-control-token-for-tests';
let sim: ReturnType<typeof buildPaymentSim>;
let simServer: Server;
let simUrl: string;
let providers: ReturnType<typeof createQrPaymentProviders>;

beforeAll(async () => {
  const keys = generatePaymentKeys({ withCertificate: false });
  // notifications go nowhere and their retries wait hours: only the reconciler can credit
  sim = buildPaymentSim(
    loadConfig(paySimEnvSchema, {
      ...keys.sim,
      LOG_LEVEL: 'silent',
      PAYSIM_CONTROL_TOKEN: CONTROL_TOKEN,
    }),
  );
  simServer = sim.app.listen(0, '127.0.0.1');
  await new Promise((r) => simServer.once('listening', r));
  simUrl = `http://127.0.0.1:${(simServer.address() as AddressInfo).port}`;
  providers = createQrPaymentProviders(
    z.object(paymentsEnvShape).parse({
      ...keys.merchant,
      ALIPAY_GATEWAY: `${simUrl}/gateway.do`,
      WECHATPAY_BASE_URL: simUrl,
    }),
  );
  h = await startWorkerHarness({ url: 'http://127.0.0.1:9' });
});
afterAll(async () => {
  sim?.close();
  await new Promise((r) => simServer?.close(r));
  simServer?.closeAllConnections();
  await h?.close();
});
afterEach(async () => {
  expect(await findLedgerMismatches(h.database.db)).toEqual([]);
});

/** An order placed at the provider as the API places it, with a notify URL nobody answers. */
async function placeOrder(provider: 'alipay' | 'wechat', expiresInMs = 15 * 60_000, providerFen = 3500) {
  const order = await insertTopUpOrder(h.database.db, {
    id: newTopUpOrderId(),
    accountId: h.accountId,
    provider,
    amountFen: 3500,
    creditMicroUsd: 7_000_000,
    bonusMicroUsd: 0,
    expiresAt: new Date(Date.now() + expiresInMs),
  });
  await providers.get(provider)!.createQr({
    id: order.id,
    amountFen: providerFen,
    subject: 'test',
    expiresAt: order.expiresAt,
    notifyUrl: 'http://127.0.0.1:9/payments/notify',
  });
  return order;
}

const pay = (vendor: string, id: string) =>
  fetch(`${simUrl}/_control/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CONTROL_TOKEN}` },
    body: JSON.stringify({ vendor, out_trade_no: id }),
  });

const deps = (intervalMs: number) => ({
  database: h.database,
  redis: h.redis,
  videoQueue: h.queue,
  logger: createLogger({ service: 'reconciler-topups-test', level: 'silent' }),
  topUps: { providers, afterMs: 0 },
  config: {
    intervalMs,
    graceMs: 60_000,
    imageSettleAfterMs: 15 * 60_000,
    lockKey: `${h.prefix}:reconciler-lock`,
  },
});

describe('reconciler: top-up orders', () => {
  it('credits paid orders whose notification was lost within one interval of the running reconciler', async () => {
    const before = (await getAccount(h.database.db, h.accountId))!.balanceMicroUsd;
    const interval = 1_000;
    const reconciler = startReconciler(deps(interval));
    try {
      const orders = [await placeOrder('alipay'), await placeOrder('wechat')];
      const paidAt = performance.now();
      for (const o of orders) expect((await pay(o.provider, o.id)).status).toBe(200);
      await waitFor(
        async () => {
          const rows = await Promise.all(orders.map((o) => getTopUpOrder(h.database.db, o.id)));
          return rows.every((r) => r?.status === 'credited');
        },
        { what: 'credited by the reconciler', timeoutMs: 10_000, intervalMs: 20 },
      );
      const ms = performance.now() - paidAt;
      // biome-ignore lint/suspicious/noConsole: the figure this test exists to print
      console.log(
        `missed notification -> credited by the reconciler in ${ms.toFixed(0)} ms (interval ${interval} ms)`,
      );
      // the payment lands just after a sweep at worst: the next one (an interval later) credits it
      expect(ms).toBeLessThan(2 * interval + 2_000);
    } finally {
      await reconciler.stop();
    }
    expect((await getAccount(h.database.db, h.accountId))!.balanceMicroUsd).toBe(before + 14_000_000);
  });

  it('closes expired orders at the provider and reports both counts', async () => {
    const expired = await placeOrder('wechat', 60_000);
    await h.database.pool.query(
      `update topup_orders set expires_at = now() - interval '1 second' where id = $1`,
      [expired.id],
    );
    const paid = await placeOrder('alipay');
    await pay('alipay', paid.id);
    const res = await reconcileOnce(deps(1_000));
    expect(res).toMatchObject({ topUpsCredited: 1, topUpsExpired: 1, skipped: false });
    expect((await getTopUpOrder(h.database.db, expired.id))?.status).toBe('expired');
    const again = await reconcileOnce(deps(1_000));
    expect(again).toMatchObject({ topUpsCredited: 0, topUpsExpired: 0 });
  });

  it('marks an order paid with another amount as paid, credits nothing and stops querying it', async () => {
    const before = (await getAccount(h.database.db, h.accountId))!.balanceMicroUsd;
    const order = await placeOrder('wechat', 15 * 60_000, 3600);
    await pay('wechat', order.id);
    const res = await reconcileOnce(deps(1_000));
    expect(res.topUpsCredited).toBe(0);
    const row = await getTopUpOrder(h.database.db, order.id);
    expect(row).toMatchObject({ status: 'paid', creditedAt: null });
    expect(row?.providerTradeId).toBeTruthy();
    expect((await getAccount(h.database.db, h.accountId))!.balanceMicroUsd).toBe(before);
    expect((await reconcileOnce(deps(1_000))).topUpsCredited).toBe(0);
  });
});
