import { failTask } from '@mediagate/shared/tasks';
import { listTaskDeliveries, type Resolver, recordDeliveryAttempt } from '@mediagate/shared/webhooks';
import { expectContract } from '../../test/contract';
import { call, expectError, IMG, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosCallbacksList from './videos.callbacks.list';
import * as videosCallbacksRedeliver from './videos.callbacks.redeliver';
import * as videosCreate from './videos.create';

const resolve: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
const HOOK = 'https://hooks.public.test/video';

let api: TestApi;
let key: string;
let other: string;
beforeAll(async () => {
  api = await startTestApi({ resolve });
  ({ key } = await api.account(10));
  ({ key: other } = await api.account(10));
});
afterAll(() => api.close());

/** A task created through the API with a callback URL, failed as the worker would fail it. */
async function endedTask(callback = true): Promise<string> {
  const metadata = callback ? { input: { img_url: IMG }, callback_url: HOOK } : { input: { img_url: IMG } };
  const res = await call(api, 'POST', '/v1/videos', { key, json: videoBody({ metadata }) });
  const { id } = (await expectContract(res, videosCreate.contract, 200)) as { id: string };
  await failTask(api.database.db, id, { code: 'DataInspectionFailed', message: 'refused' });
  return id;
}

describe('POST /v1/videos/{task_id}/cancel and callbacks', () => {
  it('hands the canceled task its video.failed delivery at once, without waiting for the reconciler', async () => {
    const metadata = { input: { img_url: IMG }, callback_url: HOOK };
    const created = await call(api, 'POST', '/v1/videos', { key, json: videoBody({ metadata }) });
    const { id } = (await created.json()) as { id: string };
    expect((await call(api, 'POST', `/v1/videos/${id}/cancel`, { key })).status).toBe(200);
    const deliveries = await listTaskDeliveries(api.database.db, id);
    expect(deliveries.map((d) => d.eventType)).toEqual(['video.failed']);
    expect(['waiting', 'active', 'delayed', 'prioritized']).toContain(
      await api.callbacksQueue.getJobState(deliveries[0]!.id),
    );
  });
});

describe('GET /v1/videos/{task_id}/callbacks', () => {
  it('lists the deliveries of the task with every attempt', async () => {
    const id = await endedTask();
    const [d] = await listTaskDeliveries(api.database.db, id);
    const attempt = {
      startedAt: new Date(),
      latencyMs: 42,
      statusCode: 503,
      error: 'HTTP 503',
      responseBody: 'busy',
    };
    await recordDeliveryAttempt(api.database.db, d!, attempt, { kind: 'retry', delayMs: 300_000 });
    const res = await call(api, 'GET', `/v1/videos/${id}/callbacks`, { key });
    const body = (await expectContract(res, videosCallbacksList.contract, 200)) as {
      object: string;
      data: Array<Record<string, unknown>>;
    };
    expect(body.object).toBe('list');
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({
      id: d!.id,
      object: 'video.callback',
      task_id: id,
      event_type: 'video.failed',
      url: HOOK,
      status: 'pending',
      attempt_count: 1,
      next_attempt_at: expect.any(Number),
      last_status_code: 503,
      last_error: 'HTTP 503',
      completed_at: null,
      attempts: [
        {
          attempt: 1,
          started_at: Math.floor(attempt.startedAt.getTime() / 1000),
          status_code: 503,
          latency_ms: 42,
          error: 'HTTP 503',
          response_body: 'busy',
        },
      ],
    });
  });

  it('answers an empty list for a task without callback_url', async () => {
    const id = await endedTask(false);
    const res = await call(api, 'GET', `/v1/videos/${id}/callbacks`, { key });
    expect(await res.json()).toEqual({ object: 'list', data: [] });
  });

  it('answers 404 for another account’s task and for a malformed id, 401 without a key', async () => {
    const id = await endedTask();
    await expectError(await call(api, 'GET', `/v1/videos/${id}/callbacks`, { key: other }), 404, 'not_found');
    await expectError(await call(api, 'GET', '/v1/videos/nope/callbacks', { key }), 404, 'not_found');
    await expectError(await call(api, 'GET', `/v1/videos/${id}/callbacks`), 401, 'invalid_api_key');
  });
});

describe('POST /v1/videos/{task_id}/callbacks/{delivery_id}/redeliver', () => {
  it('puts a failed delivery back to pending with a fresh schedule and enqueues it', async () => {
    const id = await endedTask();
    const [d] = await listTaskDeliveries(api.database.db, id);
    const attempt = {
      startedAt: new Date(),
      latencyMs: 5,
      statusCode: 410,
      error: 'HTTP 410',
      responseBody: '',
    };
    await recordDeliveryAttempt(api.database.db, d!, attempt, { kind: 'failed', reason: 'gone' });
    const res = await call(api, 'POST', `/v1/videos/${id}/callbacks/${d!.id}/redeliver`, { key });
    expect(await expectContract(res, videosCallbacksRedeliver.contract, 202)).toMatchObject({
      id: d!.id,
      status: 'pending',
      attempt_count: 1,
      completed_at: null,
    });
    expect(['waiting', 'active', 'delayed', 'prioritized']).toContain(
      await api.callbacksQueue.getJobState(d!.id),
    );
    // twice is fine: the same job, made due now
    expect((await call(api, 'POST', `/v1/videos/${id}/callbacks/${d!.id}/redeliver`, { key })).status).toBe(
      202,
    );
  });

  it('answers 404 for an unknown delivery, another task’s or another account’s, 401 without a key', async () => {
    const id = await endedTask();
    const second = await endedTask();
    const [d] = await listTaskDeliveries(api.database.db, id);
    const path = `/v1/videos/${id}/callbacks/${d!.id}/redeliver`;
    await expectError(await call(api, 'POST', path, { key: other }), 404, 'not_found');
    await expectError(
      await call(api, 'POST', `/v1/videos/${second}/callbacks/${d!.id}/redeliver`, { key }),
      404,
      'not_found',
    );
    await expectError(
      await call(api, 'POST', `/v1/videos/${id}/callbacks/msg_01ARZ3NDEKTSV4RRFFQ69G5FAV/redeliver`, { key }),
      404,
      'not_found',
    );
    await expectError(
      await call(api, 'POST', `/v1/videos/${id}/callbacks/x/redeliver`, { key }),
      404,
      'not_found',
    );
    await expectError(await call(api, 'POST', path), 401, 'invalid_api_key');
  });
});
