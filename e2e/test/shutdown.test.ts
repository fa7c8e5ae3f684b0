import http from 'node:http';
import { freePort, processGroup, startProcess, waitFor } from '@mediagate/shared/testing';
import { ENTRIES, type Stack, startStack, VIDEO_REQUEST } from './stack';

/**
 * What a load balancer sees of an API replica: readiness follows Postgres (not Redis), and on
 * SIGTERM /readyz turns 503 at once while requests, in flight and new, are still answered for
 * SHUTDOWN_DELAY_MS; only then does the process drain and exit.
 */
jest.setTimeout(60_000);

const DELAY_MS = 3_000;
let stack: Stack;
let group: ReturnType<typeof processGroup>;

beforeAll(async () => {
  stack = await startStack({ videoWorkers: 0, reconciler: false, env: { LOG_LEVEL: 'warn' } });
  group = processGroup(stack.env);
});
afterAll(async () => {
  await group?.stopAll('SIGKILL');
  await stack?.stop();
});

async function readyz(base: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/readyz`, { headers: { connection: 'close' } });
  return { status: res.status, body: await res.json() };
}

it('stays ready without Redis, and says so', async () => {
  const deadRedis = `redis://127.0.0.1:${await freePort()}`;
  const api = await group.start('api-no-redis', 'api', { REDIS_URL: deadRedis });
  const base = `http://127.0.0.1:${api.port}`;
  const { status, body } = await readyz(base);
  expect(status).toBe(200);
  expect(body).toMatchObject({
    status: 'ready',
    checks: { accepting: true, postgres: true, migrations: true, redis: false },
  });
  expect(await api.stop('SIGTERM')).toBe(0);
});

it('is not ready without Postgres', async () => {
  const port = await freePort();
  const api = await startProcess({
    name: 'api-no-pg',
    entry: ENTRIES.api,
    env: {
      ...stack.env,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/nothing`,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
  });
  try {
    const res = await waitFor(() => readyz(`http://127.0.0.1:${port}`).catch(() => null), {
      timeoutMs: 15_000,
      what: 'the API without Postgres to answer /readyz',
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'not_ready', checks: { postgres: false } });
  } finally {
    await api.stop('SIGKILL');
  }
});

it('on SIGTERM: /readyz 503 at once, in-flight and new requests still answered for the delay, then exit 0', async () => {
  const key = stack.newKey(5);
  const api = await group.start('api-drain', 'api', { SHUTDOWN_DELAY_MS: String(DELAY_MS) });
  const base = `http://127.0.0.1:${api.port}`;
  expect((await readyz(base)).status).toBe(200);
  const exited = new Promise<number | null>((resolve) => api.child.once('exit', (code) => resolve(code)));

  // a request in flight: its headers and half of its body are sent before SIGTERM
  const body = Buffer.from(JSON.stringify(VIDEO_REQUEST));
  let req!: http.ClientRequest;
  const inFlight = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req = http.request(
      `${base}/v1/videos`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(body.length),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, 20));
  });

  const signalledAt = Date.now();
  api.child.kill('SIGTERM');

  const notReady = await waitFor(
    async () => {
      const r = await readyz(base);
      return r.status === 503 ? r : null;
    },
    { timeoutMs: DELAY_MS, what: '/readyz to answer 503' },
  );
  expect(notReady.body).toMatchObject({ status: 'not_ready', checks: { accepting: false, postgres: true } });

  // a new request during the delay is served (and told to close its connection)
  const models = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  expect(models.status).toBe(200);
  expect(models.headers.get('connection')).toBe('close');
  expect(api.child.exitCode).toBeNull();

  // the in-flight request completes
  req.end(body.subarray(20));
  const done = await inFlight;
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({ object: 'video', status: 'pending' });

  expect(await exited).toBe(0);
  // it waited the delay before draining (the delay is the subject here, so time is measured)
  expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(DELAY_MS - 100);
  const { rows } = await stack.pool.query('select count(*)::int as n from tasks where id = $1', [
    done.body.id,
  ]);
  expect(rows[0].n).toBe(1);
});
