import type { AddressInfo } from 'node:net';
import type { Principal } from '@mediagate/shared/accounts';
import { LruCache } from '@mediagate/shared/lru';
import { createRedis } from '@mediagate/shared/queue';
import { testServiceUrls, waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../test/console';
import { call, startTestApi, type TestApi } from '../test/harness';
import { buildApp } from './app';
import { listenForKeyChanges } from './key-revocations';

/**
 * Two API replicas over the same Postgres and Redis, each with its own key cache and its own
 * subscription, as the server builds them. The cache TTL is a minute, so only the announcement
 * can make a replica refuse a key at once.
 */
let api: TestApi;
const replicas: Array<{ url: string; close: () => Promise<void> }> = [];
let admin: string;
beforeAll(async () => {
  api = await startTestApi();
  const { redisUrl } = await testServiceUrls();
  for (let i = 0; i < 2; i++) {
    const authCache = new LruCache<string, Principal>(1000, 60_000);
    const stop = listenForKeyChanges({
      subscriber: createRedis(redisUrl, 'producer'),
      queuePrefix: api.prefix,
      cache: authCache,
      logger: api.deps.logger,
    });
    const server = buildApp({ ...api.deps, authCache }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    replicas.push({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: async () => {
        await stop();
        await new Promise((r) => server.close(() => r(undefined)));
      },
    });
  }
  const { ensureAdminAccount } = await import('@mediagate/shared/accounts');
  await ensureAdminAccount(api.database.db, { email: 'ops@example.test', password: 'operator-password' });
  const res = await call(api, 'POST', '/console/api/login', {
    json: { email: 'ops@example.test', password: 'operator-password' },
  });
  admin = ((await res.json()) as { token: string }).token;
});
afterAll(async () => {
  for (const r of replicas) await r.close();
  await api?.close();
});

const [a, b] = [0, 1];
const list = (replica: number, key: string) => call(replicas[replica]!, 'GET', '/v1/videos', { key });
/**
 * The answer `replica` gives the key, once it is `status`: the announcement reaches the other
 * replicas over Redis pub/sub within milliseconds, not inside the request that made the change.
 * The bound (1 s) is far below the cache TTL of these replicas (60 s), so only the announcement
 * can meet it.
 */
const soon = (replica: number, key: string, status: number) =>
  waitFor(async () => ((await list(replica, key)).status === status ? status : null), {
    what: `replica ${replica} to answer ${status}`,
    timeoutMs: 1_000,
    intervalMs: 10,
  });
/** both replicas have the key cached (and answer 200) */
const warm = async (key: string) => {
  for (let i = 0; i < 3; i++) {
    expect((await list(a, key)).status).toBe(200);
    expect((await list(b, key)).status).toBe(200);
  }
};

describe('key revocation reaches every replica at once', () => {
  it('refuses a deleted key on the other replica as soon as the announcement arrives', async () => {
    const user = await consoleAccount(api);
    await warm(user.key);
    const res = await consoleCall(replicas[a]!, 'DELETE', `/console/api/tokens/${user.keyId}`, user.session);
    expect(res.status).toBe(200);
    expect(await soon(b, user.key, 401)).toBe(401);
    expect((await list(a, user.key)).status).toBe(401);
  });

  it('refuses a disabled key on the other replica at once, and takes it back when enabled', async () => {
    const user = await consoleAccount(api);
    await warm(user.key);
    const off = await consoleCall(replicas[b]!, 'PATCH', `/console/api/tokens/${user.keyId}`, user.session, {
      status: 'disabled',
    });
    expect(off.status).toBe(200);
    expect(await soon(a, user.key, 401)).toBe(401);
    // a charged call on the other replica is refused too
    const charged = await call(replicas[a]!, 'POST', '/v1/images/generations', {
      key: user.key,
      json: { model: 'seedream-4.0', prompt: 'a lighthouse' },
    });
    expect(charged.status).toBe(401);
    await consoleCall(replicas[b]!, 'PATCH', `/console/api/tokens/${user.keyId}`, user.session, {
      status: 'active',
    });
    expect(await soon(a, user.key, 200)).toBe(200);
  });

  it('refuses every key of an account an operator disabled, on every replica', async () => {
    const user = await consoleAccount(api);
    await warm(user.key);
    const res = await consoleCall(
      replicas[a]!,
      'POST',
      `/admin/api/accounts/${user.accountId}/disable`,
      admin,
    );
    expect(res.status).toBe(200);
    expect(await soon(b, user.key, 401)).toBe(401);
    expect((await list(a, user.key)).status).toBe(401);
  });

  it('applies a new IP allow-list on the other replica at once', async () => {
    const user = await consoleAccount(api);
    await warm(user.key);
    await consoleCall(replicas[a]!, 'PATCH', `/console/api/tokens/${user.keyId}`, user.session, {
      allowed_ips: ['203.0.113.0/24'],
    });
    expect(await soon(b, user.key, 403)).toBe(403);
  });

  it('without an announcement (Redis away), a replica refuses the key once its entry expires', async () => {
    const { revokeApiKey } = await import('@mediagate/shared/accounts');
    const authCache = new LruCache<string, Principal>(100, 300);
    const server = buildApp({ ...api.deps, authCache }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const user = await consoleAccount(api);
      expect((await call({ url }, 'GET', '/v1/videos', { key: user.key })).status).toBe(200);
      await revokeApiKey(api.database.db, user.keyId);
      const revokedAt = Date.now();
      const { waitFor } = await import('@mediagate/shared/testing');
      await waitFor(
        async () => (await call({ url }, 'GET', '/v1/videos', { key: user.key })).status === 401,
        {
          timeoutMs: 5_000,
          what: 'the revoked key to be refused',
        },
      );
      expect(Date.now() - revokedAt).toBeLessThan(2_000);
    } finally {
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });
});
