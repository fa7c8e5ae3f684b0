import { revokeApiKey } from '@mediagate/shared/accounts';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('API key authentication', () => {
  const attempt = (authorization?: string) =>
    call(api, 'POST', '/v1/videos', {
      json: videoBody(),
      headers: authorization === undefined ? {} : { authorization },
    });

  it('answers 401 invalid_api_key without an Authorization header', async () => {
    const err = await expectError(await attempt(), 401, 'invalid_api_key');
    expect(err.type).toBe('authentication_error');
  });

  it.each([
    ['a malformed key', 'Bearer not-a-key'],
    ['a key without the sk- prefix', `Bearer pk-${'a'.repeat(48)}`],
    ['an unknown well-formed key', `Bearer sk-${'A'.repeat(48)}`],
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 invalid_api_key for %s', async (_n, header) => {
    await expectError(await attempt(header), 401, 'invalid_api_key');
  });

  it('answers 401 for a revoked key, and nothing is stored', async () => {
    const { key, keyId, accountId } = await api.account();
    expect((await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).status).toBe(200);
    await revokeApiKey(api.database.db, keyId);
    await expectError(
      await call(api, 'POST', '/v1/videos', { key, json: videoBody() }),
      401,
      'invalid_api_key',
    );
    const { rows } = await api.database.pool.query(
      'select count(*)::int as n from tasks where account_id = $1',
      [accountId],
    );
    expect(rows[0].n).toBe(1);
  });

  it('answers 401 for a key of a disabled account', async () => {
    const { key, accountId } = await api.account();
    await api.database.pool.query(`update accounts set status = 'disabled' where id = $1`, [accountId]);
    await expectError(
      await call(api, 'GET', '/v1/videos/task_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key }),
      401,
      'invalid_api_key',
    );
  });

  it('checks the key before the body, so an anonymous caller learns nothing about validation', async () => {
    const res = await call(api, 'POST', '/v1/videos', { json: { nonsense: true } });
    await expectError(res, 401, 'invalid_api_key');
  });

  it('never echoes the presented key', async () => {
    const bogus = `sk-${'Z'.repeat(48)}`;
    const res = await attempt(`Bearer ${bogus}`);
    expect(await res.text()).not.toContain(bogus);
  });
});
