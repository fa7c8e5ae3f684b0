import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

interface Token {
  id: string;
  name: string;
  key?: string;
  status: string;
  display_prefix: string;
  used_usd: number;
  quota_usd: number | null;
  last_used_at: number | null;
}

const createToken = async (session: string, body: Record<string, unknown>): Promise<Token> => {
  const res = await consoleCall(api, 'POST', '/console/api/tokens', session, body);
  return (await expectContract(res, contractFor('post /console/api/tokens'), 201)) as Token;
};
const listTokens = async (session: string): Promise<Token[]> =>
  (
    (await expectContract(
      await consoleCall(api, 'GET', '/console/api/tokens', session),
      contractFor('get /console/api/tokens'),
      200,
    )) as { data: Token[] }
  ).data;
const videos = (key: string, body = videoBody()) => call(api, 'POST', '/v1/videos', { key, json: body });

describe('token management', () => {
  it('creates a token whose key is shown once, lists it with its limits, renames it', async () => {
    const { session } = await consoleAccount(api);
    const created = await createToken(session, {
      name: 'ci',
      quota_usd: 1.5,
      allowed_models: ['wan2.6-i2v-flash-5s-720p'],
      allowed_ips: ['127.0.0.1/32', '10.0.0.0/8'],
      expires_at: Math.floor(Date.now() / 1000) + 3600,
    });
    expect(created.key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(created).toMatchObject({
      name: 'ci',
      status: 'active',
      quota_usd: 1.5,
      used_usd: 0,
      last_used_at: null,
    });
    expect(created.display_prefix).toBe(`${created.key!.slice(0, 7)}...${created.key!.slice(-4)}`);

    const listed = await listTokens(session);
    expect(listed.map((t) => t.name)).toEqual(['default', 'ci']);
    expect(JSON.stringify(listed)).not.toContain(created.key!);
    expect(listed[1]).toMatchObject({
      allowed_models: ['wan2.6-i2v-flash-5s-720p'],
      allowed_ips: ['127.0.0.1/32', '10.0.0.0/8'],
    });

    const renamed = await consoleCall(api, 'PATCH', `/console/api/tokens/${created.id}`, session, {
      name: 'ci-2',
    });
    expect(await expectContract(renamed, contractFor('patch /console/api/tokens/:id'), 200)).toMatchObject({
      name: 'ci-2',
    });
    expect((await videos(created.key!)).status).toBe(200);
    const after = (await listTokens(session)).find((t) => t.id === created.id)!;
    expect(after.used_usd).toBe(0.25);
    expect(after.last_used_at).toEqual(expect.any(Number));
  });

  it('disables (401), enables again, and deletes (401, gone from the list) a key', async () => {
    const { session } = await consoleAccount(api);
    const t = await createToken(session, { name: 'temp' });
    expect((await call(api, 'GET', '/v1/videos', { key: t.key })).status).toBe(200);
    await consoleCall(api, 'PATCH', `/console/api/tokens/${t.id}`, session, { status: 'disabled' });
    await expectError(await call(api, 'GET', '/v1/videos', { key: t.key }), 401, 'invalid_api_key');
    expect((await listTokens(session)).find((x) => x.id === t.id)?.status).toBe('disabled');
    await consoleCall(api, 'PATCH', `/console/api/tokens/${t.id}`, session, { status: 'active' });
    expect((await call(api, 'GET', '/v1/videos', { key: t.key })).status).toBe(200);

    const del = await consoleCall(api, 'DELETE', `/console/api/tokens/${t.id}`, session);
    expect(await expectContract(del, contractFor('delete /console/api/tokens/:id'), 200)).toEqual({
      object: 'token',
      id: t.id,
      deleted: true,
    });
    await expectError(await call(api, 'GET', '/v1/videos', { key: t.key }), 401, 'invalid_api_key');
    expect((await listTokens(session)).map((x) => x.id)).not.toContain(t.id);
    await expectError(
      await consoleCall(api, 'DELETE', `/console/api/tokens/${t.id}`, session),
      404,
      'not_found',
    );
    await expectError(
      await consoleCall(api, 'PATCH', `/console/api/tokens/${t.id}`, session, { status: 'active' }),
      404,
      'not_found',
    );
  });

  it("cannot see, change or delete another account's token", async () => {
    const owner = await consoleAccount(api);
    const other = await consoleAccount(api);
    const t = await createToken(owner.session, { name: 'mine' });
    await expectError(
      await consoleCall(api, 'PATCH', `/console/api/tokens/${t.id}`, other.session, { name: 'x' }),
      404,
      'not_found',
    );
    await expectError(
      await consoleCall(api, 'DELETE', `/console/api/tokens/${t.id}`, other.session),
      404,
      'not_found',
    );
    expect((await listTokens(other.session)).map((x) => x.id)).not.toContain(t.id);
    expect((await call(api, 'GET', '/v1/videos', { key: t.key })).status).toBe(200);
  });

  it('refuses a name another key of the account has, case aside, 409 with param name; a deleted key frees its name', async () => {
    const { session } = await consoleAccount(api);
    const prod = await createToken(session, { name: 'Production' });
    // the default key is there too: its name is taken as well
    for (const name of ['production', ' PRODUCTION ', 'Default']) {
      const err = await expectError(
        await consoleCall(api, 'POST', '/console/api/tokens', session, { name }),
        409,
        'conflict',
      );
      expect(err.param).toBe('name');
      expect(err.message).toMatch(/already have a key named/);
    }
    // renaming onto another key's name is refused; a key may change the case of its own
    const staging = await createToken(session, { name: 'staging' });
    const onto = await consoleCall(api, 'PATCH', `/console/api/tokens/${staging.id}`, session, {
      name: 'PRODUCTION',
    });
    expect((await expectError(onto, 409, 'conflict')).param).toBe('name');
    const recased = await consoleCall(api, 'PATCH', `/console/api/tokens/${prod.id}`, session, {
      name: 'production',
    });
    expect(recased.status).toBe(200);
    // a disabled key keeps its name; a deleted one gives it back
    await consoleCall(api, 'PATCH', `/console/api/tokens/${prod.id}`, session, { status: 'disabled' });
    expect(
      (await consoleCall(api, 'POST', '/console/api/tokens', session, { name: 'Production' })).status,
    ).toBe(409);
    await consoleCall(api, 'DELETE', `/console/api/tokens/${prod.id}`, session);
    expect((await createToken(session, { name: 'Production' })).name).toBe('Production');
    // another account's names are its own
    const other = await consoleAccount(api);
    expect((await createToken(other.session, { name: 'staging' })).name).toBe('staging');
    // two at once: one key takes the name
    const both = await Promise.all(
      [1, 2].map(() => consoleCall(api, 'POST', '/console/api/tokens', session, { name: 'twin' })),
    );
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await listTokens(session)).filter((t) => t.name === 'twin')).toHaveLength(1);
  });

  it.each([
    ['GET', '/console/api/tokens'],
    ['POST', '/console/api/tokens'],
    ['PATCH', '/console/api/tokens/key_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['DELETE', '/console/api/tokens/key_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['GET', '/console/api/balance'],
    ['GET', '/console/api/ledger'],
    ['GET', '/console/api/usage'],
    ['POST', '/console/api/logout'],
  ])(
    'answers 401 invalid_session for %s %s without a session, and for an API key instead',
    async (method, path) => {
      await expectError(
        await consoleCall(api, method, path, undefined, method === 'POST' ? { name: 'x' } : undefined),
        401,
        'invalid_session',
      );
      const { key } = await api.account();
      await expectError(await call(api, method, path, { key }), 401, 'invalid_session');
    },
  );

  it.each([
    ['an empty name', { name: ' ' }, 'name'],
    ['a negative quota', { name: 'x', quota_usd: -1 }, 'quota_usd'],
    ['an expiry in the past', { name: 'x', expires_at: 1_000 }, 'expires_at'],
    [
      'an expiry past the last JS date (seconds read as milliseconds)',
      { name: 'x', expires_at: 9_999_999_999_999 },
      'expires_at',
    ],
    ['an expiry in the year 10000', { name: 'x', expires_at: 253_402_300_800 }, 'expires_at'],
    ['an unknown model', { name: 'x', allowed_models: ['gpt-5'] }, 'allowed_models[0]'],
    ['a malformed IP rule', { name: 'x', allowed_ips: ['10.0.0.0/33'] }, 'allowed_ips[0]'],
    ['an unknown field', { name: 'x', owner: 'me' }, 'owner'],
  ])('answers 400 for %s', async (_n, body, param) => {
    const { session } = await consoleAccount(api);
    const err = await expectError(
      await consoleCall(api, 'POST', '/console/api/tokens', session, body),
      400,
      'invalid_request',
    );
    expect(err.param).toBe(param);
  });
});

describe('token limits on the API', () => {
  it('answers 402 insufficient_quota past the token quota, charging nothing', async () => {
    const { session, accountId } = await consoleAccount(api, 10);
    const t = await createToken(session, { name: 'capped', quota_usd: 0.3 });
    expect((await videos(t.key!)).status).toBe(200);
    const err = await expectError(await videos(t.key!), 402, 'insufficient_quota');
    expect(err.message).toMatch(/quota/);
    expect((await getAccount(api.database.db, accountId))!.balanceMicroUsd).toBe(9_750_000);
    // raising the quota lets it through again
    await consoleCall(api, 'PATCH', `/console/api/tokens/${t.id}`, session, { quota_usd: 1 });
    expect((await videos(t.key!)).status).toBe(200);
  });

  it('answers 403 permission_denied for a model outside the allow-list, charging nothing', async () => {
    const { session, accountId } = await consoleAccount(api, 10);
    const t = await createToken(session, { name: 'one-model', allowed_models: ['wan2.6-i2v-flash-5s-720p'] });
    const err = await expectError(
      await videos(t.key!, videoBody({ model: 'wan2.5-i2v-flash-5s-720p' })),
      403,
      'permission_denied',
    );
    expect(err.message).toContain('wan2.5-i2v-flash-5s-720p');
    expect((await getAccount(api.database.db, accountId))!.balanceMicroUsd).toBe(10_000_000);
    expect((await videos(t.key!)).status).toBe(200);
  });

  it.each([
    ['a video model', { path: '/v1/videos', json: videoBody() }],
    [
      'an image model',
      { path: '/v1/images/generations', json: { model: 'seedream-4.0', prompt: 'x', size: '1K' } },
    ],
    [
      'an edit model',
      {
        path: '/v1/images/edits',
        json: { model: 'qwen-image-edit', prompt: 'x', image: 'https://example.com/a.png' },
      },
    ],
  ])('answers 403 before 402 for %s outside the allow-list, whatever the balance', async (_n, req) => {
    for (const usdBalance of [0, 10]) {
      const { session, accountId } = await consoleAccount(api, usdBalance);
      const t = await createToken(session, { name: 'other', allowed_models: ['seedream-4.5'] });
      await expectError(
        await call(api, 'POST', req.path, { key: t.key, json: req.json }),
        403,
        'permission_denied',
      );
      expect((await getAccount(api.database.db, accountId))!.balanceMicroUsd).toBe(usdBalance * 1_000_000);
    }
  });

  it('answers 403 permission_denied from an address outside the IP allow-list', async () => {
    const { session } = await consoleAccount(api);
    const far = await createToken(session, { name: 'far', allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    await expectError(await call(api, 'GET', '/v1/videos', { key: far.key }), 403, 'permission_denied');
    await expectError(await videos(far.key!), 403, 'permission_denied');
    const near = await createToken(session, { name: 'near', allowed_ips: ['127.0.0.0/8'] });
    expect((await call(api, 'GET', '/v1/videos', { key: near.key })).status).toBe(200);
  });

  it('answers 401 for an expired key', async () => {
    const { session } = await consoleAccount(api);
    const t = await createToken(session, { name: 'short', expires_at: Math.floor(Date.now() / 1000) + 3600 });
    expect((await call(api, 'GET', '/v1/videos', { key: t.key })).status).toBe(200);
    await api.database.pool.query(
      `update api_keys set expires_at = now() - interval '1 second' where id = $1`,
      [t.id],
    );
    await expectError(await call(api, 'GET', '/v1/videos', { key: t.key }), 401, 'invalid_api_key');
  });

  it('authenticates with one indexed query per request (no extra query for a recently used key)', async () => {
    const { key, keyId } = await api.account();
    expect((await call(api, 'GET', '/v1/videos', { key })).status).toBe(200);
    // the last-used update runs off the request path: wait until it has landed before counting
    await waitFor(
      async () =>
        (
          await api.database.pool.query(`select 1 from api_keys where id = $1 and last_used_at is not null`, [
            keyId,
          ])
        ).rowCount === 1,
      { what: 'the first request to record last_used_at' },
    );
    const spy = jest.spyOn(api.database.pool, 'query');
    try {
      const res = await call(api, 'GET', '/v1/videos/task_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key });
      expect(res.status).toBe(404);
      const statements = spy.mock.calls.map((c) => String((c[0] as { text?: string }).text ?? c[0]));
      // the key lookup (through the key-hash index) and the route's own task lookup, nothing else
      expect(statements).toHaveLength(2);
      expect(statements[0]).toMatch(/from "api_keys" inner join "accounts"/);
      expect(statements[0]).toMatch(/"api_keys"\."key_hash" = \$1/);
    } finally {
      spy.mockRestore();
    }
    const { rows } = await api.database.pool.query(
      `explain select id, account_id from api_keys where key_hash = 'x'`,
    );
    expect(JSON.stringify(rows)).toMatch(/Index (Only )?Scan using api_keys_key_hash_idx/);
  });
});
