import { ensureAdminAccount, getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { defaultCatalog } from '@mediagate/shared/catalog';
import { failTask } from '@mediagate/shared/tasks';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import { contractsOf } from '../route';
import { routes } from '../routes';

let api: TestApi;
let admin: string;
let adminId: string;
beforeAll(async () => {
  api = await startTestApi({ TOPUP_BONUS_THRESHOLD_USD: 100, TOPUP_BONUS_PERCENT: 10 });
  adminId = await ensureAdminAccount(api.database.db, {
    email: 'audit-ops@example.test',
    password: 'operator-password',
  });
  const res = await call(api, 'POST', '/console/api/login', {
    json: { email: 'audit-ops@example.test', password: 'operator-password' },
  });
  admin = ((await res.json()) as { token: string }).token;
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

interface Entry {
  id: string;
  at: number;
  operator: { id: string; email: string };
  action: string;
  account_id: string | null;
  target_type: string;
  target_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
  request_id: string | null;
}

const adminCall = (method: string, path: string, json?: unknown, session = admin) =>
  consoleCall(api, method, `/admin/api${path}`, session, json);

/** The audit log as the admin API pages it (`query` without the leading ?). */
async function auditLog(
  query: string,
): Promise<{ data: Entry[]; has_more: boolean; next_cursor: string | null }> {
  const res = await adminCall('GET', `/audit-log?${query}`);
  return (await expectContract(res, contractFor('get /admin/api/audit-log'), 200)) as {
    data: Entry[];
    has_more: boolean;
    next_cursor: string | null;
  };
}
const auditRows = async (accountId: string) =>
  Number(
    (
      await api.database.pool.query<{ n: string }>(
        'select count(*) as n from audit_log where account_id = $1',
        [accountId],
      )
    ).rows[0]!.n,
  );

describe('audit log of operator actions', () => {
  it('refuses the log without a session (401) and to a non-admin (403)', async () => {
    await expectError(
      await consoleCall(api, 'GET', '/admin/api/audit-log', undefined),
      401,
      'invalid_session',
    );
    const user = await consoleAccount(api);
    await expectError(
      await adminCall('GET', '/audit-log', undefined, user.session),
      403,
      'permission_denied',
    );
  });

  it('records who changed what on an account, when, before and after, newest first', async () => {
    const a = await consoleAccount(api);
    const t0 = Math.floor(Date.now() / 1000);
    expect((await adminCall('POST', `/accounts/${a.accountId}/disable`)).status).toBe(200);
    expect((await adminCall('POST', `/accounts/${a.accountId}/enable`)).status).toBe(200);
    expect(
      (
        await adminCall('PATCH', `/accounts/${a.accountId}/limits`, {
          rpm_limit: 30,
          max_active_video_tasks: 2,
        })
      ).status,
    ).toBe(200);
    expect((await adminCall('PATCH', `/accounts/${a.accountId}/limits`, { rpm_limit: null })).status).toBe(
      200,
    );
    expect(
      (
        await adminCall('POST', `/accounts/${a.accountId}/topups`, {
          amount_cny: 500,
          reference: `bank-${a.accountId}`,
          note: 'wire of the 3rd',
        })
      ).status,
    ).toBe(201);
    // the same transfer again credits nothing, and records nothing
    expect(
      (
        await adminCall('POST', `/accounts/${a.accountId}/topups`, {
          amount_cny: 500,
          reference: `bank-${a.accountId}`,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await adminCall('POST', `/accounts/${a.accountId}/adjustments`, {
          amount_usd: -2.5,
          reason: 'duplicate charge',
        })
      ).status,
    ).toBe(201);

    const log = await auditLog(`account_id=${a.accountId}`);
    expect(log.data.map((e) => e.action)).toEqual([
      'account.adjustment',
      'account.topup',
      'account.limits',
      'account.limits',
      'account.enable',
      'account.disable',
    ]);
    for (const e of log.data) {
      expect(e).toMatchObject({
        operator: { id: adminId, email: 'audit-ops@example.test' },
        account_id: a.accountId,
        target_type: 'account',
        target_id: a.accountId,
      });
      expect(e.at).toBeGreaterThanOrEqual(t0 - 1);
      expect(e.request_id).toEqual(expect.any(String));
    }
    const [adjustment, topup, clearRpm, limits, enable, disable] = log.data;
    expect(disable).toMatchObject({ before: { status: 'active' }, after: { status: 'disabled' } });
    expect(enable).toMatchObject({ before: { status: 'disabled' }, after: { status: 'active' } });
    expect(limits).toMatchObject({
      before: { rpm_limit: null, max_active_video_tasks: null },
      after: { rpm_limit: 30, max_active_video_tasks: 2 },
    });
    expect(clearRpm).toMatchObject({
      before: { rpm_limit: 30, max_active_video_tasks: 2 },
      after: { rpm_limit: null, max_active_video_tasks: 2 },
    });
    expect(topup).toMatchObject({
      before: { balance_usd: 10 },
      after: {
        balance_usd: 120,
        amount_cny: 500,
        amount_usd: 100,
        bonus_usd: 10,
        reference: `bank-${a.accountId}`,
      },
      reason: 'wire of the 3rd',
    });
    expect(adjustment).toMatchObject({
      before: { balance_usd: 120 },
      after: { balance_usd: 117.5, amount_usd: -2.5 },
      reason: 'duplicate charge',
    });

    // pages by next_cursor, newest first, without gaps or repeats
    const first = await auditLog(`account_id=${a.accountId}&limit=4`);
    expect(first.has_more).toBe(true);
    const second = await auditLog(`account_id=${a.accountId}&limit=4&before=${first.next_cursor}`);
    expect([...first.data, ...second.data].map((e) => e.id)).toEqual(log.data.map((e) => e.id));
    expect(second.has_more).toBe(false);

    // the global list has them too; a filter by action narrows it
    const global = await auditLog('limit=200');
    expect(global.data.map((e) => e.id)).toEqual(expect.arrayContaining(log.data.map((e) => e.id)));
    const disables = await auditLog(`action=account.disable&target_id=${a.accountId}`);
    expect(disables.data.map((e) => e.id)).toEqual([disable!.id]);
    await expectError(await adminCall('GET', '/audit-log?action=account.delete'), 400, 'invalid_request');
    await expectError(await adminCall('GET', '/audit-log?before=abc'), 400, 'invalid_request');
  });

  it('records a task retry on the task and its account, and queue pauses fleet-wide', async () => {
    const user = await consoleAccount(api);
    const created = await call(api, 'POST', '/v1/videos', { key: user.key, json: videoBody() });
    const failedId = ((await created.json()) as { id: string }).id;
    await failTask(api.database.db, failedId, { code: 'InternalError', message: 'upstream broke' });
    const retried = (await (await adminCall('POST', `/tasks/${failedId}/retry`)).json()) as { id: string };
    // a repeated retry changes nothing and records nothing
    await adminCall('POST', `/tasks/${failedId}/retry`);
    const byTask = await auditLog(`target_id=${failedId}`);
    expect(byTask.data).toHaveLength(1);
    expect(byTask.data[0]).toMatchObject({
      action: 'task.retry',
      account_id: user.accountId,
      target_type: 'task',
      before: { status: 'failed', retried_as: null },
      after: { status: 'failed', retried_as: retried.id, retry_status: 'pending' },
    });
    expect((await auditLog(`account_id=${user.accountId}`)).data.map((e) => e.action)).toEqual([
      'task.retry',
    ]);

    expect((await adminCall('POST', '/queues/callbacks/pause')).status).toBe(200);
    expect((await adminCall('POST', '/queues/callbacks/resume')).status).toBe(200);
    const queue = await auditLog('target_id=callbacks&limit=2');
    expect(queue.data).toMatchObject([
      {
        action: 'queue.resume',
        account_id: null,
        target_type: 'queue',
        before: { paused: true },
        after: { paused: false },
      },
      {
        action: 'queue.pause',
        account_id: null,
        target_type: 'queue',
        before: { paused: false },
        after: { paused: true },
      },
    ]);
  });

  it('writes the record in the transaction of the change: one never commits without the other', async () => {
    const a = await consoleAccount(api);
    // a refused change records nothing
    await expectError(
      await adminCall('POST', `/accounts/${a.accountId}/adjustments`, {
        amount_usd: -1000,
        reason: 'too much',
      }),
      409,
      'conflict',
    );
    expect(await auditRows(a.accountId)).toBe(0);

    // a record that cannot be written undoes the change
    await api.database.pool.query(`
      create or replace function audit_test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'audit store unavailable'; end $$;
      create trigger audit_test_refuse before insert on audit_log for each row execute function audit_test_refuse();`);
    try {
      expect((await adminCall('POST', `/accounts/${a.accountId}/disable`)).status).toBe(500);
      expect((await adminCall('PATCH', `/accounts/${a.accountId}/limits`, { rpm_limit: 5 })).status).toBe(
        500,
      );
      expect(
        (
          await adminCall('POST', `/accounts/${a.accountId}/adjustments`, {
            amount_usd: 5,
            reason: 'goodwill',
          })
        ).status,
      ).toBe(500);
      expect(
        (
          await adminCall('POST', `/accounts/${a.accountId}/topups`, {
            amount_cny: 250,
            reference: `t-${a.accountId}`,
          })
        ).status,
      ).toBe(500);
      expect((await adminCall('POST', '/queues/video-tasks/pause')).status).toBe(500);
    } finally {
      await api.database.pool.query(
        'drop trigger audit_test_refuse on audit_log; drop function audit_test_refuse();',
      );
    }
    const after = (await getAccount(api.database.db, a.accountId))!;
    expect(after).toMatchObject({ status: 'active', rpmLimit: null, balanceMicroUsd: 10_000_000 });
    expect(await api.videoQueue.isPaused()).toBe(false);
    const payments = await api.database.pool.query('select 1 from payments where reference = $1', [
      `t-${a.accountId}`,
    ]);
    expect(payments.rowCount).toBe(0);
    expect(await auditRows(a.accountId)).toBe(0);
  });

  it('can be neither changed nor removed, by the API or by SQL', async () => {
    const a = await consoleAccount(api);
    await adminCall('POST', `/accounts/${a.accountId}/disable`);
    const [entry] = (await auditLog(`account_id=${a.accountId}`)).data;
    // the API offers reading only
    const auditRoutes = contractsOf(routes, { catalog: defaultCatalog() }).filter((c) =>
      c.path.includes('audit'),
    );
    expect(auditRoutes.map((c) => c.method)).toEqual(['get']);
    for (const method of ['PATCH', 'PUT', 'DELETE', 'POST']) {
      expect(
        (await adminCall(method, `/audit-log/${entry!.id}`, method === 'DELETE' ? undefined : {})).status,
      ).toBe(404);
    }
    // and the table refuses every rewrite, whoever asks
    for (const statement of [
      `update audit_log set after = '{"status":"active"}' where id = ${entry!.id}`,
      `delete from audit_log where id = ${entry!.id}`,
      'truncate audit_log',
    ]) {
      await expect(api.database.pool.query(statement)).rejects.toThrow(/append-only/);
    }
    expect((await auditLog(`account_id=${a.accountId}`)).data).toEqual([entry]);
  });
});
