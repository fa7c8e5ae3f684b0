import { expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosList from './videos.list';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const createN = async (key: string, n: number) => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(api, 'POST', '/v1/videos', { key, json: videoBody() });
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
};
const list = async (key: string, qs = '') => {
  const res = await call(api, 'GET', `/v1/videos${qs}`, { key });
  return (await expectContract(res, videosList.contract, 200)) as {
    object: string;
    data: Array<{ id: string; status: string }>;
    has_more: boolean;
    last_id: string | null;
  };
};

describe('GET /v1/videos', () => {
  it('lists the account tasks newest first with keyset pages', async () => {
    const { key } = await api.account();
    const ids = await createN(key, 5);
    const newestFirst = [...ids].reverse();
    const p1 = await list(key, '?limit=2');
    expect(p1.object).toBe('list');
    expect(p1.data.map((t) => t.id)).toEqual(newestFirst.slice(0, 2));
    expect(p1.has_more).toBe(true);
    expect(p1.last_id).toBe(newestFirst[1]);
    const p2 = await list(key, `?limit=2&after=${p1.last_id}`);
    expect(p2.data.map((t) => t.id)).toEqual(newestFirst.slice(2, 4));
    const p3 = await list(key, `?limit=2&after=${p2.last_id}`);
    expect(p3.data.map((t) => t.id)).toEqual(newestFirst.slice(4));
    expect(p3.has_more).toBe(false);
  });

  it('filters by status, with completed as a synonym of succeeded', async () => {
    const { key } = await api.account();
    const [a, b] = await createN(key, 3);
    await api.database.pool.query(
      `update tasks set status = 'succeeded', video_url = 'https://x/v.mp4' where id = $1`,
      [a],
    );
    await api.database.pool.query(`update tasks set status = 'failed', error_code = 'x' where id = $1`, [b]);
    expect((await list(key, '?status=completed')).data.map((t) => t.id)).toEqual([a]);
    expect((await list(key, '?status=succeeded')).data.map((t) => t.id)).toEqual([a]);
    expect((await list(key, '?status=failed')).data.map((t) => t.id)).toEqual([b]);
    expect((await list(key, '?status=pending')).data).toHaveLength(1);
  });

  it("never shows another account's tasks", async () => {
    const mine = await api.account();
    const theirs = await api.account();
    await createN(theirs.key, 2);
    expect((await list(mine.key)).data).toEqual([]);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=abc', 'limit'],
    ['?after=nope', 'after'],
    ['?status=done', 'status'],
    ['?color=red', 'color'],
  ])('answers 400 naming the parameter for %s', async (qs, field) => {
    const { key } = await api.account();
    const err = await expectError(await call(api, 'GET', `/v1/videos${qs}`, { key }), 400, 'invalid_request');
    expect(err.message).toContain(field);
  });

  it('requires a key', async () => {
    await expectError(await call(api, 'GET', '/v1/videos'), 401, 'invalid_api_key');
  });
});
