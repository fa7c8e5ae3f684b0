import { spawnSync } from 'node:child_process';
import {
  createTestDatabase,
  freePort,
  type RunningProcess,
  startProcess,
  testQueuePrefix,
  testServiceUrls,
  waitFor,
} from '@mediagate/shared/testing';
import { ENTRIES } from './stack';

// Two real API processes over one database: what one replica turns off, the other refuses
// within 5 seconds. No SMTP server is configured, so the development mailer writes the
// registration code into the API's log.
let db: { url: string; drop: () => Promise<void> };
const apis: RunningProcess[] = [];
const urls: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const { redisUrl } = await testServiceUrls();
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: testQueuePrefix(),
    HOST: '127.0.0.1',
    ADMIN_EMAIL: 'ops@example.test',
    ADMIN_PASSWORD: 'operator-password-1',
    LOG_LEVEL: 'info',
  };
  for (const name of ['api-1', 'api-2']) {
    const port = await freePort();
    apis.push(
      await startProcess({
        name,
        entry: ENTRIES.api,
        env: { ...env, PORT: String(port) },
        readyUrl: `http://127.0.0.1:${port}/readyz`,
      }),
    );
    urls.push(`http://127.0.0.1:${port}`);
  }
});
afterAll(async () => {
  await Promise.all(apis.map((p) => p.stop()));
  await db?.drop();
});

const request = async (base: string, method: string, path: string, auth?: string, json?: unknown) => {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

describe('accounts across API processes', () => {
  it('registers with the code from the development log, logs in, and the key works on both replicas', async () => {
    const [a, b] = urls as [string, string];
    const email = 'newcomer@example.test';
    expect(
      (await request(a, 'POST', '/console/api/register', undefined, { email, password: 'hunter2hunter2' }))
        .status,
    ).toBe(202);
    const code = await waitFor(() => /verification code is (\d{6})/.exec(apis[0]!.output())?.[1], {
      timeoutMs: 10_000,
      what: 'the code in the log',
    });
    const verified = await request(b, 'POST', '/console/api/register/verify', undefined, {
      email,
      code,
      password: 'hunter2hunter2',
    });
    expect(verified.status).toBe(201);
    expect(verified.body.balance_usd).toBe(0.05);
    const key = verified.body.api_key.key as string;
    for (const base of urls) {
      const res = await request(base, 'GET', '/v1/videos', key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    }
    const login = await request(a, 'POST', '/console/api/login', undefined, {
      email,
      password: 'hunter2hunter2',
    });
    expect(login.status).toBe(200);
  });

  it('refuses a key deleted on one replica on the other within 5 seconds', async () => {
    const [a, b] = urls as [string, string];
    // the operator account comes from ADMIN_EMAIL / ADMIN_PASSWORD
    const login = await waitFor(
      async () => {
        const r = await request(a, 'POST', '/console/api/login', undefined, {
          email: 'ops@example.test',
          password: 'operator-password-1',
        });
        return r.status === 200 ? r : null;
      },
      { timeoutMs: 10_000, what: 'the admin account' },
    );
    expect(login.body.role).toBe('admin');
    const session = login.body.token as string;
    expect((await request(b, 'GET', '/admin/api/accounts', session)).status).toBe(200);

    for (const action of ['disable', 'delete'] as const) {
      const token = await request(a, 'POST', '/console/api/tokens', session, { name: `to-${action}` });
      expect(token.status).toBe(201);
      expect((await request(b, 'GET', '/v1/videos', token.body.key)).status).toBe(200);
      const turnedOff = Date.now();
      const res =
        action === 'delete'
          ? await request(a, 'DELETE', `/console/api/tokens/${token.body.id}`, session)
          : await request(a, 'PATCH', `/console/api/tokens/${token.body.id}`, session, {
              status: 'disabled',
            });
      expect(res.status).toBe(200);
      await waitFor(async () => (await request(b, 'GET', '/v1/videos', token.body.key)).status === 401, {
        timeoutMs: 5_000,
        intervalMs: 100,
        what: `the ${action}d key to be refused by the second replica`,
      });
      expect(Date.now() - turnedOff).toBeLessThan(5_000);
    }
  });

  it('keeps the operator CLI working for accounts made without the console', () => {
    const r = spawnSync(
      process.execPath,
      [ENTRIES.cli, 'account:create', '--email', 'cli@example.test', '--balance-usd', '1'],
      {
        env: { ...process.env, DATABASE_URL: db.url },
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^sk-[0-9A-Za-z]{48}\n$/);
  });
});
