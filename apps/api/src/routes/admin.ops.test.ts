import { ensureAdminAccount, getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { getTask } from '@mediagate/shared/tasks';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';

const METRICS_TOKEN = 'metrics-token-for-tests';
let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await startTestApi({ METRICS_TOKEN: METRICS_TOKEN });
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

describe('operator surfaces', () => {
  it.each([
    ['GET', '/admin/api/tasks'],
    ['POST', '/admin/api/tasks/task_01ARZ3NDEKTSV4RRFFQ69G5FAV/retry'],
    ['GET', '/admin/api/queues'],
    ['POST', '/admin/api/queues/video-tasks/pause'],
    ['GET', '/admin/queues'],
    ['GET', '/admin/queues/api/queues'],
  ])('refuse %s %s without a session (401) and to a non-admin (403)', async (method, path) => {
    await expectError(await consoleCall(api, method, path, undefined), 401, 'invalid_session');
    const user = await consoleAccount(api);
    await expectError(
      await adminCall(method, path, method === 'GET' ? undefined : {}, user.session),
      403,
      'permission_denied',
    );
  });

  it('serves the queue dashboard to an admin', async () => {
    const page = await adminCall('GET', '/admin/queues');
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const queues = await adminCall('GET', '/admin/queues/api/queues');
    expect(queues.status).toBe(200);
    const body = (await queues.json()) as { queues: Array<{ name: string; description?: string }> };
    // every queue, each saying why its Completed list stays empty
    expect(body.queues.map((q) => q.name).sort()).toEqual(['callbacks', 'media-copy', 'video-tasks']);
    for (const q of body.queues) expect(q.description).toMatch(/Completed jobs are removed at once/);
    const depths = (await (await adminCall('GET', '/admin/api/queues')).json()) as {
      data: Array<{ name: string }>;
    };
    expect(depths.data.map((q) => q.name).sort()).toEqual(['callbacks', 'media-copy', 'video-tasks']);
  });

  it('finds tasks by status, model, account and age, newest first', async () => {
    const a = await consoleAccount(api);
    const b = await consoleAccount(api);
    const t1 = await createTask(a.key);
    const t2 = await createTask(a.key);
    const t3 = await createTask(b.key);
    await api.database.pool.query(`update tasks set status = 'failed', error_code = 'x' where id = $1`, [t1]);
    const list = async (qs: string) => {
      const res = await adminCall('GET', `/admin/api/tasks${qs}`);
      const page = (await expectContract(res, contractFor('get /admin/api/tasks'), 200)) as {
        data: Array<{ id: string; account_id: string }>;
      };
      return page.data.map((t) => t.id);
    };
    expect(await list(`?account_id=${a.accountId}`)).toEqual([t2, t1]);
    expect(await list(`?account_id=${a.accountId}&status=failed`)).toEqual([t1]);
    expect(await list(`?account_id=${b.accountId}&model=wan2.6-i2v-flash-5s-720p`)).toEqual([t3]);
    expect(await list(`?account_id=${b.accountId}&model=wan2.5-i2v-flash-5s-720p`)).toEqual([]);
    expect(await list(`?account_id=${a.accountId}&older_than_seconds=3600`)).toEqual([]);
    expect(await list(`?account_id=${a.accountId}&limit=1`)).toEqual([t2]);
    await expectError(await adminCall('GET', '/admin/api/tasks?status=done'), 400, 'invalid_request');
    await expectError(await adminCall('GET', '/admin/api/tasks?limit=0'), 400, 'invalid_request');
  });

  it.each([
    ['created_after', '8640000000001'],
    ['created_before', '9999999999999'],
    ['created_after', '253402300800'],
    ['older_than_seconds', '9999999999999'],
  ])('answers 400, not a 500, for a %s of %s seconds (past the last date)', async (param, value) => {
    const err = await expectError(
      await adminCall('GET', `/admin/api/tasks?${param}=${value}`),
      400,
      'invalid_request',
    );
    expect(err.param).toBe(param);
  });

  it('retries a failed task as a new charged task that records the original', async () => {
    const user = await consoleAccount(api);
    const failedId = await createTask(user.key);
    await api.database.pool.query(`update tasks set status = 'pending' where id = $1`, [failedId]);
    const { failTask } = await import('@mediagate/shared/tasks');
    await failTask(api.database.db, failedId, { code: 'InternalError', message: 'upstream broke' });
    const before = (await getAccount(api.database.db, user.accountId))!.balanceMicroUsd;
    const res = await adminCall('POST', `/admin/api/tasks/${failedId}/retry`);
    const retried = (await expectContract(res, contractFor('post /admin/api/tasks/:taskId/retry'), 200)) as {
      id: string;
      status: string;
      metadata: { retry_of: string };
    };
    expect(retried.id).not.toBe(failedId);
    expect(retried.status).toBe('pending');
    expect(retried.metadata.retry_of).toBe(failedId);
    expect((await getTask(api.database.db, failedId))?.status).toBe('failed');
    expect(before - (await getAccount(api.database.db, user.accountId))!.balanceMicroUsd).toBe(250_000);
    expect(await api.videoQueue.getJob(retried.id)).toBeTruthy();
    // only failed tasks can be retried
    await expectError(await adminCall('POST', `/admin/api/tasks/${retried.id}/retry`), 404, 'not_found');
    await expectError(await adminCall('POST', '/admin/api/tasks/nope/retry'), 404, 'not_found');
  });

  it('creates and charges exactly one task for concurrent retries of one failed task', async () => {
    const user = await consoleAccount(api);
    const failedId = await createTask(user.key);
    const { failTask } = await import('@mediagate/shared/tasks');
    await failTask(api.database.db, failedId, { code: 'InternalError', message: 'upstream broke' });
    const before = (await getAccount(api.database.db, user.accountId))!.balanceMicroUsd;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => adminCall('POST', `/admin/api/tasks/${failedId}/retry`)),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as { id: string }).id)));
    expect(ids.size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    const { rows } = await api.database.pool.query(
      `select count(*)::int as n from tasks where metadata->>'retry_of' = $1`,
      [failedId],
    );
    expect(rows[0].n).toBe(1);
    expect(before - (await getAccount(api.database.db, user.accountId))!.balanceMicroUsd).toBe(250_000);
    // a later retry of the same task answers the same one
    const again = await adminCall('POST', `/admin/api/tasks/${failedId}/retry`);
    expect(((await again.json()) as { id: string }).id).toBe([...ids][0]);
  });

  it('pauses and resumes a queue', async () => {
    const paused = await adminCall('POST', '/admin/api/queues/video-tasks/pause');
    expect(await expectContract(paused, contractFor('post /admin/api/queues/:name/pause'), 200)).toEqual({
      name: 'video-tasks',
      paused: true,
    });
    expect(await api.videoQueue.isPaused()).toBe(true);
    const listed = (await expectContract(
      await adminCall('GET', '/admin/api/queues'),
      contractFor('get /admin/api/queues'),
      200,
    )) as {
      data: Array<{ name: string; paused: boolean }>;
    };
    expect(listed.data.find((q) => q.name === 'video-tasks')?.paused).toBe(true);
    const resumed = await adminCall('POST', '/admin/api/queues/video-tasks/resume');
    expect(await expectContract(resumed, contractFor('post /admin/api/queues/:name/resume'), 200)).toEqual({
      name: 'video-tasks',
      paused: false,
    });
    await expectError(await adminCall('POST', '/admin/api/queues/nope/pause'), 404, 'not_found');
  });

  it('serves Prometheus metrics with bounded route labels', async () => {
    const { key } = await consoleAccount(api);
    await call(api, 'GET', '/v1/videos/task_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key });
    await call(api, 'GET', '/no/such/route/123');
    const res = await call(api, 'GET', '/metrics', { key: METRICS_TOKEN });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(
      /mediagate_http_request_duration_seconds_count\{service="api-test",method="GET",route="\/v1\/videos\/:taskId",status_code="404"/,
    );
    expect(text).toMatch(/route="unmatched"/);
    expect(text).not.toContain('/no/such/route/123');
    // queue depths are the fleet's, reported by a reconciler only: a sum over processes counts each once
    expect(text).not.toMatch(/^mediagate_queue_jobs\{/m);
  });
});
