// `pnpm start`: builds, finds or brings up Postgres and Redis, migrates, and runs the whole
// service (upstream simulator, API, video worker, reconciler) in the foreground. Ctrl-C stops all.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = path.join(root, '.data');
const require = createRequire(path.join(root, 'packages/shared/package.json'));

const say = (msg) => process.stderr.write(`[start] ${msg}\n`);
const die = (msg) => {
  process.stderr.write(`[start] ${msg}\n`);
  process.exit(1);
};

function tcpAnswers(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const hostPort = (url, defPort) => {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || defPort) };
};

function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() || null;
}

function findPgBin(name) {
  const onPath = which(name);
  if (onPath) return onPath;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const p = path.join(base, v, 'bin', name);
    if (existsSync(p)) return p;
  }
  return null;
}

const dockerAnswers = () =>
  which('docker') && spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;

async function waitTcp(host, port, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await tcpAnswers(host, port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  die(`${what} did not come up on ${host}:${port}`);
}

// Postgres refuses to run as root: as root, run its tools as the `postgres` user.
function asPgUser(cmd, args) {
  if (process.getuid?.() !== 0) return [cmd, args];
  if (spawnSync('id', ['postgres'], { stdio: 'ignore' }).status !== 0) {
    die(
      'Postgres tools refuse to run as root and there is no postgres user; run pnpm start as a normal user or set DATABASE_URL.',
    );
  }
  spawnSync('chown', ['-R', 'postgres', dataDir]);
  return ['runuser', ['-u', 'postgres', '--', cmd, ...args]];
}

async function ensurePostgres(url) {
  const { host, port } = hostPort(url, 5432);
  if (await tcpAnswers(host, port)) return url;
  if (dockerAnswers()) {
    say('Postgres does not answer; starting it with docker compose');
    execFileSync('docker', ['compose', 'up', '-d', '--wait', 'postgres'], { stdio: 'inherit', cwd: root });
    return 'postgres://postgres:postgres@127.0.0.1:5432/mediagate';
  }
  const initdb = findPgBin('initdb');
  const pgCtl = findPgBin('pg_ctl');
  if (!initdb || !pgCtl) {
    die(
      `Postgres does not answer at ${host}:${port} and neither Docker nor Postgres (initdb, pg_ctl) is installed. Install PostgreSQL 15+ (e.g. apt install postgresql) or Docker, or set DATABASE_URL.`,
    );
  }
  const pgData = path.join(dataDir, 'postgres');
  const localPort = 54329;
  if (!existsSync(path.join(pgData, 'PG_VERSION'))) {
    say(`initialising a local Postgres cluster in ${pgData}`);
    mkdirSync(pgData, { recursive: true });
    execFileSync(...asPgUser(initdb, ['-D', pgData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']), {
      stdio: 'ignore',
    });
  }
  if (!(await tcpAnswers('127.0.0.1', localPort))) {
    say(`starting local Postgres on port ${localPort}`);
    execFileSync(
      ...asPgUser(pgCtl, [
        '-D',
        pgData,
        '-l',
        path.join(dataDir, 'postgres.log'),
        '-o',
        `-p ${localPort} -k ${dataDir} -c listen_addresses=127.0.0.1`,
        '-w',
        'start',
      ]),
      { stdio: 'ignore' },
    );
  }
  return `postgres://postgres@127.0.0.1:${localPort}/mediagate`;
}

async function ensureRedis(url) {
  const { host, port } = hostPort(url, 6379);
  if (await tcpAnswers(host, port)) return url;
  if (dockerAnswers()) {
    say('Redis does not answer; starting it with docker compose');
    execFileSync('docker', ['compose', 'up', '-d', '--wait', 'redis'], { stdio: 'inherit', cwd: root });
    return 'redis://127.0.0.1:6379';
  }
  const redisServer = which('redis-server');
  if (!redisServer) {
    die(
      `Redis does not answer at ${host}:${port} and neither Docker nor redis-server is installed. Install Redis 7 (e.g. apt install redis-server) or Docker, or set REDIS_URL.`,
    );
  }
  const localPort = 63799;
  if (!(await tcpAnswers('127.0.0.1', localPort))) {
    const dir = path.join(dataDir, 'redis');
    mkdirSync(dir, { recursive: true });
    say(`starting local redis-server on port ${localPort} (data in ${dir})`);
    execFileSync(redisServer, [
      '--daemonize',
      'yes',
      '--bind',
      '127.0.0.1',
      '--port',
      String(localPort),
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--maxmemory-policy',
      'noeviction',
      '--logfile',
      path.join(dir, 'redis.log'),
    ]);
    await waitTcp('127.0.0.1', localPort, 'redis-server');
  }
  return `redis://127.0.0.1:${localPort}`;
}

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) die(`${cmd} ${args.join(' ')} failed`);
  return r.stdout;
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  say('building');
  const build = spawnSync('pnpm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) die('build failed');

  const databaseUrl = await ensurePostgres(
    process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mediagate',
  );
  const redisUrl = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const apiPort = process.env.PORT ?? '8080';
  const simPort = process.env.SIM_PORT ?? '8090';
  // QR top-ups against the payment simulator, with keys made now, unless real providers are configured
  const paySimPort = process.env.PAYSIM_PORT ?? '8091';
  const payKeys = process.env.ALIPAY_APP_ID || process.env.WECHATPAY_MCHID ? null
    : require(path.join(root, 'apps/payment-sim/dist/keys.js')).generatePaymentKeys({ withCertificate: false });
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    DASHSCOPE_BASE_URL: process.env.DASHSCOPE_BASE_URL ?? `http://127.0.0.1:${simPort}`,
    ARK_BASE_URL: process.env.ARK_BASE_URL ?? `http://127.0.0.1:${simPort}`,
    // The simulator's default timings make a demo task finish in seconds; poll accordingly.
    VIDEO_POLL_INTERVAL_MS: process.env.VIDEO_POLL_INTERVAL_MS ?? '2000',
    ...(payKeys && { ...payKeys.merchant, ALIPAY_GATEWAY: `http://127.0.0.1:${paySimPort}/gateway.do`,
      WECHATPAY_BASE_URL: `http://127.0.0.1:${paySimPort}`, PAYMENT_NOTIFY_BASE_URL: process.env.PAYMENT_NOTIFY_BASE_URL ?? `http://127.0.0.1:${apiPort}` }),
  };
  say(`Postgres ${databaseUrl.replace(/\/\/[^@]*@/, '//')}, Redis ${redisUrl}`);
  say('migrating');
  run('node', ['packages/shared/dist/db/migrate-cli.js'], env);

  const keyFile = path.join(dataDir, `demo-key-${Buffer.from(databaseUrl).toString('base64url').slice(-12)}`);
  let key = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  if (!key) {
    key = run(
      'node',
      [
        'packages/shared/dist/cli/main.js',
        'account:create',
        '--email',
        `demo-${Date.now()}@localhost`,
        '--balance-usd',
        '5',
      ],
      env,
    ).trim();
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  }

  const procs = [
    ['sim', 'apps/upstream-sim/dist/main.js', [], { SIM_PORT: simPort }],
    ...(payKeys ? [['paysim', 'apps/payment-sim/dist/main.js', [], { PAYSIM_PORT: paySimPort, ...payKeys.sim }]] : []),
    ['api', 'apps/api/dist/server.js', [], { PORT: apiPort }],
    ['video', 'apps/worker/dist/main.js', ['--role=video'], { WORKER_HTTP_PORT: '9101' }],
    ['reconciler', 'apps/worker/dist/main.js', ['--role=reconciler'], { WORKER_HTTP_PORT: '9102' }],
    ['callbacks', 'apps/worker/dist/main.js', ['--role=callbacks'], { WORKER_HTTP_PORT: '9103' }],
  ].map(([name, entry, args, extra]) => {
    const child = spawn(process.execPath, [entry, ...args], {
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
        for (const l of lines) process.stdout.write(prefix + l + '\n');
      });
    }
    child.on('exit', (code, signal) => {
      say(`${name} exited (${signal ?? code})`);
      if (!stopping) stopAll(1);
    });
    return child;
  });

  let stopping = false;
  function stopAll(code = 0) {
    stopping = true;
    for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
    setTimeout(() => process.exit(code), 3000).unref();
    Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : null))).then(
      () => process.exit(code),
    );
  }
  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));

  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${apiPort}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const base = `http://127.0.0.1:${apiPort}`;
  process.stdout.write(`
mediagate is running at ${base} (upstream simulator at http://127.0.0.1:${simPort}). Ctrl-C stops it.
Demo key (5 USD of credit): ${key}

Create a video task, then poll it until it has a video_url:

  curl -s ${base}/v1/videos -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" \\
    -d '{"model":"wan2.6-i2v-flash-5s-720p","prompt":"a cat walks across a sunny garden","metadata":{"input":{"img_url":"https://example.com/cat.png"}}}'

  curl -s ${base}/v1/videos/<task id> -H "Authorization: Bearer ${key}"

Generate images (synchronous; GET ${base}/v1/models lists every model and what it accepts):

  curl -s ${base}/v1/images/generations -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" \\
    -d '{"model":"seedream-4.0","prompt":"a lighthouse at dawn","n":2,"size":"1K"}'

`);
}

main().catch((err) => die(err.stack ?? String(err)));
