import { consoleAccount, PASSWORD } from '../../test/console';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';
import { sessionCookieSecure } from './session';

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

describe('a request is authenticated by its Authorization header or by the cookie, never both', () => {
  it.each([
    ['an API key', (key: string) => `Bearer ${key}`],
    ['a malformed bearer', () => 'Bearer not-a-session'],
    ['another scheme', () => 'Basic dXNlcjpwYXNz'],
    ['an empty header', () => ''],
  ])('with %s in Authorization, the session cookie does not authenticate it', async (_what, header) => {
    const { session, key } = await consoleAccount(api);
    const cookie = `mg_session=${encodeURIComponent(session)}`;
    expect((await call(api, 'GET', '/console/api/me', { headers: { cookie } })).status).toBe(200);
    await expectError(
      await call(api, 'GET', '/console/api/me', { headers: { cookie, authorization: header(key) } }),
      401,
      'invalid_session',
    );
    // a change the cross-site check waves through (it has an Authorization header) changes nothing
    await expectError(
      await call(api, 'POST', '/console/api/logout', {
        headers: { cookie, authorization: header(key), 'sec-fetch-site': 'cross-site' },
      }),
      401,
      'invalid_session',
    );
    expect((await call(api, 'GET', '/console/api/me', { headers: { cookie } })).status).toBe(200);
  });

  it('a session bearer token still works, with or without a cookie beside it', async () => {
    const a = await consoleAccount(api);
    const b = await consoleAccount(api);
    const res = await call(api, 'GET', '/console/api/me', {
      headers: { authorization: `Bearer ${a.session}`, cookie: `mg_session=${b.session}` },
    });
    expect(((await res.json()) as { id: string }).id).toBe(a.accountId);
  });
});

describe('the session cookie is Secure by default', () => {
  it.each([
    [{ PUBLIC_BASE_URL: 'https://gateway.example.com' }, true],
    [{ PUBLIC_BASE_URL: 'http://127.0.0.1:8080' }, false],
    [{ PUBLIC_BASE_URL: 'https://gateway.example.com', SESSION_COOKIE_SECURE: false }, false],
    [{ PUBLIC_BASE_URL: 'http://127.0.0.1:8080', SESSION_COOKIE_SECURE: true }, true],
  ])('%j: Secure %s', (config, secure) => {
    expect(sessionCookieSecure(config)).toBe(secure);
  });

  it('a gateway with an https public URL and nothing else set sends it Secure', async () => {
    const https = await startTestApi({ PUBLIC_BASE_URL: 'https://gateway.example.com' });
    try {
      const { email } = await consoleAccount(https);
      const res = await call(https, 'POST', '/console/api/login', { json: { email, password: PASSWORD } });
      expect(res.headers.get('set-cookie')).toMatch(/^mg_session=[^;]+;.*; Secure/);
    } finally {
      await https.close();
    }
  });
});
