import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { DEV_SIGNATURE_HEADER, signDevPayment } from '@mediagate/shared/payments';
import { expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';
import * as paymentsNotify from './payments.notify';

const SECRET = 'whsec-test-payments';
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ PAYMENT_DEV_SECRET: SECRET, TOPUP_BONUS_THRESHOLD_USD: 50 });
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const notify = (payload: unknown, opts: { secret?: string; at?: number; provider?: string } = {}) => {
  const body = JSON.stringify(payload);
  return call(api, 'POST', `/payments/${opts.provider ?? 'dev'}/notify`, {
    body,
    headers: {
      'content-type': 'application/json',
      [DEV_SIGNATURE_HEADER]: signDevPayment(opts.secret ?? SECRET, body, opts.at),
    },
  });
};
const balance = async (id: string) => (await getAccount(api.database.db, id))!.balanceMicroUsd;

describe('QR-code payment notifications (dev HMAC provider)', () => {
  it('credits a signed payment at once, and only once per reference', async () => {
    const { accountId } = await api.account(0);
    const payload = { reference: 'QR-1', account_id: accountId, amount_usd: 7 };
    const first = await notify(payload);
    expect(await expectContract(first, paymentsNotify.contract, 200)).toMatchObject({
      credited: true,
      amount_usd: 7,
      bonus_usd: 0,
    });
    expect(await balance(accountId)).toBe(7_000_000);
    const again = await notify(payload);
    expect(await expectContract(again, paymentsNotify.contract, 200)).toMatchObject({ credited: false });
    expect(await balance(accountId)).toBe(7_000_000);
  });

  it('adds the 10% bonus as its own ledger entry at the threshold', async () => {
    const { accountId } = await api.account(0);
    await notify({ reference: 'QR-2', account_id: accountId, amount_usd: 50 });
    expect(await balance(accountId)).toBe(55_000_000);
    const { rows } = await api.database.pool.query(
      `select kind, amount_micro_usd::int as amount, reason from ledger_entries where account_id = $1 order by id`,
      [accountId],
    );
    // the texts every top-up path writes (QR orders and bank transfers alike)
    expect(rows).toEqual([
      { kind: 'topup', amount: 50_000_000, reason: 'top-up of 50.00 USD via dev' },
      { kind: 'bonus', amount: 5_000_000, reason: 'bonus on a top-up of 50.00 USD via dev' },
    ]);
  });

  it('refuses a wrong signature, a stale timestamp and a missing header (401), crediting nothing', async () => {
    const { accountId } = await api.account(0);
    const payload = { reference: 'QR-3', account_id: accountId, amount_usd: 10 };
    await expectError(await notify(payload, { secret: 'wrong' }), 401, 'invalid_signature');
    await expectError(
      await notify(payload, { at: Math.floor(Date.now() / 1000) - 3600 }),
      401,
      'invalid_signature',
    );
    await expectError(
      await call(api, 'POST', '/payments/dev/notify', { json: payload }),
      401,
      'invalid_signature',
    );
    // a body changed after signing
    const signed = signDevPayment(SECRET, JSON.stringify(payload));
    const tampered = await call(api, 'POST', '/payments/dev/notify', {
      body: JSON.stringify({ ...payload, amount_usd: 1000 }),
      headers: { 'content-type': 'application/json', [DEV_SIGNATURE_HEADER]: signed },
    });
    await expectError(tampered, 401, 'invalid_signature');
    expect(await balance(accountId)).toBe(0);
  });

  it('refuses a payment under the 7 USD minimum, an unknown account, a bad payload and an unknown provider', async () => {
    const { accountId } = await api.account(0);
    await expectError(
      await notify({ reference: 'QR-4', account_id: accountId, amount_usd: 6.5 }),
      400,
      'invalid_request',
    );
    await expectError(
      await notify({ reference: 'QR-5', account_id: 'acct_nope', amount_usd: 8 }),
      400,
      'invalid_request',
    );
    await expectError(await notify({ reference: 'QR-6', account_id: accountId }), 400, 'invalid_request');
    await expectError(
      await notify({ reference: 'QR-7', account_id: accountId, amount_usd: 8 }, { provider: 'alipay' }),
      404,
      'not_found',
    );
    expect(await balance(accountId)).toBe(0);
  });

  it('validates amounts instead of rounding them: more than 6 decimals is refused', async () => {
    const { accountId } = await api.account(0);
    for (const [i, amount] of [6.9999996, 7.0000001, 7.1234567, 7.00000000001].entries()) {
      const err = await expectError(
        await notify({ reference: `QR-dec-${i}`, account_id: accountId, amount_usd: amount }),
        400,
        'invalid_request',
      );
      expect(err.message).toMatch(/6 decimals/);
    }
    expect(await balance(accountId)).toBe(0);
    const exact = await notify({ reference: 'QR-dec-ok', account_id: accountId, amount_usd: 7.123456 });
    expect(exact.status).toBe(200);
    expect(await balance(accountId)).toBe(7_123_456);
  });

  it('refuses a payload with an unpaired surrogate with 400, crediting nothing', async () => {
    const { accountId } = await api.account(0);
    await expectError(
      await notify({ reference: 'QR-\ud800', account_id: accountId, amount_usd: 8 }),
      400,
      'invalid_request',
    );
    expect(await balance(accountId)).toBe(0);
  });

  it('credits a payment to a disabled account (the money arrived; the account stays disabled)', async () => {
    const { accountId } = await api.account(0);
    await api.database.pool.query(`update accounts set status = 'disabled' where id = $1`, [accountId]);
    expect((await notify({ reference: 'QR-disabled', account_id: accountId, amount_usd: 8 })).status).toBe(
      200,
    );
    expect(await balance(accountId)).toBe(8_000_000);
  });
});
