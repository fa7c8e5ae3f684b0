import { ensureAdminAccount, getAccount } from '@mediagate/shared/accounts';
import { bankTransferReference, findLedgerMismatches } from '@mediagate/shared/billing';
import { consoleAccount, consoleCall } from '../../test/console';
import { expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';
import { loadApiConfig } from '../config';
import * as adminTransfers from './admin.transfers';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await startTestApi({
    BANK_TRANSFER_BENEFICIARY: 'Mediagate Ltd',
    BANK_TRANSFER_BANK: 'Example Bank',
  });
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

const reference = async (session: string): Promise<string> => {
  const res = await consoleCall(api, 'GET', '/console/api/topups/options', session);
  const body = (await res.json()) as { bank_transfer: Record<string, string | null> };
  expect(body.bank_transfer).toMatchObject({
    beneficiary: 'Mediagate Ltd',
    bank: 'Example Bank',
    account_number: null,
  });
  return body.bank_transfer.reference!;
};
const balance = async (id: string) => (await getAccount(api.database.db, id))!.balanceMicroUsd;

describe('bank transfers by reference', () => {
  it('finds the account from the memo reference and credits the transfer when the reference matches', async () => {
    const user = await consoleAccount(api, 0);
    const ref = await reference(user.session);
    // as typed from a memo: lower case, with a dash
    const memo = `${ref.slice(0, 6).toLowerCase()}-${ref.slice(6)}`;
    const found = await consoleCall(api, 'GET', `/admin/api/transfer-references/${memo}`, admin);
    expect(await expectContract(found, adminTransfers.contract, 200)).toMatchObject({
      reference: ref,
      account: { id: user.accountId },
    });
    const credited = await consoleCall(api, 'POST', `/admin/api/accounts/${user.accountId}/topups`, admin, {
      amount_cny: 50,
      reference: 'BT-REF-1',
      transfer_reference: memo,
    });
    expect(credited.status).toBe(201);
    expect(await balance(user.accountId)).toBe(10_000_000);
  });

  it("refuses another account's reference (400) and an unknown one (404), crediting nothing", async () => {
    const user = await consoleAccount(api, 0);
    const other = await consoleAccount(api, 0);
    const theirs = await reference(other.session);
    const err = await expectError(
      await consoleCall(api, 'POST', `/admin/api/accounts/${user.accountId}/topups`, admin, {
        amount_cny: 50,
        reference: 'BT-REF-2',
        transfer_reference: theirs,
      }),
      400,
      'invalid_request',
    );
    expect(err.param).toBe('transfer_reference');
    await expectError(
      await consoleCall(api, 'GET', '/admin/api/transfer-references/MG0000000000', admin),
      404,
      'not_found',
    );
    expect(await balance(user.accountId)).toBe(0);
  });

  it('finds an account whose owner never opened the top-up page: the reference is stored with the account, as the code computes it', async () => {
    const user = await consoleAccount(api, 0);
    const ref = bankTransferReference(user.accountId);
    const found = await consoleCall(api, 'GET', `/admin/api/transfer-references/${ref}`, admin);
    expect(await expectContract(found, adminTransfers.contract, 200)).toMatchObject({
      reference: ref,
      account: { id: user.accountId },
    });
    // the database's function and the code agree on any account id
    const ids = Array.from({ length: 200 }, (_, i) => `acct_${i}_${Math.random().toString(36).slice(2)}`);
    const { rows } = await api.database.pool.query(
      'select id, bank_transfer_reference(id) as reference from unnest($1::text[]) as id',
      [ids],
    );
    expect(rows).toEqual(ids.map((id) => ({ id, reference: bankTransferReference(id) })));
  });

  it('is for operators only', async () => {
    const user = await consoleAccount(api, 0);
    const ref = await reference(user.session);
    await expectError(
      await consoleCall(api, 'GET', `/admin/api/transfer-references/${ref}`, user.session),
      403,
      'permission_denied',
    );
    await expectError(
      await consoleCall(api, 'GET', `/admin/api/transfer-references/${ref}`, undefined),
      401,
      'invalid_session',
    );
  });
});

describe('the payments contact in the top-up options', () => {
  it('is null when unset, and what PAYMENTS_CONTACT says when set', async () => {
    const user = await consoleAccount(api, 0);
    const options = async () =>
      (
        (await (await consoleCall(api, 'GET', '/console/api/topups/options', user.session)).json()) as {
          bank_transfer: Record<string, string | null>;
        }
      ).bank_transfer;
    expect((await options()).contact).toBeNull();
    api.deps.config.PAYMENTS_CONTACT = 'payments@example.test';
    try {
      expect(await options()).toMatchObject({ contact: 'payments@example.test', account_number: null });
    } finally {
      api.deps.config.PAYMENTS_CONTACT = undefined;
    }
  });

  it('must be an e-mail address or an http(s) URL (a startup error otherwise)', () => {
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: 'postgres://x@127.0.0.1/x',
      REDIS_URL: 'redis://127.0.0.1',
    };
    expect(loadApiConfig({ ...env, PAYMENTS_CONTACT: 'pay@example.com' }).PAYMENTS_CONTACT).toBe(
      'pay@example.com',
    );
    expect(loadApiConfig({ ...env, PAYMENTS_CONTACT: 'https://example.com/help' }).PAYMENTS_CONTACT).toBe(
      'https://example.com/help',
    );
    expect(loadApiConfig({ ...env, PAYMENTS_CONTACT: '  ' }).PAYMENTS_CONTACT).toBeUndefined();
    expect(() => loadApiConfig({ ...env, PAYMENTS_CONTACT: 'call Bob' })).toThrow(/PAYMENTS_CONTACT/);
  });
});
