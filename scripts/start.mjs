// `pnpm start` (through scripts/bootstrap.mjs): builds, finds or brings up Postgres and Redis,
// migrates, and runs the whole service (upstream simulator, API, video worker, reconciler, callbacks
// dispatcher) in the foreground, with one progress line per phase. Ctrl-C stops every process and
// exits 0; the local Postgres and Redis it may have started keep running (`pnpm stop`).
//
// Configuration is resolved once: the environment, then `.env`, then the defaults (or the local
// fallback services); what was chosen is written to .data/runtime.env for every other command.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildConsole, buildRuntime } from './build-runtime.mjs';
import { ensurePostgres, ensureRedis, tcpAnswers } from './local-services.mjs';
import {
  DEFAULTS,
  dataDir,
  dotEnv,
  knownVariables,
  root,
  START_VARIABLES,
  writeRuntimeEnv,
} from './runtime-config.mjs';

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`.padStart(7);
const say = (msg) => process.stderr.write(`[start] ${elapsed()}  ${msg}\n`);
const die = (msg) => {
  process.stderr.write(`[start] ${msg}\n`);
  process.exit(1);
};
const pidFile = path.join(dataDir, 'start.pid');

function run(what, args, env) {
  const r = spawnSync(process.execPath, args, {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.status !== 0) die(`${what} failed:\n${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** `run` without blocking, so it overlaps the start of the processes; `input` goes to its stdin. */
function runAsync(what, args, env, input) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin.end(input);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : die(`${what} failed:\n${(err || out).trim()}`)));
  });
}

/** A secret of this checkout kept in .data/<name> (owner-only), made at its first use. */
function localSecret(name) {
  const file = path.join(dataDir, name);
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (kept) return kept;
  const made = randomBytes(12).toString('base64url');
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  return made;
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  const fileEnv = dotEnv();
  const input = { ...fileEnv, ...process.env };
  const value = (name) => input[name] ?? DEFAULTS[name];
  const origin = (name) =>
    name in process.env
      ? `${name} from the environment`
      : name in fileEnv
        ? `${name} from .env`
        : `default ${name}`;

  // Ports first: a second stack on the same ports stops here, saying which variable to change.
  const ports = { PORT: value('PORT'), SIM_PORT: value('SIM_PORT'), PAYSIM_PORT: value('PAYSIM_PORT') };
  for (const v of START_VARIABLES) ports[v.name] = value(v.name);
  for (const [name, port] of Object.entries(ports)) {
    if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535)
      die(`${name}=${port} is not a port (1-65535)`);
    if (await tcpAnswers('127.0.0.1', Number(port), 300)) {
      die(
        `port ${port} (${origin(name)}) is in use (another mediagate?); set ${name} to a free port in the environment or .env`,
      );
    }
  }

  // Build: swc, only what changed (the type check is `pnpm typecheck`).
  await buildRuntime(say);
  await buildConsole(say);

  // Postgres and Redis: the URLs given when they answer, else local ones on their ports.
  const given = {};
  const databaseUrl = await ensurePostgres(value('DATABASE_URL'), origin('DATABASE_URL'), say).catch((e) =>
    die(e.message),
  );
  if (databaseUrl !== value('DATABASE_URL')) given.DATABASE_URL = value('DATABASE_URL');
  const redisUrl = await ensureRedis(value('REDIS_URL'), origin('REDIS_URL'), say).catch((e) =>
    die(e.message),
  );
  if (redisUrl !== value('REDIS_URL')) given.REDIS_URL = value('REDIS_URL');
  say(
    `Postgres ${databaseUrl.replace(/\/\/([^:@/]*)(:[^@]*)?@/, '//$1@')}, Redis ${redisUrl.replace(/\/\/[^@]*@/, '//')}`,
  );

  const simUrl = `http://127.0.0.1:${ports.SIM_PORT}`;
  const chosen = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    ...ports,
    DASHSCOPE_BASE_URL: input.DASHSCOPE_BASE_URL ?? simUrl,
    ARK_BASE_URL: input.ARK_BASE_URL ?? simUrl,
    // The simulator's default timings finish a demo task in seconds; poll accordingly.
    VIDEO_POLL_INTERVAL_MS: input.VIDEO_POLL_INTERVAL_MS ?? '2000',
    // Media links in task objects point at this API.
    PUBLIC_BASE_URL: input.PUBLIC_BASE_URL ?? `http://127.0.0.1:${ports.PORT}`,
    MEDIA_DIR: input.MEDIA_DIR ?? path.join(dataDir, 'media'),
    // The simulator keeps its tasks across restarts, as a vendor does.
    SIM_STATE_FILE: input.SIM_STATE_FILE ?? path.join(dataDir, 'upstream-sim', 'tasks.json'),
    // The simulators listen on loopback; their control APIs (faults, paying an order) take these
    // tokens, made at each start unless given, and recorded in .data/runtime.env (mode 0600).
    SIM_CONTROL_TOKEN: input.SIM_CONTROL_TOKEN ?? randomBytes(24).toString('base64url'),
    PAYSIM_CONTROL_TOKEN: input.PAYSIM_CONTROL_TOKEN ?? randomBytes(24).toString('base64url'),
  };
  // QR top-ups go to the payment simulator, with key pairs made at each start, unless a real
  // provider is configured (ALIPAY_APP_ID or WECHATPAY_MCHID).
  const payKeys =
    input.ALIPAY_APP_ID || input.WECHATPAY_MCHID
      ? null
      : createRequire(import.meta.url)(path.join(root, 'apps/payment-sim/dist/keys.js')).generatePaymentKeys({
          withCertificate: false,
        });
  const paySimUrl = `http://127.0.0.1:${ports.PAYSIM_PORT}`;
  const payEnv = payKeys
    ? {
        ...payKeys.merchant,
        ALIPAY_GATEWAY: `${paySimUrl}/gateway.do`,
        WECHATPAY_BASE_URL: paySimUrl,
        PAYMENT_NOTIFY_BASE_URL: input.PAYMENT_NOTIFY_BASE_URL ?? `http://127.0.0.1:${ports.PORT}`,
      }
    : {};
  const known = knownVariables();
  const recorded = Object.fromEntries(Object.entries(input).filter(([k]) => known.has(k)));
  writeRuntimeEnv({ ...recorded, ...chosen }, given);
  // Node keeps the compiled code of every module here, so a restart loads faster.
  // A development stack: NODE_ENV=development (unless given) lets the processes sign media links
  // with the development secret when MEDIA_SIGNING_SECRET is unset; they say so in their log.
  // Development e-mails (codes, resets) are written to files unless SMTP_URL sends them; an
  // operator account is made unless one is configured (its password kept for the next start).
  // Neither goes to .data/runtime.env: tests and other commands keep their own.
  const mailDir = input.SMTP_URL ? null : (input.MAIL_DIR ?? path.join(dataDir, 'mail'));
  // A generated password only for the development operator: an ADMIN_EMAIL given without
  // ADMIN_PASSWORD may name an existing account, whose password is never replaced by one made here.
  const operator = {
    email: input.ADMIN_EMAIL ?? 'operator@mediagate.localhost',
    password:
      input.ADMIN_PASSWORD ??
      (input.ADMIN_EMAIL === undefined ? localSecret('operator-password') : undefined),
    generated: input.ADMIN_PASSWORD === undefined && input.ADMIN_EMAIL === undefined,
  };
  const env = {
    NODE_COMPILE_CACHE: path.join(dataDir, 'compile-cache'),
    NODE_ENV: 'development',
    ...(mailDir ? { MAIL_DIR: mailDir } : {}),
    ...input,
    ADMIN_EMAIL: operator.email,
    ...(operator.password === undefined ? {} : { ADMIN_PASSWORD: operator.password }),
    ...chosen,
    ...payEnv,
  };

  say('migrating');
  run('migration', ['packages/shared/dist/db/migrate-cli.js'], env);
  say('migrations applied');

  const keyFile = path.join(
    dataDir,
    `demo-key-${createHash('sha256').update(databaseUrl).digest('hex').slice(0, 12)}`,
  );
  const saved = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  const newKey = async () => {
    const out = await runAsync(
      'creating the demo account',
      [
        'packages/shared/dist/cli/main.js',
        'account:create',
        '--email',
        `demo-${Date.now()}@localhost`,
        '--balance-usd',
        '5',
      ],
      env,
    );
    const k = out.trim();
    writeFileSync(keyFile, `${k}\n`, { mode: 0o600 });
    return k;
  };
  /** What is left of the demo key's credit, e.g. "4.75"; null when no key matches (a dropped database). */
  const balanceOf = async (k) => {
    const out = await runAsync(
      "reading the demo key's balance",
      ['packages/shared/dist/cli/main.js', 'account:find', '--key', '-', '--json'],
      env,
      `${k}\n`,
    ).catch(() => null);
    const micro = out ? JSON.parse(out).account?.balanceMicroUsd : undefined;
    if (typeof micro !== 'number') return null;
    return (micro / 1_000_000).toFixed(micro % 10_000 === 0 ? 2 : 6);
  };
  // the V8 flags every process ships with (the image sets the same in NODE_OPTIONS)
  const { NODE_FLAGS: nodeFlags } = createRequire(import.meta.url)(
    path.join(root, 'packages/shared/dist/config/node-flags.js'),
  );
  // The demo account is created while the processes start.
  const keyPromise = saved ? Promise.resolve(saved) : newKey();

  let stopping = false;
  const procs = [
    ['sim', 'apps/upstream-sim/dist/main.js', [], {}, ports.SIM_PORT, '/healthz'],
    ...(payKeys
      ? [['paysim', 'apps/payment-sim/dist/main.js', [], payKeys.sim, ports.PAYSIM_PORT, '/healthz']]
      : []),
    ['api', 'apps/api/dist/server.js', [], {}, ports.PORT, '/readyz'],
    [
      'video',
      'apps/worker/dist/main.js',
      ['--role=video'],
      { WORKER_HTTP_PORT: ports.WORKER_VIDEO_HTTP_PORT },
      ports.WORKER_VIDEO_HTTP_PORT,
      '/readyz',
    ],
    [
      'reconciler',
      'apps/worker/dist/main.js',
      ['--role=reconciler'],
      { WORKER_HTTP_PORT: ports.WORKER_RECONCILER_HTTP_PORT },
      ports.WORKER_RECONCILER_HTTP_PORT,
      '/readyz',
    ],
    [
      'callbacks',
      'apps/worker/dist/main.js',
      ['--role=callbacks'],
      { WORKER_HTTP_PORT: ports.WORKER_CALLBACKS_HTTP_PORT },
      ports.WORKER_CALLBACKS_HTTP_PORT,
      '/readyz',
    ],
  ].map(([name, entry, args, extra, port, probe]) => {
    const child = spawn(process.execPath, [...nodeFlags, entry, ...args], {
      cwd: root,
      env: { ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const prefix = `${name.padEnd(10)} | `;
    for (const stream of [child.stdout, child.stderr]) {
      let buf = '';
      stream.on('data', (d) => {
        buf += d;
        const lines = buf.split('\n');
        buf = lines.pop();
        for (const l of lines) process.stdout.write(`${prefix}${l}\n`);
      });
    }
    child.on('exit', (code, signal) => {
      if (stopping) return;
      process.stderr.write(`[start] ${name} exited (${signal ?? code}); stopping the others\n`);
      stopAll(1);
    });
    return { name, child, url: `http://127.0.0.1:${port}${probe}` };
  });
  writeFileSync(pidFile, `${process.pid}\n`);

  function stopAll(code) {
    if (stopping) return;
    stopping = true;
    const alive = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of alive) p.child.kill('SIGTERM');
    const finish = () => {
      rmSync(pidFile, { force: true });
      if (code === 0)
        process.stderr.write(
          '[start] stopped. Local Postgres and Redis, if started here, keep running: pnpm stop stops them.\n',
        );
      process.exit(code);
    };
    setTimeout(finish, 30_000).unref();
    Promise.all(
      alive.map((p) => (p.child.exitCode === null ? new Promise((r) => p.child.once('exit', r)) : null)),
    ).then(finish);
  }
  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));
  process.on('SIGHUP', () => stopAll(0));

  say(
    'starting the upstream simulator, the API, the video worker, the reconciler and the callbacks dispatcher',
  );
  await Promise.all(
    procs.map(async (p) => {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && !stopping) {
        const ok = await fetch(p.url).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return say(`${p.name} ready (${p.url.replace(/\/(healthz|readyz)$/, '')})`);
        await new Promise((r) => setTimeout(r, 200));
      }
      if (!stopping) {
        process.stderr.write(`[start] ${p.name} did not answer ${p.url} within 60 s; stopping\n`);
        stopAll(1);
      }
    }),
  );
  if (stopping) return;

  const base = `http://127.0.0.1:${ports.PORT}`;
  let key = await keyPromise;
  // A demo key of a database that was since dropped is replaced.
  const keyWorks = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then(
    (r) => r.status !== 401,
    () => true,
  );
  if (!keyWorks) key = await newKey();
  const balance = (await balanceOf(key)) ?? '?';
  say('ready');
  const shown = (p) => (p.startsWith(`${root}${path.sep}`) ? path.relative(root, p) : p);
  const doors = [
    mailDir
      ? `E-mails are not sent (no SMTP_URL): each one (sign-up codes, password resets) is written to ${shown(mailDir)}${path.sep}, one .eml file per message.`
      : 'E-mails are sent through SMTP_URL.',
    operator.generated
      ? `Operator pages (${base}/admin): sign in as ${operator.email} with the password ${operator.password} (kept in ${shown(path.join(dataDir, 'operator-password'))}; ADMIN_EMAIL and ADMIN_PASSWORD choose others).`
      : operator.password === undefined
        ? `Operator pages (${base}/admin): no operator account is made for ${operator.email} without ADMIN_PASSWORD (an existing operator signs in as before).`
        : `Operator pages (${base}/admin): sign in as ${operator.email} with ADMIN_PASSWORD.`,
    payKeys
      ? `Top-ups go to the payment simulator: pay a QR code shown in the console at ${paySimUrl}/_pay, with the control token ${chosen.PAYSIM_CONTROL_TOKEN}.`
      : null,
  ].filter(Boolean);
  process.stdout.write(`
mediagate is running at ${base} (upstream simulator at ${simUrl}). Ctrl-C stops it.
Web console (sign up, keys, top-ups, tasks): ${base}/
Demo key (${balance} USD of credit left): ${key}

${doors.join('\n')}

Create a video task, then poll it until it has a video_url:

  curl -s ${base}/v1/videos -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" \\
    -d '{"model":"wan2.6-i2v-flash-5s-720p","prompt":"a cat walks across a sunny garden","metadata":{"input":{"img_url":"https://example.com/cat.png"}}}'

  curl -s ${base}/v1/videos/<task id> -H "Authorization: Bearer ${key}"

Generate images (synchronous; GET ${base}/v1/models lists every model and what it accepts):

  curl -s ${base}/v1/images/generations -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" \\
    -d '{"model":"seedream-4.0","prompt":"a lighthouse at dawn","n":2,"size":"1K"}'

Other commands of this checkout (pnpm cli, pnpm db:migrate, pnpm bench) use this configuration (.data/runtime.env).

`);
}

main().catch((err) => die(err.stack ?? String(err)));
