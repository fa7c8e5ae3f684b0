import { generateKeyPairSync } from 'node:crypto';
import type { PaymentKeySet } from '@mediagate/payment-sim';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { reconcileTopUpOrders } from '@mediagate/shared/payments';
import { waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';
import { alipayNotification, type Provider, wechatNotification } from '../../test/payment-notifications';
import { type PaymentSimApi, startPaymentSimApi } from '../../test/payment-sim';

let s: PaymentSimApi;
let api: TestApi;
let keys: PaymentKeySet;
beforeAll(async () => {
  s = await startPaymentSimApi();
  ({ api, keys } = s);
});
afterAll(() => s.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

interface TopUp {
  id: string;
  status: string;
  amount_cny: number;
  qr_code: string;
  expires_at: number;
}

async function createTopUp(session: string, provider: Provider, amountCny = 35): Promise<TopUp> {
  const res = await consoleCall(api, 'POST', '/console/api/topups', session, {
    amount_cny: amountCny,
    provider,
  });
  return (await expectContract(res, contractFor('post /console/api/topups'), 201)) as TopUp;
}
const status = async (session: string, id: string) =>
  (
    (await expectContract(
      await consoleCall(api, 'GET', `/console/api/topups/${id}`, session),
      contractFor('get /console/api/topups/:id'),
      200,
    )) as { status: string }
  ).status;

/** Asserts the protocol's "accepted" answer. */
async function expectAccepted(provider: Provider, res: Response) {
  const contract = contractFor(`post /payments/${provider}/notify`);
  if (provider === 'alipay') expect(await expectContract(res, contract, 200)).toBe('success');
  else await expectContract(res, contract, 204);
}
/** Asserts the protocol's "refused, send again" answer. */
async function expectRefused(provider: Provider, res: Response) {
  expect(res.status).toBeGreaterThanOrEqual(400);
  const body = await expectContract(res, contractFor(`post /payments/${provider}/notify`), res.status);
  if (provider === 'alipay') expect(body).toBe('fail');
  else expect(body).toMatchObject({ code: 'FAIL' });
}

const otherKey = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;

// ------------------------------------------------------------------ the console API

describe('GET /console/api/topups/options', () => {
  it('lists the configured providers, rate, limits in CNY and a stable bank-transfer reference', async () => {
    const { session } = await consoleAccount(api, 0);
    const res = await consoleCall(api, 'GET', '/console/api/topups/options', session);
    const body = (await expectContract(res, contractFor('get /console/api/topups/options'), 200)) as any;
    expect(body).toMatchObject({
      providers: ['alipay', 'wechat'],
      cny_per_usd: 5,
      min_amount_cny: 35,
      bonus_threshold_cny: 500,
      bonus_percent: 10,
      bank_transfer: { beneficiary: null, bank: null, account_number: null },
    });
    expect(body.bank_transfer.reference).toMatch(/^MG[0-9A-Z]{10}$/);
    const again = (await (
      await consoleCall(api, 'GET', '/console/api/topups/options', session)
    ).json()) as any;
    expect(again.bank_transfer.reference).toBe(body.bank_transfer.reference);
    const other = await consoleAccount(api, 0);
    const theirs = (await (
      await consoleCall(api, 'GET', '/console/api/topups/options', other.session)
    ).json()) as any;
    expect(theirs.bank_transfer.reference).not.toBe(body.bank_transfer.reference);
  });

  it('writes nothing (the reference is stored with the account)', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const stored = `select reference from bank_transfer_references where account_id = $1`;
    const { rows } = await api.database.pool.query(stored, [accountId]);
    expect(rows).toHaveLength(1);
    await api.database.pool.query(`delete from bank_transfer_references where account_id = $1`, [accountId]);
    const res = await consoleCall(api, 'GET', '/console/api/topups/options', session);
    expect(((await res.json()) as any).bank_transfer.reference).toBe(rows[0].reference);
    expect((await api.database.pool.query(stored, [accountId])).rows).toHaveLength(0);
  });

  it('needs a session', async () => {
    await expectError(await call(api, 'GET', '/console/api/topups/options'), 401, 'invalid_session');
  });
});

describe('POST /console/api/topups', () => {
  it('refuses an amount below the minimum, more than 2 decimals, a bad provider or body (400)', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const post = (json: unknown) => consoleCall(api, 'POST', '/console/api/topups', session, json);
    expect(
      (await expectError(await post({ amount_cny: 34.99, provider: 'alipay' }), 400, 'invalid_request'))
        .param,
    ).toBe('amount_cny');
    await expectError(await post({ amount_cny: 35.001, provider: 'alipay' }), 400, 'invalid_request');
    await expectError(await post({ amount_cny: 35, provider: 'paypal' }), 400, 'invalid_request');
    const decimals = await expectError(
      await post({ amount_cny: 35.0000000001, provider: 'alipay' }),
      400,
      'invalid_request',
    );
    expect(decimals).toMatchObject({
      param: 'amount_cny',
      message: expect.stringMatching(/at most 2 decimals/),
    });
    const text = await expectError(
      await post({ amount_cny: '35', provider: 'wechat' }),
      400,
      'invalid_request',
    );
    expect(text).toMatchObject({
      param: 'amount_cny',
      message: expect.stringMatching(/must be a JSON number of yuan .*not the string "35"/),
    });
    await expectError(await post({ amount_cny: -35, provider: 'wechat' }), 400, 'invalid_request');
    await expectError(
      await post({ amount_cny: 35, provider: 'wechat', account_id: 'x' }),
      400,
      'invalid_request',
    );
    await expectError(await post({ provider: 'wechat' }), 400, 'invalid_request');
    await expectError(
      await call(api, 'POST', '/console/api/topups', { json: { amount_cny: 35, provider: 'alipay' } }),
      401,
      'invalid_session',
    );
    const { rows } = await api.database.pool.query(
      'select count(*)::int as n from topup_orders where account_id = $1',
      [accountId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('answers 503 when the provider cannot be reached, and keeps the order closed', async () => {
    const dead = await startTestApi({
      ...keys.merchant,
      ALIPAY_GATEWAY: 'http://127.0.0.1:9/gateway.do',
      WECHATPAY_BASE_URL: 'http://127.0.0.1:9',
      PAYMENT_PROVIDER_TIMEOUT_MS: 2000,
    });
    try {
      dead.deps.config.PAYMENT_NOTIFY_BASE_URL = dead.url;
      const { session, accountId } = await consoleAccount(dead, 0);
      for (const provider of ['alipay', 'wechat']) {
        await expectError(
          await consoleCall(dead, 'POST', '/console/api/topups', session, { amount_cny: 35, provider }),
          503,
          'service_unavailable',
        );
      }
      const { rows } = await dead.database.pool.query(
        'select status from topup_orders where account_id = $1',
        [accountId],
      );
      expect(rows).toEqual([{ status: 'closed' }, { status: 'closed' }]);
    } finally {
      await dead.close();
    }
  });

  it('refuses an 11th unpaid order (429 with Retry-After) until one is paid or expires', async () => {
    const { session } = await consoleAccount(api, 0);
    const orders: TopUp[] = [];
    for (let i = 0; i < 10; i += 1) orders.push(await createTopUp(session, i % 2 ? 'alipay' : 'wechat', 35));
    const res = await consoleCall(api, 'POST', '/console/api/topups', session, {
      amount_cny: 35,
      provider: 'alipay',
    });
    await expectError(res, 429, 'rate_limit_exceeded');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    await api.database.pool.query(`update topup_orders set expires_at = now() where id = $1`, [
      orders[0]!.id,
    ]);
    await createTopUp(session, 'alipay', 35);
  });

  it('counts orders requested at once one after the other: 14 at once, 10 made, 4 refused', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        consoleCall(api, 'POST', '/console/api/topups', session, {
          amount_cny: 35,
          provider: i % 2 ? 'alipay' : 'wechat',
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect({
      made: statuses.filter((s) => s < 300).length,
      refused: statuses.filter((s) => s === 429).length,
    }).toEqual({
      made: 10,
      refused: 4,
    });
    const { rows } = await api.database.pool.query(
      'select count(*)::int as n from topup_orders where account_id = $1',
      [accountId],
    );
    expect(rows[0].n).toBe(10);
  });

  it('shows an order to its owner only, and lists them newest first with a cursor', async () => {
    const owner = await consoleAccount(api, 0);
    const other = await consoleAccount(api, 0);
    const a = await createTopUp(owner.session, 'alipay', 35);
    const b = await createTopUp(owner.session, 'wechat', 40.5);
    const c = await createTopUp(owner.session, 'alipay', 100);
    await expectError(
      await consoleCall(api, 'GET', `/console/api/topups/${a.id}`, other.session),
      404,
      'not_found',
    );
    await expectError(
      await consoleCall(api, 'GET', '/console/api/topups/top_nope', owner.session),
      404,
      'not_found',
    );
    const got = (await (
      await consoleCall(api, 'GET', `/console/api/topups/${b.id}`, owner.session)
    ).json()) as any;
    expect(got).toMatchObject({
      object: 'topup',
      id: b.id,
      status: 'created',
      provider: 'wechat',
      amount_cny: 40.5,
      credit_usd: 8.1,
      bonus_usd: 0,
      paid_at: null,
      credited_at: null,
    });
    const page1 = (await expectContract(
      await consoleCall(api, 'GET', '/console/api/topups?limit=2', owner.session),
      contractFor('get /console/api/topups'),
      200,
    )) as any;
    expect(page1.data.map((t: TopUp) => t.id)).toEqual([c.id, b.id]);
    expect(page1.has_more).toBe(true);
    const page2 = (await (
      await consoleCall(api, 'GET', `/console/api/topups?limit=2&before=${page1.next_cursor}`, owner.session)
    ).json()) as any;
    expect(page2).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(page2.data.map((t: TopUp) => t.id)).toEqual([a.id]);
    const theirs = (await (
      await consoleCall(api, 'GET', '/console/api/topups', other.session)
    ).json()) as any;
    expect(theirs.data).toEqual([]);
    await expectError(
      await consoleCall(api, 'GET', '/console/api/topups?before=xyz', owner.session),
      400,
      'invalid_request',
    );
  });
});

// ------------------------------------------------------------------ each provider through the simulator

describe.each(['alipay', 'wechat'] as const)('%s through the payment simulator', (provider) => {
  const fen = (t: TopUp) => Math.round(t.amount_cny * 100);
  const build = (t: TopUp, o: any = {}) =>
    provider === 'alipay'
      ? alipayNotification(keys, { id: t.id, amountFen: fen(t) }, o)
      : wechatNotification(keys, { id: t.id, amountFen: fen(t) }, o);

  it('on a phone: a pay URL instead of a QR code; paying on its page credits the order and returns to the console', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const res = await consoleCall(api, 'POST', '/console/api/topups', session, {
      amount_cny: 35,
      provider,
      channel: 'mobile',
    });
    const t = (await expectContract(res, contractFor('post /console/api/topups'), 201)) as any;
    expect(t).toMatchObject({ status: 'created', channel: 'mobile', qr_code: null });
    expect(t.pay_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    // the phone's browser: the pay URL leads to the provider's page, whose form pays
    let page = t.pay_url as string;
    for (
      let r = await fetch(page, { redirect: 'manual' });
      r.status === 303;
      r = await fetch(page, { redirect: 'manual' })
    ) {
      page = new URL(r.headers.get('location')!, page).toString();
    }
    const redirect = provider === 'wechat' ? (new URL(t.pay_url).searchParams.get('redirect_url') ?? '') : '';
    const paid = await fetch(page, {
      method: 'POST',
      body: new URLSearchParams({ token: s.controlToken, redirect_url: redirect }),
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toContain(`/console/topup?order=${t.id}`);
    await waitFor(async () => (await status(session, t.id)) === 'credited', { what: 'credited' });
    expect(await s.balance(accountId)).toBe(7_000_000);
  });

  it('creates an order with the QR content, and credits it once paid (the notification, answered as the protocol wants)', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const res = await consoleCall(api, 'POST', '/console/api/topups', session, { amount_cny: 35, provider });
    const t = (await expectContract(res, contractFor('post /console/api/topups'), 201)) as any;
    expect(t).toMatchObject({
      object: 'topup',
      status: 'created',
      provider,
      amount_cny: 35,
      credit_usd: 7,
      bonus_usd: 0,
      paid_at: null,
      credited_at: null,
    });
    expect(t.id).toMatch(/^top_[0-9A-Z]{26}$/);
    expect(t.qr_code).toMatch(
      provider === 'alipay' ? /^https:\/\/qr\.alipay\.com\// : /^weixin:\/\/wxpay\/bizpayurl\?pr=/,
    );
    expect(t.expires_at - t.created_at).toBe(15 * 60);
    expect((await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id })).status).toBe(200);
    await waitFor(async () => (await status(session, t.id)) === 'credited', { what: 'credited' });
    expect(await s.balance(accountId)).toBe(7_000_000);
    const done = (await (
      await consoleCall(api, 'GET', `/console/api/topups/${t.id}`, session)
    ).json()) as any;
    expect(done.paid_at).toEqual(expect.any(Number));
    expect(done.credited_at).toEqual(expect.any(Number));
    // the simulator saw its notification answered correctly at the first try
    const order = (await s.control('GET', `/orders/${provider}/${t.id}`)).json;
    expect(order.notification.answered).toBe(true);
    expect(order.notification.attempts).toHaveLength(1);
  });

  it('adds the 10% bonus from 500 CNY', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 500);
    expect(t).toMatchObject({ credit_usd: 100, bonus_usd: 10 });
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id });
    await waitFor(async () => (await status(session, t.id)) === 'credited', { what: 'credited' });
    expect(await s.balance(accountId)).toBe(110_000_000);
    // the texts every top-up path writes (bank transfers and the dev provider alike)
    const { rows } = await api.database.pool.query(
      `select kind, reason from ledger_entries where account_id = $1 order by id`,
      [accountId],
    );
    expect(rows).toEqual([
      { kind: 'topup', reason: `top-up of 500.00 CNY via ${provider}` },
      { kind: 'bonus', reason: `bonus on a top-up of 500.00 CNY via ${provider}` },
    ]);
  });

  it('credits a 499.99 CNY top-up with exactly 99.998 USD, and its ledger entry says what was paid in fields', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 499.99);
    expect(t).toMatchObject({ amount_cny: 499.99, credit_usd: 99.998, bonus_usd: 0 });
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id });
    await waitFor(async () => (await status(session, t.id)) === 'credited', { what: 'credited' });
    expect(await s.balance(accountId)).toBe(99_998_000);
    const ledger = (await expectContract(
      await consoleCall(api, 'GET', '/console/api/ledger', session),
      contractFor('get /console/api/ledger'),
      200,
    )) as any;
    expect(ledger.data).toEqual([
      expect.objectContaining({
        kind: 'topup',
        amount_micro_usd: 99_998_000,
        ref: `${provider}:${t.id}`,
        details: {
          cause: 'payment',
          provider,
          reference: t.id,
          paid: { currency: 'CNY', amount_fen: 49_999 },
        },
      }),
    ]);
  });

  it('holds a payment of another amount for an operator, the same way from its notification and from a query', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    // the provider takes 35.00 CNY for orders we hold at 36.00 CNY
    const viaNotification = await createTopUp(session, provider, 35);
    const viaQuery = await createTopUp(session, provider, 35);
    await api.database.pool.query(`update topup_orders set amount_fen = 3600 where id = any($1)`, [
      [viaNotification.id, viaQuery.id],
    ]);
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: viaQuery.id, notify: false });
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: viaNotification.id, notify: false });
    // the notification is verified: it is accepted (sending it again cannot change the amount)
    await expectAccepted(provider, await s.notify(provider, build(viaNotification)));
    const result = await reconcileTopUpOrders(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
    expect(result.credited).toBe(0);
    expect(await status(session, viaNotification.id)).toBe('paid');
    expect(await status(session, viaQuery.id)).toBe('paid');
    // nothing credited, and neither is queried again nor credited by a late notification
    await expectAccepted(provider, await s.notify(provider, build(viaQuery)));
    await reconcileTopUpOrders(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
    expect(await status(session, viaQuery.id)).toBe('paid');
    expect(await s.balance(accountId)).toBe(0);
  });

  it('credits once whatever arrives twice or at the same time', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 70);
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id, notify: false });
    const n = build(t);
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.notify(provider, n)));
    for (const a of answers) await expectAccepted(provider, a);
    await expectAccepted(provider, await s.notify(provider, n));
    await expectAccepted(provider, await s.notify(provider, build(t)));
    expect(await s.balance(accountId)).toBe(14_000_000);
    const { rows } = await api.database.pool.query(
      `select kind, count(*)::int as n from ledger_entries where account_id = $1 group by kind`,
      [accountId],
    );
    expect(rows).toEqual([{ kind: 'topup', n: 1 }]);
    expect(await status(session, t.id)).toBe('credited');
  });

  it('refuses a bad signature, another merchant, an unknown order and a stale notification, crediting nothing', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 35);
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id, notify: false });
    const forged =
      provider === 'alipay'
        ? [
            build(t, { privateKey: otherKey() }),
            build(t, { fields: { app_id: '2021000000000000' } }),
            build(t, { fields: { out_trade_no: 'top_01KAAAAAAAAAAAAAAAAAAAAAAA' } }),
            build(t, { at: new Date(Date.now() - 3_600_000) }),
          ]
        : [
            build(t, { privateKey: otherKey() }),
            build(t, { tx: { mchid: '1900000000' } }),
            build(t, { tx: { out_trade_no: 'top_01KAAAAAAAAAAAAAAAAAAAAAAA' } }),
            build(t, { at: Math.floor(Date.now() / 1000) - 3600 }),
            // the serial of no key we trust, and a resource encrypted with another APIv3 key
            build(t, { serial: 'PUB_KEY_ID_0000000000000000000000000000000000' }),
            build(t, { apiV3Key: 'x'.repeat(32) }),
          ];
    for (const n of forged) await expectRefused(provider, await s.notify(provider, n));
    // a body changed after signing
    const good = build(t);
    await expectRefused(
      provider,
      await s.notify(provider, {
        ...good,
        body: good.body.replace(provider === 'alipay' ? '35.00' : 'a', provider === 'alipay' ? '36.00' : 'b'),
      }),
    );
    await expectRefused(provider, await s.notify(provider, { body: '', headers: {} }));
    expect(await s.balance(accountId)).toBe(0);
    expect(await status(session, t.id)).toBe('created');
  });

  it('credits a payment whose notification never came, by reconciliation', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 35);
    const unpaid = await createTopUp(session, provider, 35);
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id, notify: false });
    const result = await reconcileTopUpOrders(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
    expect(result.failed).toBe(0);
    expect(await status(session, t.id)).toBe('credited');
    expect(await status(session, unpaid.id)).toBe('created');
    expect(await s.balance(accountId)).toBe(7_000_000);
    // a second pass and a late notification change nothing
    await reconcileTopUpOrders(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
    await expectAccepted(provider, await s.notify(provider, build(t)));
    expect(await s.balance(accountId)).toBe(7_000_000);
  });

  it('asks the provider when the payer reads an order still unpaid after a while (a lost notification)', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 35);
    await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id, notify: false });
    // young orders are left to their notification
    expect(await status(session, t.id)).toBe('created');
    await api.database.pool.query(
      `update topup_orders set created_at = now() - interval '2 hours' where id = $1`,
      [t.id],
    );
    expect(await status(session, t.id)).toBe('credited');
    expect(await s.balance(accountId)).toBe(7_000_000);
  });

  /** `seconds` pass for the order: on our side (its times) and, by `simSeconds`, at the provider. */
  const age = async (t: TopUp, seconds: number, simSeconds = seconds) => {
    await api.database.pool.query(
      `update topup_orders set created_at = created_at - make_interval(secs => $2),
         expires_at = expires_at - make_interval(secs => $2) where id = $1`,
      [t.id, seconds],
    );
    await s.control('POST', '/age', { vendor: provider, out_trade_no: t.id, seconds: simSeconds });
  };
  const reconcile = () => reconcileTopUpOrders(api.database.db, api.deps.qrProviders!, { afterMs: 0 });

  it('closes an expired order at the provider once its code can no longer be paid, and it cannot be paid after', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 35);
    // past the expiry and the provider's grace (an Alipay code without a trade: its validity)
    await age(t, 15 * 60 + 3 * 60);
    const result = await reconcile();
    expect(result).toMatchObject({ failed: 0 });
    expect(await status(session, t.id)).toBe('expired');
    expect((await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id })).status).toBe(409);
    expect(await s.balance(accountId)).toBe(0);
  });

  it('keeps querying an order past its expiry while its code can still be paid, and credits a payment made then', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 35);
    // our clock says expired (1 s ago); the provider's has 30 s left on the code (skew, rounding)
    await age(t, 15 * 60 + 1, 15 * 60 - 30);
    await reconcile();
    // WeChat Pay closes it (then it is over); an Alipay code without a trade cannot be closed
    expect(await status(session, t.id)).toBe(provider === 'wechat' ? 'expired' : 'created');
    const paid = await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id, notify: false });
    expect(paid.status).toBe(provider === 'wechat' ? 409 : 200);
    await reconcile();
    expect(await status(session, t.id)).toBe(provider === 'wechat' ? 'expired' : 'credited');
    expect(await s.balance(accountId)).toBe(provider === 'wechat' ? 0 : 7_000_000);
  });

  it('ends an order the payer opened but did not pay once the provider reports it closed', async () => {
    const { session } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 35);
    await s.control('POST', '/scan', { vendor: provider, out_trade_no: t.id });
    await age(t, 15 * 60 + 3 * 60);
    // a scanned trade: the provider closes it itself at its time (WeChat Pay answers a close
    // with 400 ORDER_CLOSED); Alipay's scanned trade is closed by our close
    expect(await reconcile()).toMatchObject({ failed: 0 });
    expect(await status(session, t.id)).toBe('expired');
    expect((await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id })).status).toBe(409);
  });

  it('credits a late payment the provider reports for an order that had expired (the rule for late payments)', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    const t = await createTopUp(session, provider, 35);
    await age(t, 15 * 60 + 3 * 60);
    await reconcile();
    expect(await status(session, t.id)).toBe('expired');
    // the provider took the money anyway (a payer already in the cashier): its notification
    await expectAccepted(provider, await s.notify(provider, build(t)));
    expect(await status(session, t.id)).toBe('credited');
    expect(await s.balance(accountId)).toBe(7_000_000);
  });
});

describe('WeChat Pay keys', () => {
  it('accepts notifications signed with the platform certificate and with the WeChat Pay public key', async () => {
    const { session, accountId } = await consoleAccount(api, 0);
    for (const mode of ['certificate', 'public_key']) {
      expect((await s.control('POST', '/wechat/signer', { mode })).status).toBe(200);
      const t = await createTopUp(session, 'wechat', 35);
      await s.control('POST', '/pay', { vendor: 'wechat', out_trade_no: t.id });
      await waitFor(async () => (await status(session, t.id)) === 'credited', { what: `credited (${mode})` });
    }
    expect(await s.balance(accountId)).toBe(14_000_000);
  });
});

describe('notification to credit latency', () => {
  it.each(['alipay', 'wechat'] as const)(
    '%s: p99 of notification received -> balance credited',
    async (provider) => {
      const { session } = await consoleAccount(api, 0);
      const N = 60;
      const ms: number[] = [];
      for (let i = 0; i < N; i += 1) {
        const t = await createTopUp(session, provider, 35);
        await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id, notify: false });
        const n =
          provider === 'alipay'
            ? alipayNotification(keys, { id: t.id, amountFen: 3500 })
            : wechatNotification(keys, { id: t.id, amountFen: 3500 });
        const start = performance.now();
        // the answer is sent after the credit committed
        await expectAccepted(provider, await s.notify(provider, n));
        ms.push(performance.now() - start);
      }
      ms.sort((a, b) => a - b);
      const p = (q: number) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
      // biome-ignore lint/suspicious/noConsole: the figure this test exists to print
      console.log(
        `${provider} notification -> credited over ${N}: p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${ms[ms.length - 1]!.toFixed(1)} ms`,
      );
      // the target is 1 s; the bound leaves room for a loaded test machine, the figure is printed
      expect(p(0.99)).toBeLessThan(2000);
    },
  );

  it('both providers, 50 notifications at once: p99 of notification received -> balance credited', async () => {
    const ready: Array<{ provider: Provider; n: { body: string; headers: Record<string, string> } }> = [];
    for (let a = 0; a < 5; a += 1) {
      const { session } = await consoleAccount(api, 0);
      for (let i = 0; i < 10; i += 1) {
        const provider: Provider = i % 2 ? 'alipay' : 'wechat';
        const t = await createTopUp(session, provider, 35);
        await s.control('POST', '/pay', { vendor: provider, out_trade_no: t.id, notify: false });
        ready.push({
          provider,
          n:
            provider === 'alipay'
              ? alipayNotification(keys, { id: t.id, amountFen: 3500 })
              : wechatNotification(keys, { id: t.id, amountFen: 3500 }),
        });
      }
    }
    const ms = await Promise.all(
      ready.map(async ({ provider, n }) => {
        const start = performance.now();
        await expectAccepted(provider, await s.notify(provider, n));
        return performance.now() - start;
      }),
    );
    ms.sort((a, b) => a - b);
    const p = (q: number) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
    // biome-ignore lint/suspicious/noConsole: the figure this test exists to print
    console.log(
      `50 concurrent notifications -> credited: p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms`,
    );
    expect(p(0.99)).toBeLessThan(5000);
  });
});
