import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches, getTopUpOrder, insertTopUpOrder } from '@mediagate/shared/billing';
import { newTopUpOrderId } from '@mediagate/shared/ids';
import { reconcileTopUpOrders } from '@mediagate/shared/payments';
import { waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi } from '../../test/harness';
import { type PaymentSimApi, startPaymentSimApi } from '../../test/payment-sim';

type Provider = 'alipay' | 'wechat';
interface TopUp {
  id: string;
  status: string;
  amount_cny: number;
  cancelled_at: number | null;
}

let s: PaymentSimApi;
beforeAll(async () => {
  s = await startPaymentSimApi();
});
afterAll(async () => {
  await s.close();
});
afterEach(async () => {
  expect(await findLedgerMismatches(s.api.database.db)).toEqual([]);
});

const balance = async (id: string) => (await getAccount(s.api.database.db, id))!.balanceMicroUsd;
const order = async (id: string) => (await getTopUpOrder(s.api.database.db, id))!;
const simOrder = async (vendor: Provider, id: string) =>
  (await s.control('GET', `/orders/${vendor}/${id}`)).json as { status: string; closed_by: string | null };

async function create(session: string, provider: Provider, amountCny = 35): Promise<TopUp> {
  const res = await consoleCall(s.api, 'POST', '/console/api/topups', session, {
    amount_cny: amountCny,
    provider,
  });
  return (await expectContract(res, contractFor('post /console/api/topups'), 201)) as TopUp;
}
const cancelCall = (session: string, id: string) =>
  consoleCall(s.api, 'POST', `/console/api/topups/${id}/cancel`, session);
async function cancel(session: string, id: string): Promise<TopUp> {
  return (await expectContract(
    await cancelCall(session, id),
    contractFor('post /console/api/topups/:id/cancel'),
    200,
  )) as TopUp;
}
/** The reconciler's pass over every order old enough (created_at moved back past its wait). */
async function reconcile(id: string) {
  await s.api.database.pool.query(
    `update topup_orders set created_at = created_at - interval '1 minute' where id = $1`,
    [id],
  );
  return reconcileTopUpOrders(s.api.database.db, s.api.deps.qrProviders!, { afterMs: 10_000 });
}

describe('POST /console/api/topups/:id/cancel', () => {
  it('WeChat Pay: closes the order at the provider and marks it cancelled; a second cancel answers the same', async () => {
    const { session, accountId } = await consoleAccount(s.api, 0);
    const t = await create(session, 'wechat');
    const c = await cancel(session, t.id);
    expect(c).toMatchObject({ id: t.id, status: 'cancelled' });
    expect(c.cancelled_at).toEqual(expect.any(Number));
    expect(await simOrder('wechat', t.id)).toMatchObject({ status: 'CLOSED', closed_by: 'merchant' });
    // the code is dead: the reconciler has nothing more to ask
    expect((await order(t.id)).closedAt).not.toBeNull();
    expect(await cancel(session, t.id)).toMatchObject({ status: 'cancelled' });
    expect((await s.control('POST', '/pay', { vendor: 'wechat', out_trade_no: t.id })).status).toBe(409);
    expect(await balance(accountId)).toBe(0);
  });

  it('Alipay, scanned: closes the trade at the provider', async () => {
    const { session } = await consoleAccount(s.api, 0);
    const t = await create(session, 'alipay');
    expect((await s.control('POST', '/scan', { vendor: 'alipay', out_trade_no: t.id })).status).toBe(200);
    expect(await cancel(session, t.id)).toMatchObject({ status: 'cancelled' });
    expect(await simOrder('alipay', t.id)).toMatchObject({ status: 'CLOSED', closed_by: 'merchant' });
    expect((await order(t.id)).closedAt).not.toBeNull();
  });

  it('Alipay, never scanned: cancelled, but its code stays payable; a payment made then is credited', async () => {
    const { session, accountId } = await consoleAccount(s.api, 0);
    const t = await create(session, 'alipay');
    expect(await cancel(session, t.id)).toMatchObject({ status: 'cancelled' });
    // no trade to close (ACQ.TRADE_NOT_EXIST): the order stays on the reconciler's list
    expect(await simOrder('alipay', t.id)).toMatchObject({ status: 'WAIT', closed_by: null });
    expect((await order(t.id)).closedAt).toBeNull();
    // the payer scans the code anyway and pays: the notification credits it
    expect((await s.control('POST', '/pay', { vendor: 'alipay', out_trade_no: t.id })).status).toBe(200);
    await waitFor(async () => (await order(t.id)).status === 'credited', { timeoutMs: 10_000 });
    expect(await balance(accountId)).toBe(7_000_000);
    const got = (await (
      await consoleCall(s.api, 'GET', `/console/api/topups/${t.id}`, session)
    ).json()) as TopUp;
    expect(got.status).toBe('credited');
  });

  it('Alipay, never scanned: a payment whose notification is lost is credited by the reconciler', async () => {
    const { session, accountId } = await consoleAccount(s.api, 0);
    const t = await create(session, 'alipay');
    await cancel(session, t.id);
    await s.control('POST', '/pay', { vendor: 'alipay', out_trade_no: t.id, notify: false });
    await reconcile(t.id);
    expect((await order(t.id)).status).toBe('credited');
    expect(await balance(accountId)).toBe(7_000_000);
  });

  it('Alipay, never scanned: the reconciler closes it once scanned, and forgets it once its code is dead', async () => {
    const { session } = await consoleAccount(s.api, 0);
    const scanned = await create(session, 'alipay');
    const unscanned = await create(session, 'alipay');
    await cancel(session, scanned.id);
    await cancel(session, unscanned.id);
    // scanned after the cancel: the trade now exists, and the reconciler closes it
    await s.control('POST', '/scan', { vendor: 'alipay', out_trade_no: scanned.id });
    await reconcile(scanned.id);
    expect(await simOrder('alipay', scanned.id)).toMatchObject({ status: 'CLOSED', closed_by: 'merchant' });
    expect((await order(scanned.id)).closedAt).not.toBeNull();
    // never scanned: queried until its validity is surely over, then left alone
    await reconcile(unscanned.id);
    expect((await order(unscanned.id)).closedAt).toBeNull();
    await s.api.database.pool.query(
      `update topup_orders set expires_at = now() - interval '3 minutes' where id = $1`,
      [unscanned.id],
    );
    await reconcile(unscanned.id);
    expect(await order(unscanned.id)).toMatchObject({ status: 'cancelled', closedAt: expect.any(Date) });
  });

  it('WeChat Pay, payer paying (202 USER_PAYING): refused with 409, the order stays open and is credited when paid', async () => {
    const { session, accountId } = await consoleAccount(s.api, 0);
    const t = await create(session, 'wechat');
    await s.control('POST', '/scan', { vendor: 'wechat', out_trade_no: t.id });
    const refused = await expectError(await cancelCall(session, t.id), 409, 'conflict');
    expect(refused.message).toMatch(/completing .* right now/);
    expect((await order(t.id)).status).toBe('created');
    await s.control('POST', '/pay', { vendor: 'wechat', out_trade_no: t.id });
    await waitFor(async () => (await order(t.id)).status === 'credited', { timeoutMs: 10_000 });
    expect(await balance(accountId)).toBe(7_000_000);
  });

  it.each(['alipay', 'wechat'] as const)(
    '%s: a paid order is refused (409); paid without a notification, it is credited on the way',
    async (provider) => {
      const { session, accountId } = await consoleAccount(s.api, 0);
      const notified = await create(session, provider);
      await s.control('POST', '/pay', { vendor: provider, out_trade_no: notified.id });
      await waitFor(async () => (await order(notified.id)).status === 'credited', { timeoutMs: 10_000 });
      const e = await expectError(await cancelCall(session, notified.id), 409, 'conflict');
      expect(e).toMatchObject({ param: 'status', message: expect.stringMatching(/already paid/) });
      // paid, notification lost: the close finds it paid, the order is credited, and the cancel refused
      const silent = await create(session, provider);
      await s.control('POST', '/pay', { vendor: provider, out_trade_no: silent.id, notify: false });
      await expectError(await cancelCall(session, silent.id), 409, 'conflict');
      expect((await order(silent.id)).status).toBe('credited');
      expect(await balance(accountId)).toBe(14_000_000);
    },
  );

  it('an expired order cannot be cancelled (409)', async () => {
    const { session } = await consoleAccount(s.api, 0);
    const t = await create(session, 'wechat');
    await s.api.database.pool.query(`update topup_orders set status = 'expired' where id = $1`, [t.id]);
    const e = await expectError(await cancelCall(session, t.id), 409, 'conflict');
    expect(e.message).toMatch(/already expired/);
  });

  it("another account's order, an unknown one, or no session: 404 / 401, nothing closed", async () => {
    const owner = await consoleAccount(s.api, 0);
    const other = await consoleAccount(s.api, 0);
    const t = await create(owner.session, 'wechat');
    await expectError(await cancelCall(other.session, t.id), 404, 'not_found');
    await expectError(await cancelCall(owner.session, 'top_nope'), 404, 'not_found');
    await expectError(
      await call(s.api, 'POST', `/console/api/topups/${t.id}/cancel`),
      401,
      'invalid_session',
    );
    expect((await order(t.id)).status).toBe('created');
    expect(await simOrder('wechat', t.id)).toMatchObject({ status: 'WAIT' });
  });

  it('cancelled orders leave the open-orders limit: 11 create and cancel cycles, then a payment is credited', async () => {
    const { session, accountId } = await consoleAccount(s.api, 0);
    for (let i = 0; i < 11; i += 1) {
      const t = await create(session, i % 2 ? 'alipay' : 'wechat');
      await cancel(session, t.id);
    }
    const t = await create(session, 'wechat');
    await s.control('POST', '/pay', { vendor: 'wechat', out_trade_no: t.id });
    await waitFor(async () => (await order(t.id)).status === 'credited', { timeoutMs: 10_000 });
    expect(await balance(accountId)).toBe(7_000_000);
  });

  it('unpaid creations are capped per hour, cancelled ones included, paid ones not (429 with Retry-After until the first leaves the hour)', async () => {
    const { session } = await consoleAccount(s.api, 0);
    const paid = await create(session, 'wechat');
    await s.control('POST', '/pay', { vendor: 'wechat', out_trade_no: paid.id });
    await waitFor(async () => (await order(paid.id)).status === 'credited', { timeoutMs: 10_000 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const t = await create(session, 'wechat');
      await cancel(session, t.id);
      ids.push(t.id);
    }
    const res = await consoleCall(s.api, 'POST', '/console/api/topups', session, {
      amount_cny: 35,
      provider: 'wechat',
    });
    const e = await expectError(res, 429, 'rate_limit_exceeded');
    expect(e.message).toMatch(/30 unpaid top-ups within the last hour/);
    const wait = Number(res.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(3_000);
    expect(wait).toBeLessThanOrEqual(3_600);
    await s.api.database.pool.query(
      `update topup_orders set created_at = created_at - interval '61 minutes' where id = $1`,
      [ids[0]],
    );
    await create(session, 'wechat');
  });

  it('the provider unreachable: 503, the order stays open', async () => {
    const dead = await startTestApi({
      ...s.keys.merchant,
      ALIPAY_GATEWAY: 'http://127.0.0.1:9/gateway.do',
      WECHATPAY_BASE_URL: 'http://127.0.0.1:9',
      PAYMENT_PROVIDER_TIMEOUT_MS: 2000,
    });
    try {
      const { session, accountId } = await consoleAccount(dead, 0);
      for (const provider of ['alipay', 'wechat']) {
        const o = await insertTopUpOrder(dead.database.db, {
          id: newTopUpOrderId(),
          accountId,
          provider,
          amountFen: 3500,
          creditMicroUsd: 7_000_000,
          bonusMicroUsd: 0,
          expiresAt: new Date(Date.now() + 15 * 60_000),
        });
        await expectError(
          await consoleCall(dead, 'POST', `/console/api/topups/${o.id}/cancel`, session),
          503,
          'service_unavailable',
        );
        expect((await getTopUpOrder(dead.database.db, o.id))!.status).toBe('created');
      }
    } finally {
      await dead.close();
    }
  });
});
