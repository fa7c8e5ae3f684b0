// `pnpm start` (scripts/start.mjs) when nothing answers at DATABASE_URL / REDIS_URL: it says why in
// one line, starts a local Postgres and redis-server on the ports of those URLs, records the
// configuration that `pnpm cli` then uses, keeps the simulator's tasks across a restart so a task in
// flight still succeeds, exits 0 on Ctrl-C, and `pnpm stop` stops the services it started.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '@mediagate/shared/testing';
import { Pool } from 'pg';

const root = path.resolve(__dirname, '..', '..');
const script = (name: string) => path.join(root, 'scripts', name);
const haveTools =
  spawnSync('sh', [
    '-c',
    'command -v redis-server && (command -v initdb || ls /usr/lib/postgresql/*/bin/initdb)',
  ]).status === 0;

const tcpAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

(haveTools ? describe : describe.skip)('pnpm start with nothing at DATABASE_URL / REDIS_URL', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let running: { child: ChildProcess; exited: Promise<number | null>; output: () => string } | undefined;
  let pgPort: number;
  let redisPort: number;

  const start = (extra: NodeJS.ProcessEnv = {}) => {
    const child = spawn(process.execPath, [script('start.mjs')], {
      cwd: root,
      env: { ...env, ...extra },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    running = { child, exited, output: () => out };
    return running;
  };
  const ready = (r: NonNullable<typeof running>) =>
    waitFor(
      () => {
        if (r.child.exitCode !== null) throw new Error(`start exited ${r.child.exitCode}:\n${r.output()}`);
        return /Demo key \([\d.]+ USD of credit left\): (sk-\S+)/.exec(r.output())?.[1];
      },
      { timeoutMs: 120_000, intervalMs: 200, what: 'pnpm start to be ready' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${r.output().slice(-3000)}`);
    });
  const ctrlC = async (r: NonNullable<typeof running>) => {
    process.kill(-r.child.pid!, 'SIGINT');
    return r.exited;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mg-start-'));
    chmodSync(dir, 0o755); // the local Postgres runs as the postgres user when this runs as root
    [pgPort, redisPort] = [await freePort(), await freePort()];
    const ports = await Promise.all([1, 2, 3, 4, 5, 6].map(() => freePort()));
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MEDIAGATE_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/mediagate`,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      PORT: String(ports[0]),
      SIM_PORT: String(ports[1]),
      WORKER_VIDEO_HTTP_PORT: String(ports[2]),
      WORKER_RECONCILER_HTTP_PORT: String(ports[3]),
      WORKER_CALLBACKS_HTTP_PORT: String(ports[4]),
      // every port its own: tests run side by side, and another may run a stack of its own
      PAYSIM_PORT: String(ports[5]),
      // long enough upstream that a restart happens while the task runs there
      SIM_VIDEO_PENDING_MS: '500',
      SIM_VIDEO_RUNNING_MS: '15000',
      VIDEO_POLL_INTERVAL_MS: '500',
      LOG_LEVEL: 'warn',
    };
  });

  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      process.kill(-running.child.pid!, 'SIGKILL');
      await running.exited;
    }
    spawnSync(process.execPath, [script('stop.mjs')], { cwd: root, env });
    rmSync(dir, { recursive: true, force: true });
  });

  it('falls back on the given ports, shares its configuration, survives a restart and stops cleanly', async () => {
    const first = start();
    const key = await ready(first);
    const out = first.output();
    expect(out).toContain(
      `Postgres: nothing answers at 127.0.0.1:${pgPort} (DATABASE_URL from the environment); starting a local one on that port`,
    );
    expect(out).toContain(
      `Redis: nothing answers at 127.0.0.1:${redisPort} (REDIS_URL from the environment); starting a local redis-server on that port`,
    );
    for (const phase of [
      'build @mediagate/api',
      'migrations applied',
      'sim ready',
      'api ready',
      'video ready',
    ]) {
      expect(out).toContain(phase);
    }
    const runtimeEnv = readFileSync(path.join(dir, 'data', 'runtime.env'), 'utf8');
    expect(runtimeEnv).toContain(`DATABASE_URL=postgres://postgres@127.0.0.1:${pgPort}/mediagate`);
    expect(runtimeEnv).toContain(`WORKER_VIDEO_HTTP_PORT=${env.WORKER_VIDEO_HTTP_PORT}`);

    // The CLI, with none of the variables exported, reaches the same database.
    const { DATABASE_URL: _d, REDIS_URL: _r, ...bare } = env;
    const cli = spawnSync(
      process.execPath,
      [
        script('with-config.mjs'),
        'node',
        'packages/shared/dist/cli/main.js',
        'account:create',
        '--email',
        'fb@example.test',
      ],
      { cwd: root, env: bare, encoding: 'utf8' },
    );
    expect(cli.stderr).not.toContain('nothing answers');
    expect(cli.status).toBe(0);
    expect(cli.stdout).toMatch(/^sk-\S+\n$/);

    // The development operator: made with a generated password, kept in .data/operator-password,
    // named in the banner, and it signs in as an operator.
    const operatorPassword = readFileSync(path.join(dir, 'data', 'operator-password'), 'utf8').trim();
    expect(operatorPassword.length).toBeGreaterThanOrEqual(16);
    expect(out).toContain(`sign in as operator@mediagate.localhost with the password ${operatorPassword}`);
    const signIn = async (email: string, password: string) => {
      const res = await fetch(`http://127.0.0.1:${env.PORT}/console/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      return { status: res.status, role: ((await res.json()) as { role?: string }).role };
    };
    expect(await signIn('operator@mediagate.localhost', operatorPassword)).toEqual({
      status: 200,
      role: 'admin',
    });
    const db = new Pool({ connectionString: env.DATABASE_URL, max: 1 });
    const accountRow = async (email: string) =>
      (await db.query('select role, password_hash from accounts where email = $1', [email])).rows[0] as {
        role: string;
        password_hash: string | null;
      };
    const fbBefore = await accountRow('fb@example.test');

    // A video task running upstream when the stack stops finishes after it starts again.
    const base = `http://127.0.0.1:${env.PORT}`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/videos`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        model: 'wan2.6-i2v-flash-5s-720p',
        prompt: 'a cat walks across a sunny garden',
        metadata: { input: { img_url: 'https://example.com/cat.png' } },
      }),
    });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { id: string }).id;
    const task = async () =>
      (await (await fetch(`${base}/v1/videos/${id}`, { headers })).json()) as { status: string };
    await waitFor(async () => (await task()).status === 'processing', {
      timeoutMs: 30_000,
      what: 'the task to run upstream',
    });
    expect(await ctrlC(first)).toBe(0);
    expect(first.output()).not.toMatch(/exited \(|ELIFECYCLE/);
    // The local services keep running after Ctrl-C.
    expect(await tcpAnswers(pgPort)).toBe(true);

    // Restarted with ADMIN_EMAIL naming an existing account and no ADMIN_PASSWORD: that account's
    // password is not replaced nor is it made an operator; the banner says none was made; the
    // development operator's password stays as kept.
    const second = start({ ADMIN_EMAIL: 'fb@example.test' });
    await ready(second);
    expect(second.output()).toContain(
      'no operator account is made for fb@example.test without ADMIN_PASSWORD (an existing operator signs in as before)',
    );
    expect(second.output()).not.toContain('with the password');
    expect(await accountRow('fb@example.test')).toEqual(fbBefore);
    expect(fbBefore.role).toBe('user');
    expect(readFileSync(path.join(dir, 'data', 'operator-password'), 'utf8').trim()).toBe(operatorPassword);
    expect((await signIn('operator@mediagate.localhost', operatorPassword)).status).toBe(200);
    await db.end();
    const done = await waitFor(
      async () => {
        const t = await task();
        return t.status === 'succeeded' || t.status === 'failed' ? t : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the task to finish after the restart' },
    );
    expect(done).toMatchObject({ status: 'succeeded' });
    expect(await ctrlC(second)).toBe(0);

    // `pnpm stop` stops the Postgres and redis-server it started.
    const stop = spawnSync(process.execPath, [script('stop.mjs')], { cwd: root, env, encoding: 'utf8' });
    expect(stop.status).toBe(0);
    expect(stop.stderr).toContain(`stopped Postgres on port ${pgPort} and redis-server on port ${redisPort}`);
    await waitFor(async () => !(await tcpAnswers(pgPort)) && !(await tcpAnswers(redisPort)), {
      timeoutMs: 15_000,
      what: 'the local services to stop',
    });
    expect(existsSync(path.join(dir, 'data', 'local-services.json'))).toBe(false);
  }, 400_000);
});

describe('what the commands say when they cannot go on', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mg-start-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pnpm start names the variable of a port in use', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [script('start.mjs')], {
          cwd: root,
          env: { PATH: process.env.PATH, MEDIAGATE_DATA_DIR: dir, SIM_PORT: String(port) },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (d) => (stderr += d));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `port ${port} (SIM_PORT from the environment) is in use (another mediagate?); set SIM_PORT to a free port`,
      );
    } finally {
      busy.close();
    }
  });

  it('pnpm test, bench and drills say what is missing when Postgres is out of reach', () => {
    // TEST-NET-3: nothing answers there, and it is not a local address to start a server on.
    const r = spawnSync(process.execPath, [script('with-test-services.mjs'), 'true'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        MEDIAGATE_DATA_DIR: dir,
        DATABASE_URL: 'postgres://postgres@203.0.113.1:5432/mediagate',
        REDIS_URL: 'redis://203.0.113.1:6379',
      },
      encoding: 'utf8',
    });
    if (spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0) return; // testcontainers would serve
    expect(r.status).toBe(1);
    // Either nothing answers there, or (behind a proxy that accepts every connection) it is no Postgres.
    expect(r.stderr).toMatch(
      /Postgres (does not answer at|at) 203\.0\.113\.1:5432 \(.*DATABASE_URL of this checkout\)/,
    );
    expect(r.stderr).toMatch(/set TEST_DATABASE_URL/i);
  });

  it('commands take what pnpm start recorded, unless the environment says otherwise', () => {
    writeFileSync(
      path.join(dir, 'runtime.env'),
      [
        'DATABASE_URL=postgres://postgres@127.0.0.1:5999/mediagate',
        'REDIS_URL=redis://127.0.0.1:6999',
        'QUEUE_PREFIX={recorded}',
        'MEDIAGATE_GIVEN_DATABASE_URL=postgres://localhost:5999/mediagate',
      ].join('\n'),
    );
    const seen = (extra: Record<string, string>) => {
      const r = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { configEnv } from ${JSON.stringify(script('runtime-config.mjs'))};
           const e = configEnv();
           process.stdout.write(JSON.stringify([e.DATABASE_URL, e.REDIS_URL, e.QUEUE_PREFIX, Object.keys(e).some((k) => k.startsWith('MEDIAGATE_GIVEN_'))]));`,
        ],
        { cwd: dir, env: { PATH: process.env.PATH, MEDIAGATE_DATA_DIR: dir, ...extra }, encoding: 'utf8' },
      );
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout);
    };
    expect(seen({})).toEqual([
      'postgres://postgres@127.0.0.1:5999/mediagate',
      'redis://127.0.0.1:6999',
      '{recorded}',
      false,
    ]);
    // the value start was given and replaced is replaced again; any other value of the environment wins
    expect(seen({ DATABASE_URL: 'postgres://localhost:5999/mediagate', QUEUE_PREFIX: '{mine}' })).toEqual([
      'postgres://postgres@127.0.0.1:5999/mediagate',
      'redis://127.0.0.1:6999',
      '{mine}',
      false,
    ]);
    expect(seen({ DATABASE_URL: 'postgres://elsewhere:5432/db' })[0]).toBe('postgres://elsewhere:5432/db');
  });
});
