import { ensureAdminAccount, getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await startTestApi({ TOPUP_BONUS_THRESHOLD_USD: 100 });
  await ensureAdminAccount(api.database.db, { email: 'ops@example.test', password: 'operator-password' });
  // bootstrapping twice (several replicas start) changes nothing
  await ensureAdminAccount(api.database.db, { email: 'ops@example.test', password: 'operator-password' });
  const res = await call(api, 'POST', '/console/api/login', {
    json: { email: 'ops@example.test', password: 'operator-password' },
  });
  admin = ((await res.json()) as { token: string }).token;
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const adminCall = (method: string, path: string, json?: unknown, session = admin) =>
  consoleCall(api, method, `/admin/api${path}`, session, json);
const balance = async (id: string) => (await getAccount(api.database.db, id))!.balanceMicroUsd;

describe('admin API', () => {
  it.each([
    ['GET', '/accounts'],
    ['GET', '/accounts/acct_x'],
    ['POST', '/accounts/acct_x/disable'],
    ['POST', '/accounts/acct_x/topups'],
    ['POST', '/accounts/acct_x/adjustments'],
    ['PATCH', '/accounts/acct_x/limits'],
  ])('refuses %s %s without a session (401) and to a non-admin (403)', async (method, path) => {
    await expectError(await consoleCall(api, method, `/admin/api${path}`, undefined), 401, 'invalid_session');
    const user = await consoleAccount(api);
    await expectError(
      await adminCall(method, path, method === 'GET' ? undefined : {}, user.session),
      403,
      'permission_denied',
    );
    await expectError(
      await call(api, method, `/admin/api${path}`, { key: user.key }),
      401,
      'invalid_session',
    );
  });

  it('lists accounts and finds them by e-mail', async () => {
    const a = await consoleAccount(api);
    const list = (await expectContract(
      await adminCall('GET', '/accounts?limit=100'),
      contractFor('get /admin/api/accounts'),
      200,
    )) as {
      data: Array<{ id: string; email: string }>;
    };
    expect(list.data.map((x) => x.id)).toContain(a.accountId);
    const found = (await (
      await adminCall('GET', `/accounts?email=${encodeURIComponent(a.email.slice(0, 12).toUpperCase())}`)
    ).json()) as {
      data: Array<{ id: string }>;
    };
    expect(found.data.map((x) => x.id)).toEqual([a.accountId]);
    const one = await adminCall('GET', `/accounts/${a.accountId}`);
    expect(await expectContract(one, contractFor('get /admin/api/accounts/:id'), 200)).toMatchObject({
      id: a.accountId,
      email: a.email,
      status: 'active',
      balance_usd: 10,
    });
    await expectError(await adminCall('GET', '/accounts/acct_nope'), 404, 'not_found');
  });

  it('disables an account: its keys and sessions stop working; enabling restores them', async () => {
    const a = await consoleAccount(api);
    await expectContract(
      await adminCall('POST', `/accounts/${a.accountId}/disable`),
      contractFor('post /admin/api/accounts/:id/disable'),
      200,
    );
    await expectError(await call(api, 'GET', '/v1/videos', { key: a.key }), 401, 'invalid_api_key');
    await expectError(await consoleCall(api, 'GET', '/console/api/me', a.session), 401, 'invalid_session');
    await expectError(
      await call(api, 'POST', '/console/api/login', {
        json: { email: a.email, password: 'correct horse battery' },
      }),
      401,
      'invalid_credentials',
    );
    await expectContract(
      await adminCall('POST', `/accounts/${a.accountId}/enable`),
      contractFor('post /admin/api/accounts/:id/enable'),
      200,
    );
    expect((await call(api, 'GET', '/v1/videos', { key: a.key })).status).toBe(200);
  });

  it('sets and clears per-account rate limits', async () => {
    const a = await consoleAccount(api);
    const res = await adminCall('PATCH', `/accounts/${a.accountId}/limits`, {
      rpm_limit: 5,
      max_active_video_tasks: 2,
    });
    expect(await expectContract(res, contractFor('patch /admin/api/accounts/:id/limits'), 200)).toMatchObject(
      {
        limits: { rpm: 5, max_active_video_tasks: 2 },
      },
    );
    const cleared = await adminCall('PATCH', `/accounts/${a.accountId}/limits`, { rpm_limit: null });
    expect(await cleared.json()).toMatchObject({ limits: { rpm: null, max_active_video_tasks: 2 } });
    await expectError(
      await adminCall('PATCH', `/accounts/${a.accountId}/limits`, { rpm_limit: 0 }),
      400,
      'invalid_request',
    );
  });

  it('credits a bank transfer received in CNY once per reference, by the rule of QR top-ups (rate, minimum, 10% bonus at the threshold)', async () => {
    const a = await consoleAccount(api, 0);
    const post = (body: unknown) => adminCall('POST', `/accounts/${a.accountId}/topups`, body);
    const small = await expectError(
      await post({ amount_cny: 34.99, reference: 'BT-0' }),
      400,
      'invalid_request',
    );
    expect(small).toMatchObject({ param: 'amount_cny', message: 'A top-up must be at least 35 CNY.' });
    // exact to the fen, as QR amounts: never rounded
    for (const amount_cny of [35.001, 35.0000000001, '500', -500, 0]) {
      const e = await expectError(await post({ amount_cny, reference: 'BT-0' }), 400, 'invalid_request');
      expect(e.param).toBe('amount_cny');
    }
    // the USD amount is no longer what an operator types
    await expectError(await post({ amount_usd: 100, reference: 'BT-0' }), 400, 'invalid_request');
    const first = await post({ amount_cny: 500, reference: 'BT-1', note: 'wire 2025-01-01' });
    expect(
      await expectContract(first, contractFor('post /admin/api/accounts/:id/topups'), 201),
    ).toMatchObject({ credited: true, amount_cny: 500, amount_usd: 100, bonus_usd: 10 });
    const again = await post({ amount_cny: 500, reference: 'BT-1' });
    expect(
      await expectContract(again, contractFor('post /admin/api/accounts/:id/topups'), 200),
    ).toMatchObject({ credited: false, amount_cny: 500, amount_usd: 100, bonus_usd: 10 });
    await expectError(await post({ amount_cny: 250, reference: 'BT-1' }), 409, 'conflict');
    // below the bonus threshold by one fen: the credit to the micro-USD, no bonus
    const plain = await post({ amount_cny: 499.99, reference: 'BT-2' });
    expect(await plain.json()).toMatchObject({ credited: true, amount_usd: 99.998, bonus_usd: 0 });
    expect(await balance(a.accountId)).toBe(209_998_000);
    const ledger = (await expectContract(
      await consoleCall(api, 'GET', '/console/api/ledger', a.session),
      contractFor('get /console/api/ledger'),
      200,
    )) as {
      data: Array<{ kind: string; amount_usd: number; reason: string }>;
    };
    expect(ledger.data.map((e) => [e.kind, e.amount_usd, e.reason])).toEqual([
      ['topup', 99.998, 'top-up of 499.99 CNY via bank_transfer'],
      ['bonus', 10, 'bonus on a top-up of 500.00 CNY via bank_transfer'],
      ['topup', 100, 'top-up of 500.00 CNY via bank_transfer'],
    ]);
    await expectError(
      await adminCall('POST', '/accounts/acct_nope/topups', { amount_cny: 50, reference: 'BT-3' }),
      404,
      'not_found',
    );
  });

  it('adjusts a balance up and down with a reason, never below zero', async () => {
    const a = await consoleAccount(api, 1);
    const up = await adminCall('POST', `/accounts/${a.accountId}/adjustments`, {
      amount_usd: 0.5,
      reason: 'goodwill',
      reference: 'ticket-1',
    });
    expect(
      await expectContract(up, contractFor('post /admin/api/accounts/:id/adjustments'), 201),
    ).toMatchObject({ applied: true, balance_usd: 1.5 });
    const repeat = await adminCall('POST', `/accounts/${a.accountId}/adjustments`, {
      amount_usd: 0.5,
      reason: 'goodwill',
      reference: 'ticket-1',
    });
    expect(await repeat.json()).toMatchObject({ applied: false, balance_usd: 1.5 });
    const down = await adminCall('POST', `/accounts/${a.accountId}/adjustments`, {
      amount_usd: -0.25,
      reason: 'correction',
    });
    expect(await down.json()).toMatchObject({ balance_usd: 1.25 });
    await expectError(
      await adminCall('POST', `/accounts/${a.accountId}/adjustments`, { amount_usd: -5, reason: 'too much' }),
      409,
      'conflict',
    );
    for (const body of [
      { amount_usd: 1 },
      { amount_usd: 0, reason: 'x' },
      { amount_usd: 0.0000001, reason: 'x' },
    ]) {
      await expectError(
        await adminCall('POST', `/accounts/${a.accountId}/adjustments`, body),
        400,
        'invalid_request',
      );
    }
    expect(await balance(a.accountId)).toBe(1_250_000);
    const { rows } = await api.database.pool.query(
      `select reason, operator_id from ledger_entries where account_id = $1 and kind = 'adjustment' order by id`,
      [a.accountId],
    );
    const { rows: ops } = await api.database.pool.query(
      `select id from accounts where email = 'ops@example.test'`,
    );
    // who made it is kept for operators; the owner sees the reason only
    expect(rows).toEqual([
      { reason: 'goodwill', operator_id: ops[0].id },
      { reason: 'correction', operator_id: ops[0].id },
    ]);
  });

  it('never shows the operator or an operator note to the account owner', async () => {
    const a = await consoleAccount(api, 1);
    await adminCall('POST', `/accounts/${a.accountId}/adjustments`, { amount_usd: 0.5, reason: 'goodwill' });
    await adminCall('POST', `/accounts/${a.accountId}/topups`, {
      amount_cny: 50,
      reference: 'BT-note',
      note: 'internal: customer called ops@example.test about the invoice',
    });
    const ledger = await (await consoleCall(api, 'GET', '/console/api/ledger', a.session)).text();
    expect(ledger).toContain('goodwill');
    expect(ledger).toContain('top-up of 50.00 CNY via bank_transfer');
    expect(ledger).not.toMatch(/ops@example\.test|internal|invoice/);
    // in fields: the operator's note as written, the transfer's reference and amount, no operator
    expect((JSON.parse(ledger) as { data: Array<{ details: unknown }> }).data.map((e) => e.details)).toEqual([
      {
        cause: 'payment',
        provider: 'bank_transfer',
        reference: 'BT-note',
        paid: { currency: 'CNY', amount_fen: 5000 },
      },
      { cause: 'operator', note: 'goodwill' },
      { cause: 'initial_credit' },
    ]);
    const { rows } = await api.database.pool.query(`select note from payments where reference = 'BT-note'`);
    expect(rows[0].note).toMatch(/^internal/);
  });
});
