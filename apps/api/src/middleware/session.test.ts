import { consoleAccount } from '../../test/console';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('console session cookie', () => {
  it.each(['mg_session=%', 'mg_session=%zz', 'mg_session=%E0%A4%A', 'a=b; mg_session=%ff'])(
    'answers 401 invalid_session, not a 500, for a malformed escape in the cookie (%s)',
    async (cookie) => {
      await expectError(
        await call(api, 'GET', '/console/api/me', { headers: { cookie } }),
        401,
        'invalid_session',
      );
    },
  );

  it('reads a percent-encoded session from the cookie', async () => {
    const { session } = await consoleAccount(api);
    const res = await call(api, 'GET', '/console/api/me', {
      headers: { cookie: `theme=dark; mg_session=${encodeURIComponent(session)}` },
    });
    expect(res.status).toBe(200);
  });
});
