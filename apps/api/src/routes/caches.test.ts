import type { AddressInfo } from 'node:net';
import { revokeApiKey } from '@mediagate/shared/accounts';
import { LruCache } from '@mediagate/shared/lru';
import { waitFor } from '@mediagate/shared/testing';
import { call, startTestApi, type TestApi, videoBody } from '../../test/harness';
import { buildApp } from '../app';

let api: TestApi;
let cached: { url: string; close: () => Promise<void> };
beforeAll(async () => {
  api = await startTestApi();
  // the same app as the server builds it: with the key and finished-task caches
  const app = buildApp({
    ...api.deps,
    authCache: new LruCache(100, 300),
    taskCache: new LruCache(100),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  cached = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r(undefined))),
  };
});
afterAll(async () => {
  await cached?.close();
  await api?.close();
});

const get = (key: string, id: string) => call(cached, 'GET', `/v1/videos/${id}`, { key });

describe('API caches', () => {
  it('serves a finished task from memory, only to its owner, and unfinished ones for a bounded time', async () => {
    const owner = await api.account();
    const other = await api.account();
    const id = (
      (await (await call(api, 'POST', '/v1/videos', { key: owner.key, json: videoBody() })).json()) as {
        id: string;
      }
    ).id;
    expect(((await (await get(owner.key, id)).json()) as { status: string }).status).toBe('pending');
    await api.database.pool.query(`update tasks set status = 'processing' where id = $1`, [id]);
    // an unfinished task's answer is kept at most TASK_RUNNING_CACHE_MS when its move is not published
    // (the workers publish theirs, which replace it at once: see videos.events.test.ts)
    const movedAt = Date.now();
    await waitFor(
      async () => ((await (await get(owner.key, id)).json()) as { status: string }).status === 'processing',
      { timeoutMs: 5_000, what: 'the unfinished task to be read again' },
    );
    expect(Date.now() - movedAt).toBeLessThan(api.deps.config.TASK_RUNNING_CACHE_MS + 1_000);
    await api.database.pool.query(
      `update tasks set status = 'succeeded', video_url = 'https://cdn.example.com/a.mp4', progress = 100 where id = $1`,
      [id],
    );
    const first = await waitFor(
      async () => {
        const body = (await (await get(owner.key, id)).json()) as { video_url?: string };
        return body.video_url ? body : null;
      },
      { timeoutMs: 5_000, what: 'the finished task to be read' },
    );
    expect(first.video_url).toBe('https://cdn.example.com/a.mp4');
    // terminal tasks never change: a changed row is not read again
    await api.database.pool.query(
      `update tasks set video_url = 'https://changed.example.com/b.mp4' where id = $1`,
      [id],
    );
    const second = await get(owner.key, id);
    expect(second.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await second.json()) as { video_url: string }).video_url).toBe('https://cdn.example.com/a.mp4');
    expect((await get(other.key, id)).status).toBe(404);
  });

  it('looks a key up once for all of its requests that find it missing from the cache', async () => {
    const { key } = await api.account();
    // a cache whose entries outlive the test: a second lookup can only be a request that missed
    const server = buildApp({ ...api.deps, authCache: new LruCache(100, 60_000) }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const app = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    let lookups = 0;
    const query = api.database.pool.query.bind(api.database.pool);
    const spy = jest.spyOn(api.database.pool, 'query').mockImplementation(((...args: unknown[]) => {
      if (/from "api_keys"/i.test(String((args[0] as { text?: string })?.text ?? args[0]))) lookups += 1;
      return (query as (...a: unknown[]) => unknown)(...args);
    }) as never);
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => call(app, 'GET', '/v1/videos', { key })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    } finally {
      spy.mockRestore();
      await new Promise((r) => server.close(() => r(undefined)));
    }
    expect(lookups).toBe(1);
  });

  it('refuses a revoked key once its cache entry expires', async () => {
    const { key, keyId } = await api.account();
    expect((await call(cached, 'GET', '/v1/videos', { key })).status).toBe(200);
    await revokeApiKey(api.database.db, keyId);
    const revokedAt = Date.now();
    await waitFor(async () => (await call(cached, 'GET', '/v1/videos', { key })).status === 401, {
      timeoutMs: 5_000,
      what: 'the revoked key to be refused',
    });
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
  });
});
