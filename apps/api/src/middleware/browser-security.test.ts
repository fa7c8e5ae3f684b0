import http from 'node:http';
import { ensureAdminAccount } from '@mediagate/shared/accounts';
import { consoleAccount, PASSWORD } from '../../test/console';
import { call, startTestApi, type TestApi } from '../../test/harness';
import { plainHttpOrigins } from './security-headers';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await startTestApi();
  await ensureAdminAccount(api.database.db, { email: 'ops@example.test', password: 'operator-password' });
  const res = await call(api, 'POST', '/console/api/login', {
    json: { email: 'ops@example.test', password: 'operator-password' },
  });
  admin = ((await res.json()) as { token: string }).token;
});
afterAll(() => api?.close());

/** A raw request (so Origin, Sec-Fetch-Site and Cookie go out exactly as given). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${api.url}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const host = () => new URL(api.url).host;
const cookie = (session: string) => ({ cookie: `mg_session=${session}` });
const me = async (session: string) =>
  (await send('GET', '/console/api/me', { authorization: `Bearer ${session}` })).status;

describe('cross-site request forgery with the session cookie', () => {
  it.each([
    ['a cross-site form (Fetch Metadata)', { 'sec-fetch-site': 'cross-site' }],
    ['a same-site page of another origin', { 'sec-fetch-site': 'same-site' }],
    ['a foreign Origin (no Fetch Metadata)', { origin: 'https://attacker.example' }],
    ['Origin null (sandboxed or data: page)', { origin: 'null' }],
  ])('refuses a cookie-authenticated change from %s with 403, changing nothing', async (_what, headers) => {
    const user = await consoleAccount(api);
    const res = await send('POST', '/console/api/logout', { ...cookie(user.session), ...headers });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error.code).toBe('permission_denied');
    expect(await me(user.session)).toBe(200);
    const patch = await send(
      'PATCH',
      `/console/api/tokens/${user.keyId}`,
      { ...cookie(user.session), ...headers },
      JSON.stringify({ status: 'disabled' }),
    );
    expect(patch.status).toBe(403);
    expect((await call(api, 'GET', '/v1/videos', { key: user.key })).status).toBe(200);
  });

  it('lets the console on the same origin through (Origin = this host, or Sec-Fetch-Site same-origin)', async () => {
    const a = await consoleAccount(api);
    const viaOrigin = await send('POST', '/console/api/logout', {
      ...cookie(a.session),
      origin: `http://${host()}`,
    });
    expect(viaOrigin.status).toBe(200);
    const b = await consoleAccount(api);
    const viaFetchMetadata = await send('POST', '/console/api/logout', {
      ...cookie(b.session),
      'sec-fetch-site': 'same-origin',
      origin: `http://${host()}`,
    });
    expect(viaFetchMetadata.status).toBe(200);
  });

  it('leaves bearer-token requests and non-browser clients alone', async () => {
    const a = await consoleAccount(api);
    const bearer = await send('POST', '/console/api/logout', {
      authorization: `Bearer ${a.session}`,
      'sec-fetch-site': 'cross-site',
      origin: 'https://some-app.example',
    });
    expect(bearer.status).toBe(200);
    const b = await consoleAccount(api);
    expect((await send('POST', '/console/api/logout', cookie(b.session))).status).toBe(200);
    // the login itself carries no session cookie
    const login = await send(
      'POST',
      '/console/api/login',
      { origin: `http://${host()}` },
      JSON.stringify({ email: a.email, password: PASSWORD }),
    );
    expect(login.status).toBe(200);
  });

  it('guards the operator routes and the queue dashboard too', async () => {
    const user = await consoleAccount(api);
    const res = await send('POST', `/admin/api/accounts/${user.accountId}/disable`, {
      ...cookie(admin),
      'sec-fetch-site': 'cross-site',
    });
    expect(res.status).toBe(403);
    const board = await send('PUT', '/admin/queues/api/queues/video-tasks/pause', {
      ...cookie(admin),
      'sec-fetch-site': 'cross-site',
    });
    expect(board.status).toBe(403);
    expect(await me(user.session)).toBe(200);
  });
});

describe('security headers', () => {
  const expectHardened = (headers: http.IncomingHttpHeaders, path: string) => {
    expect({ path, poweredBy: headers['x-powered-by'] }).toEqual({ path, poweredBy: undefined });
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['strict-transport-security']).toMatch(/max-age=\d+/);
    const csp = String(headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    return csp;
  };

  it('sends them on every answer: success, error, unknown route, operator pages', async () => {
    const user = await consoleAccount(api);
    const answers = [
      ['/healthz', {}],
      ['/v1/models', { authorization: `Bearer ${user.key}` }],
      ['/v1/videos', {}],
      ['/no/such/route', {}],
      ['/console/api/me', { authorization: `Bearer ${user.session}` }],
      ['/openapi.json', {}],
      ['/admin/queues', cookie(admin)],
      ['/admin/queues/api/queues', cookie(admin)],
    ] as const;
    for (const [path, headers] of answers) {
      const res = await send('GET', path, { ...headers });
      expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
      expectHardened(res.headers, path);
    }
  });

  it('allows a Vite-built single-page app: scripts and styles from self, images and media from https and blob', async () => {
    const csp = expectHardened((await send('GET', '/healthz', {})).headers, '/healthz');
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("style-src 'self'");
    // Ant Design's CSS-in-JS inserts <style> elements; inline scripts stay refused
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("img-src 'self' data: blob: https:");
    expect(csp).toContain("media-src 'self' https: blob:");
    expect(csp).toContain("connect-src 'self'");
  });

  it("adds a plain-http upstream's origin to images and media, where an uncopied video's link redirects", async () => {
    // the harness's upstreams are at their defaults: the simulator on http://127.0.0.1:8090
    const csp = (await send('GET', '/console', {})).headers['content-security-policy'];
    expect(csp).toContain("media-src 'self' https: blob: http://127.0.0.1:8090;");
    expect(csp).toContain("img-src 'self' data: blob: https: http://127.0.0.1:8090;");
    expect(csp).toContain("connect-src 'self';");
  });
});

describe('plainHttpOrigins', () => {
  it('keeps the distinct origins of http URLs only', () => {
    expect(
      plainHttpOrigins([
        'https://dashscope.aliyuncs.com/api/v1',
        'http://127.0.0.1:8090',
        'http://127.0.0.1:8090/api/v3',
        'http://sim.internal:80/x',
        'not a url',
      ]),
    ).toEqual(['http://127.0.0.1:8090', 'http://sim.internal']);
  });
});
