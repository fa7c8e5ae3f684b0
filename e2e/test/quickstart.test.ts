// The README's first command, taken from the README itself, run in a fresh clone of this
// repository with a PATH that holds no pnpm (nor corepack): it must install what it needs, start
// the whole service and print a request that creates a video task which then succeeds; Ctrl-C
// must then stop everything with exit code 0.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { freePort, testServiceUrls, waitFor } from '@mediagate/shared/testing';
import { Client } from 'pg';

const repo = path.resolve(__dirname, '..', '..');
const HIDDEN = new Set(['pnpm', 'pnpx', 'corepack']);

/** The first command line of the README's quick start block, without its comment. */
function readmeFirstCommand(): string {
  const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('README.md: no sh block under "## Quick start"');
  const line = block[1].split('\n').find((l) => l.trim() !== '');
  return (line ?? '').replace(/\s+#.*$/, '').trim();
}

/**
 * A PATH without pnpm, pnpx or corepack and without this checkout's toolchain: directories that
 * hold one of them are replaced by a directory of links to everything else they hold.
 */
function pathWithoutPnpm(dir: string): string {
  const links = path.join(dir, 'bin');
  mkdirSync(links);
  const out: string[] = [links];
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!d || !existsSync(d) || d.includes(`${path.sep}.data${path.sep}toolchain`)) continue;
    const names = readdirSync(d);
    if (!names.some((n) => HIDDEN.has(n))) {
      out.push(d);
      continue;
    }
    for (const n of names) {
      if (HIDDEN.has(n) || existsSync(path.join(links, n))) continue;
      try {
        if (statSync(path.join(d, n)).isFile()) symlinkSync(path.join(d, n), path.join(links, n));
      } catch {
        // a dangling link: leave it out
      }
    }
  }
  return out.join(path.delimiter);
}

/** The environment of a new shell: nothing of the package manager that runs this test. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|PNPM_|COREPACK|MEDIAGATE_|TURBO_|JEST_|TEST_|INIT_CWD$|NODE_OPTIONS$)/i.test(k)) continue;
    env[k] = v;
  }
  return env;
}

/** The printed shell command that starts with `prefix`, backslash continuations joined. */
function printedCommand(output: string, prefix: RegExp): string | undefined {
  const lines = output.split('\n');
  const i = lines.findIndex((l) => prefix.test(l.trim()));
  if (i < 0) return undefined;
  let cmd = lines[i]!.trim();
  for (let j = i + 1; cmd.endsWith('\\') && j < lines.length; j++)
    cmd = `${cmd.slice(0, -1)} ${lines[j]!.trim()}`;
  return cmd;
}

/** This machine's IPv4 addresses other than loopback. */
const externalAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address);

const sh = (cmd: string, env: NodeJS.ProcessEnv) =>
  execFileSync('sh', ['-c', cmd], { env, encoding: 'utf8' });

describe('quick start', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;
  let dbName: string;
  let adminUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mg-quickstart-'));
    dbName = `mgqs_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    adminUrl = (await testServiceUrls()).databaseUrl;
  });

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`).finally(() => admin.end());
    rmSync(dir, { recursive: true, force: true });
  });

  it('the README first command serves a video task that succeeds, from a fresh clone without pnpm', async () => {
    const command = readmeFirstCommand();
    expect(command).not.toMatch(/\bpnpm\b|corepack/);

    const clone = path.join(dir, 'mediagate');
    execFileSync('git', ['clone', '--quiet', repo, clone]);
    const PATH = pathWithoutPnpm(dir);
    expect(() => execFileSync('sh', ['-c', 'command -v pnpm'], { env: { PATH } })).toThrow();

    const { databaseUrl, redisUrl } = await testServiceUrls();
    const db = new URL(databaseUrl);
    db.pathname = `/${dbName}`;
    const ports = await Promise.all([1, 2, 3, 4, 5, 6].map(() => freePort()));
    const env: NodeJS.ProcessEnv = {
      ...cleanEnv(),
      PATH,
      DATABASE_URL: db.toString(),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: `{mgqs-${randomUUID().slice(0, 8)}}`,
      PORT: String(ports[0]),
      SIM_PORT: String(ports[1]),
      WORKER_VIDEO_HTTP_PORT: String(ports[2]),
      WORKER_RECONCILER_HTTP_PORT: String(ports[3]),
      WORKER_CALLBACKS_HTTP_PORT: String(ports[4]),
      // every port its own: tests run side by side, and another may run a stack of its own
      PAYSIM_PORT: String(ports[5]),
    };

    const started = Date.now();
    let output = '';
    // bash runs a simple command in its own place, as an interactive shell runs it as the foreground job.
    const proc = spawn('bash', ['-c', command], {
      cwd: clone,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));

    // an early exit fails at once rather than at the deadline
    const create = await Promise.race([
      waitFor(() => printedCommand(output, /^curl -s \S+\/v1\/videos -H/), {
        timeoutMs: 420_000,
        intervalMs: 250,
        what: `${command} to print the video request`,
      }),
      exited.then((code) => Promise.reject(new Error(`${command} exited ${code}`))),
    ]).catch((err: Error) => {
      throw new Error(`${err.message}\n${output.slice(-3000)}`);
    });
    const readyMs = Date.now() - started;

    const task = JSON.parse(sh(create, env)) as { id: string; status: string };
    expect(task.status).toBe('pending');
    const poll = printedCommand(output, /^curl -s \S+\/v1\/videos\/<task id>/)!.replace('<task id>', task.id);
    const done = await waitFor(
      () => {
        const t = JSON.parse(sh(poll, env)) as { status: string; video_url?: string };
        return t.status === 'succeeded' || t.status === 'failed' ? t : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the video task to finish' },
    );
    expect(done.status).toBe('succeeded');
    expect(done.video_url).toMatch(/^http/);
    const phases = output.split('\n').filter((l) => /^\[(setup|start)\]/.test(l));
    process.stderr.write(
      `${phases.join('\n')}\nquick start: "${command}" ready in ${(readyMs / 1000).toFixed(1)} s on a fresh clone; video task succeeded after ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );

    // The simulators listen on loopback only, and their control APIs take the tokens pnpm start made
    // and recorded (nothing is marked paid or faulted by whoever reaches the port).
    const recorded = parseEnv(readFileSync(path.join(clone, '.data', 'runtime.env'), 'utf8'));
    for (const [port, token] of [
      [ports[1], recorded.SIM_CONTROL_TOKEN],
      [ports[5], recorded.PAYSIM_CONTROL_TOKEN],
    ]) {
      expect(token).toMatch(/^\S{16,}$/);
      const stats = `http://127.0.0.1:${port}/_control/stats`;
      expect((await fetch(stats)).status).toBe(401);
      expect((await fetch(stats, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      for (const address of externalAddresses()) {
        await expect(fetch(`http://${address}:${port}/healthz`)).rejects.toThrow();
      }
    }

    // Development's doors, as the banner names them: the demo key's credit, e-mails as files, an
    // operator to sign in as, and where to pay a simulated top-up.
    const base = `http://127.0.0.1:${ports[0]}`;
    expect(output).toMatch(/Demo key \(5\.00 USD of credit left\): sk-/);
    const call = async (method: string, route: string, body?: unknown, token?: string) => {
      const res = await fetch(`${base}${route}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const mailDir = /each one \(sign-up codes, password resets\) is written to (\S+?)\/, one \.eml file/.exec(
      output,
    )?.[1];
    expect(mailDir).toBe(path.join('.data', 'mail'));
    const email = `quick-${Date.now()}@example.com`;
    const password = 'Quickstart-pass-42';
    expect((await call('POST', '/console/api/register', { email, password })).status).toBe(202);
    const mailFile = await waitFor(
      () => {
        const dirPath = path.join(clone, mailDir!);
        if (!existsSync(dirPath)) return undefined;
        const f = readdirSync(dirPath).find((n) => n.endsWith(`-signup-${email}.eml`));
        return f ? path.join(dirPath, f) : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100, what: 'the sign-up e-mail in .data/mail' },
    );
    expect(path.basename(mailFile)).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-signup-/);
    const code = /verification code is (\d{6})/.exec(readFileSync(mailFile, 'utf8'))?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect((await call('POST', '/console/api/register/verify', { email, code, password })).status).toBe(201);
    const session = (await call('POST', '/console/api/login', { email, password })).body.token as string;

    const [, opEmail, opPassword] = /sign in as (\S+) with the password (\S+) \(kept in/.exec(output) ?? [];
    const operator = await call('POST', '/console/api/login', { email: opEmail, password: opPassword });
    expect({ status: operator.status, role: operator.body.role }).toEqual({ status: 200, role: 'admin' });

    const [, payPage, payToken] =
      /pay a QR code shown in the console at (\S+), with the control token ([\w-]+)\./.exec(output) ?? [];
    const order = await call('POST', '/console/api/topups', { amount_cny: 35, provider: 'alipay' }, session);
    expect(order.status).toBe(201);
    expect(await (await fetch(payPage!)).text()).toContain(order.body.id as string);
    const paid = await fetch(payPage!, {
      method: 'POST',
      body: new URLSearchParams({
        vendor: 'alipay',
        out_trade_no: order.body.id as string,
        token: payToken!,
      }),
    });
    expect(paid.status).toBe(200);
    await waitFor(
      async () =>
        ((await call('GET', `/console/api/topups/${order.body.id}`, undefined, session)).body
          .status as string) === 'credited',
      { timeoutMs: 30_000, intervalMs: 250, what: 'the simulated top-up to be credited' },
    );

    // Ctrl-C (SIGINT to the foreground process group) stops everything with exit code 0.
    process.kill(-proc.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(output).not.toMatch(/ELIFECYCLE|npm error/);

    // Started again, the demo key's line says what is left after the video (5 - 0.25), and the
    // operator's password is the one kept
    let restarted = '';
    const second = spawn('bash', ['-c', command], {
      cwd: clone,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = second;
    exited = new Promise((resolve) => second.on('exit', (code) => resolve(code)));
    second.stdout!.on('data', (d) => (restarted += d));
    second.stderr!.on('data', (d) => (restarted += d));
    await Promise.race([
      waitFor(() => /Demo key \(/.test(restarted), {
        timeoutMs: 180_000,
        intervalMs: 250,
        what: 'the second banner',
      }),
      exited.then((c) =>
        Promise.reject(new Error(`the second start exited ${c}\n${restarted.slice(-3000)}`)),
      ),
    ]);
    expect(restarted).toMatch(/Demo key \(4\.75 USD of credit left\): sk-/);
    expect(restarted).toContain(`sign in as ${opEmail} with the password ${opPassword} `);
    process.kill(-second.pid!, 'SIGINT');
    expect(await exited).toBe(0);

    // with the toolchain first on PATH, as `bootstrap.mjs env` prints it, the toolchain stays as it is
    // (its Node, when the machine's was too old, is the `node` that runs the bootstrap then)
    const toolBin = path.join(clone, '.data', 'toolchain', 'node_modules', '.bin');
    const before = readdirSync(toolBin).sort();
    const again = spawnSync('sh', ['-c', 'node scripts/bootstrap.mjs env'], {
      cwd: clone,
      env: { ...env, PATH: `${toolBin}${path.delimiter}${PATH}` },
      encoding: 'utf8',
    });
    expect({ status: again.status, stderr: again.stderr }).toEqual({ status: 0, stderr: '' });
    expect(again.stdout).toContain(toolBin);
    expect(readdirSync(toolBin).sort()).toEqual(before);
  }, 600_000);
});
