import { ensureAdminAccount } from '@mediagate/shared/accounts';
import { failTask } from '@mediagate/shared/tasks';
import { holdDelivery, recordEndpointFailure } from '@mediagate/shared/webhooks';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, IMG, startTestApi, type TestApi, videoBody } from '../../test/harness';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await startTestApi();
  await ensureAdminAccount(api.database.db, {
    email: 'hooks-ops@example.test',
    password: 'operator-password',
  });
  const res = await call(api, 'POST', '/console/api/login', {
    json: { email: 'hooks-ops@example.test', password: 'operator-password' },
  });
  admin = ((await res.json()) as { token: string }).token;
});
afterAll(() => api.close());

const DAY = 86_400_000;

/** An account with one endpoint disabled by the rule (two failures five days apart) and one delivery held for it. */
async function disabledEndpoint() {
  const user = await consoleAccount(api);
  const created = await call(api, 'POST', '/v1/videos', {
    key: user.key,
    json: videoBody({
      metadata: { input: { img_url: IMG }, callback_url: 'https://hooks.example.com/mg?task=9' },
    }),
  });
  expect(created.status).toBeLessThan(300);
  const taskId = ((await created.json()) as { id: string }).id;
  await failTask(api.database.db, taskId, { code: 'InternalError', message: 'upstream broke' });
  const { rows } = await api.database.pool.query('select id from callback_deliveries where task_id = $1', [
    taskId,
  ]);
  const deliveryId = rows[0].id as string;
  const t0 = new Date(Date.now() - 6 * DAY);
  const args = {
    accountId: user.accountId,
    url: 'https://Hooks.example.com/mg?task=1',
    disableAfterMs: 5 * DAY,
  };
  await recordEndpointFailure(api.database.db, { ...args, error: 'HTTP 502', now: t0 });
  const out = await recordEndpointFailure(api.database.db, { ...args, error: 'HTTP 503', now: new Date() });
  expect(out?.disabledNow).toBe(true);
  expect(await holdDelivery(api.database.db, deliveryId, out!.endpoint.id)).toBe(true);
  return { user, endpoint: out!.endpoint, deliveryId };
}

describe('failing webhook endpoints in the API', () => {
  it('shows the owner why an endpoint is disabled and what waits for it; enabling sends it', async () => {
    const { user, endpoint, deliveryId } = await disabledEndpoint();
    const list = (await expectContract(
      await call(api, 'GET', '/v1/webhooks/endpoints', { key: user.key }),
      contractFor('get /v1/webhooks/endpoints'),
      200,
    )) as { data: Array<Record<string, unknown>> };
    expect(list.data).toEqual([
      expect.objectContaining({
        id: endpoint.id,
        url: 'https://hooks.example.com/mg',
        status: 'disabled',
        failing: true,
        last_error: 'HTTP 503',
        held_deliveries: 1,
        disabled_at: expect.any(Number),
        disabled_reason: expect.stringMatching(
          /^Every delivery failed for good since .*; the last: HTTP 503$/,
        ),
      }),
    ]);
    // the console shows the same to the signed-in owner
    const inConsole = (await (
      await consoleCall(api, 'GET', '/console/api/webhooks/endpoints', user.session)
    ).json()) as {
      data: unknown[];
    };
    expect(inConsole.data).toEqual(list.data);
    // another account sees none of it, and cannot enable it
    const other = await consoleAccount(api);
    expect(
      ((await (await call(api, 'GET', '/v1/webhooks/endpoints', { key: other.key })).json()) as { data: [] })
        .data,
    ).toEqual([]);
    await expectError(
      await call(api, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/enable`, { key: other.key }),
      404,
      'not_found',
    );
    await expectError(
      await call(api, 'POST', '/v1/webhooks/endpoints/nope/enable', { key: user.key }),
      404,
      'not_found',
    );

    const enabled = (await expectContract(
      await consoleCall(api, 'POST', `/console/api/webhooks/endpoints/${endpoint.id}/enable`, user.session),
      contractFor('post /console/api/webhooks/endpoints/:endpointId/enable'),
      200,
    )) as { endpoint: Record<string, unknown>; redelivered: number };
    expect(enabled).toMatchObject({
      redelivered: 1,
      endpoint: { status: 'enabled', failing: false, disabled_reason: null },
    });
    const d = await api.database.pool.query(
      'select status, held_for from callback_deliveries where id = $1',
      [deliveryId],
    );
    expect(d.rows[0]).toEqual({ status: 'pending', held_for: null });
    expect(await api.callbacksQueue.getJobState(deliveryId)).toMatch(/waiting|prioritized|active|delayed/);
    // enabling again changes nothing
    const again = (await (
      await call(api, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/enable`, { key: user.key })
    ).json()) as { redelivered: number };
    expect(again.redelivered).toBe(0);
  });

  it('lists disabled endpoints with their accounts for operators, who can enable one (audited)', async () => {
    const { user, endpoint } = await disabledEndpoint();
    await expectError(
      await consoleCall(api, 'GET', '/admin/api/webhook-endpoints', user.session),
      403,
      'permission_denied',
    );
    const fleet = (await expectContract(
      await consoleCall(api, 'GET', '/admin/api/webhook-endpoints?limit=200', admin),
      contractFor('get /admin/api/webhook-endpoints'),
      200,
    )) as { data: Array<{ id: string; account_id: string; account_email: string; status: string }> };
    expect(fleet.data.find((e) => e.id === endpoint.id)).toMatchObject({
      account_id: user.accountId,
      account_email: user.email,
      status: 'disabled',
    });
    const one = (await (
      await consoleCall(api, 'GET', `/admin/api/webhook-endpoints?account_id=${user.accountId}`, admin)
    ).json()) as { data: Array<{ id: string }> };
    expect(one.data.map((e) => e.id)).toEqual([endpoint.id]);

    const res = await consoleCall(
      api,
      'POST',
      `/admin/api/accounts/${user.accountId}/webhook-endpoints/${endpoint.id}/enable`,
      admin,
    );
    expect(
      await expectContract(
        res,
        contractFor('post /admin/api/accounts/:id/webhook-endpoints/:endpointId/enable'),
        200,
      ),
    ).toMatchObject({
      redelivered: 1,
    });
    const audit = (await (
      await consoleCall(api, 'GET', `/admin/api/audit-log?target_id=${endpoint.id}`, admin)
    ).json()) as { data: Array<Record<string, unknown>> };
    expect(audit.data).toEqual([
      expect.objectContaining({
        action: 'webhook_endpoint.enable',
        account_id: user.accountId,
        target_type: 'webhook_endpoint',
        before: { url: 'https://hooks.example.com/mg', status: 'disabled' },
        after: { url: 'https://hooks.example.com/mg', status: 'enabled', redelivered: 1 },
      }),
    ]);
    const after = (await (
      await consoleCall(api, 'GET', '/admin/api/webhook-endpoints?limit=200', admin)
    ).json()) as {
      data: Array<{ id: string }>;
    };
    expect(after.data.map((e) => e.id)).not.toContain(endpoint.id);
  });
});
