import { expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosGet from './videos.get';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /v1/videos/:task_id', () => {
  it('returns the task object to its owner', async () => {
    const { key } = await api.account();
    const created = (await (await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).json()) as {
      id: string;
    };
    const res = await call(api, 'GET', `/v1/videos/${created.id}`, { key });
    expect(await expectContract(res, videosGet.contract, 200)).toMatchObject({
      id: created.id,
      task_id: created.id,
      status: 'pending',
      object: 'video',
      prompt: 'a cat walks across the frame',
    });
  });

  it("answers another account's task exactly like a task that does not exist", async () => {
    const owner = await api.account();
    const other = await api.account();
    const created = (await (
      await call(api, 'POST', '/v1/videos', { key: owner.key, json: videoBody() })
    ).json()) as {
      id: string;
    };
    const missingId = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const foreign = await call(api, 'GET', `/v1/videos/${created.id}`, { key: other.key });
    const missing = await call(api, 'GET', `/v1/videos/${missingId}`, { key: other.key });
    const a = await expectError(foreign, 404, 'not_found');
    const b = await expectError(missing, 404, 'not_found');
    expect(a.message.replace(created.id, 'ID')).toBe(b.message.replace(missingId, 'ID'));
    expect(a.type).toBe(b.type);
  });

  it('answers 404 for a malformed id', async () => {
    const { key } = await api.account();
    await expectError(await call(api, 'GET', '/v1/videos/not-a-task', { key }), 404, 'not_found');
  });

  it('requires a key', async () => {
    await expectError(
      await call(api, 'GET', '/v1/videos/task_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      401,
      'invalid_api_key',
    );
  });
});
