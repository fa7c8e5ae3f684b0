import { ensureAdminAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { newTopUpOrderId } from '@mediagate/shared/ids';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await startTestApi();
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
  consoleCall(api, method, path, session, json);
const createTask = async (key: string) =>
  ((await (await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).json()) as { id: string }).id;
const UNKNOWN_TASK = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe("an operator's view of one customer", () => {
  it.each([
    ['/admin/api/accounts/acct_x/ledger'],
    ['/admin/api/accounts/acct_x/topups'],
    ['/admin/api/accounts/acct_x/keys'],
    [`/admin/api/tasks/${UNKNOWN_TASK}`],
    [`/admin/api/tasks/${UNKNOWN_TASK}/callbacks`],
  ])('refuses GET %s without a session (401) and to a customer (403)', async (path) => {
    await expectError(await consoleCall(api, 'GET', path, undefined), 401, 'invalid_session');
    const user = await consoleAccount(api);
    await expectError(await adminCall('GET', path, undefined, user.session), 403, 'permission_denied');
  });

  it("reads the account's ledger, top-ups and keys as the customer's own routes show them", async () => {
    const a = await consoleAccount(api, 10);
    const other = await consoleAccount(api, 3);
    await createTask(a.key);
    await expectContract(
      await adminCall('POST', `/admin/api/accounts/${a.accountId}/topups`, {
        amount_cny: 40,
        reference: `bank-${Date.now()}`,
      }),
      contractFor('post /admin/api/accounts/:id/topups'),
      201,
    );
    const ledger = (await expectContract(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/ledger`),
      contractFor('get /admin/api/accounts/:id/ledger'),
      200,
    )) as { data: Array<{ kind: string; amount_usd: number }> };
    const own = (await (await consoleCall(api, 'GET', '/console/api/ledger', a.session)).json()) as {
      data: unknown[];
    };
    expect(ledger.data).toEqual(own.data);
    expect(ledger.data.map((e) => e.kind)).toEqual(expect.arrayContaining(['grant', 'charge', 'topup']));
    const onlyTopups = (await (
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/ledger?kind=topup&limit=1`)
    ).json()) as { data: Array<{ kind: string }> };
    expect(onlyTopups.data.map((e) => e.kind)).toEqual(['topup']);

    const topups = (await expectContract(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/topups`),
      contractFor('get /admin/api/accounts/:id/topups'),
      200,
    )) as { data: unknown[] };
    expect(topups.data).toEqual([]); // bank transfers are ledger entries; QR orders are listed here

    const keys = (await expectContract(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/keys`),
      contractFor('get /admin/api/accounts/:id/keys'),
      200,
    )) as { data: Array<{ id: string; key?: string }> };
    expect(keys.data.map((k) => k.id)).toEqual([a.keyId]);
    expect(JSON.stringify(keys.data)).not.toContain(a.key); // never the secret
    const otherKeys = (await (
      await adminCall('GET', `/admin/api/accounts/${other.accountId}/keys`)
    ).json()) as {
      data: Array<{ id: string }>;
    };
    expect(otherKeys.data.map((k) => k.id)).toEqual([other.keyId]);
  });

  it("finds one of the account's top-up orders by id, past the first page, and no other account's", async () => {
    const a = await consoleAccount(api);
    const b = await consoleAccount(api);
    const order = (accountId: string, amountFen: number) => ({ id: newTopUpOrderId(), accountId, amountFen });
    // ids are ULIDs, so the first inserted is the oldest: the last of the list
    const mine = [order(a.accountId, 3500), order(a.accountId, 5000), order(a.accountId, 7000)];
    const theirs = order(b.accountId, 1000);
    for (const o of [...mine, theirs])
      await api.database.pool.query(
        `insert into topup_orders (id, account_id, provider, status, amount_fen, credit_micro_usd, expires_at)
         values ($1, $2, 'alipay', 'expired', $3::bigint, $3::bigint * 2000, now())`,
        [o.id, o.accountId, o.amountFen],
      );
    const list = (await expectContract(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/topups?limit=1`),
      contractFor('get /admin/api/accounts/:id/topups'),
      200,
    )) as { data: Array<{ id: string }>; has_more: boolean };
    expect(list.data.map((o) => o.id)).toEqual([mine[2]!.id]);
    expect(list.has_more).toBe(true);

    const found = (await expectContract(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/topups?limit=1&order=${mine[0]!.id}`),
      contractFor('get /admin/api/accounts/:id/topups'),
      200,
    )) as { data: Array<{ id: string; amount_cny: number; status: string }>; has_more: boolean; next_cursor: null };
    expect(found).toMatchObject({ has_more: false, next_cursor: null });
    expect(found.data.map((o) => [o.id, o.amount_cny, o.status])).toEqual([[mine[0]!.id, 35, 'expired']]);

    // another account's order is not this account's: an empty list, nothing of it shown
    const other = (await (
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/topups?order=${theirs.id}`)
    ).json()) as { data: unknown[] };
    expect(other.data).toEqual([]);
    await expectError(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/topups?order=alipay:${theirs.id}`),
      400,
      'invalid_request',
    );
    // the customer's own route has no such filter to reach past its session's account
    const session = await consoleCall(api, 'GET', `/console/api/topups?order=${theirs.id}`, a.session);
    const own = ((await session.json()) as { data: Array<{ id: string }> }).data.map((o) => o.id);
    expect(own).not.toContain(theirs.id);
  });

  it('answers 404 for an unknown account and bad paging in the error shape', async () => {
    for (const path of ['ledger', 'topups', 'keys'])
      await expectError(await adminCall('GET', `/admin/api/accounts/acct_nobody/${path}`), 404, 'not_found');
    const a = await consoleAccount(api);
    await expectError(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/ledger?limit=0`),
      400,
      'invalid_request',
    );
    await expectError(
      await adminCall('GET', `/admin/api/accounts/${a.accountId}/ledger?kind=gift`),
      400,
      'invalid_request',
    );
  });

  it('names accounts by e-mail in task lists, reads one task with its callbacks, and 404s the rest', async () => {
    const a = await consoleAccount(api);
    const id = await createTask(a.key);
    const list = (await (await adminCall('GET', `/admin/api/tasks?account_id=${a.accountId}`)).json()) as {
      data: Array<{ id: string; account_email: string | null }>;
    };
    expect(list.data).toEqual([expect.objectContaining({ id, account_email: a.email })]);
    const task = (await expectContract(
      await adminCall('GET', `/admin/api/tasks/${id}`),
      contractFor('get /admin/api/tasks/:taskId'),
      200,
    )) as { id: string; account_id: string; account_email: string };
    expect(task).toMatchObject({ id, account_id: a.accountId, account_email: a.email });
    const callbacks = (await expectContract(
      await adminCall('GET', `/admin/api/tasks/${id}/callbacks`),
      contractFor('get /admin/api/tasks/:taskId/callbacks'),
      200,
    )) as { data: unknown[] };
    expect(callbacks.data).toEqual([]);
    await expectError(await adminCall('GET', `/admin/api/tasks/${UNKNOWN_TASK}`), 404, 'not_found');
    await expectError(await adminCall('GET', '/admin/api/tasks/not-a-task'), 404, 'not_found');
    await expectError(await adminCall('GET', `/admin/api/tasks/${UNKNOWN_TASK}/callbacks`), 404, 'not_found');
  });

  it('names the account of an audit entry by its e-mail', async () => {
    const a = await consoleAccount(api);
    await adminCall('PATCH', `/admin/api/accounts/${a.accountId}/limits`, { rpm_limit: 5 });
    const log = (await (await adminCall('GET', `/admin/api/audit-log?account_id=${a.accountId}`)).json()) as {
      data: Array<{ account_id: string; account_email: string | null }>;
    };
    expect(log.data[0]).toMatchObject({ account_id: a.accountId, account_email: a.email });
  });
});
