// Postgres and Redis for `pnpm start` and `pnpm test`: the URL given when something answers there;
// otherwise, for a local URL, a Postgres cluster (initdb/pg_ctl) and a redis-server of this
// checkout, on the port of that URL, with their data under .data/. `pnpm stop` stops them.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { dataDir } from './runtime-config.mjs';

const pgData = path.join(dataDir, 'postgres');
const redisDir = path.join(dataDir, 'redis');
const startedFile = path.join(dataDir, 'local-services.json');

export function tcpAnswers(host, port, timeoutMs = 1000) {
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

export function hostPort(url, defPort) {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(u.port || defPort) };
}

const isLocal = (host) => ['127.0.0.1', 'localhost', '::1', '0.0.0.0'].includes(host);

function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() || null;
}

function findPgBin(name) {
  const onPath = which(name);
  if (onPath) return onPath;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  for (const v of readdirSync(base).sort((a, b) => Number(b) - Number(a))) {
    const p = path.join(base, v, 'bin', name);
    if (existsSync(p)) return p;
  }
  return null;
}

async function waitTcp(host, port, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await tcpAnswers(host, port)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

// Postgres refuses to run as root: as root, its tools run as the `postgres` user.
function asPgUser(cmd, args) {
  if (process.getuid?.() !== 0) return [cmd, args];
  if (spawnSync('id', ['postgres'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      'Postgres tools refuse to run as root and there is no postgres user; run as a normal user or set DATABASE_URL.',
    );
  }
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
  chownSync(dataDir, uid, -1);
  if (existsSync(pgData)) spawnSync('chown', ['-R', 'postgres', pgData]);
  return ['runuser', ['-u', 'postgres', '--', cmd, ...args]];
}

const readStarted = () => {
  try {
    return JSON.parse(readFileSync(startedFile, 'utf8'));
  } catch {
    return {};
  }
};
const recordStarted = (what, info) => {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(startedFile, `${JSON.stringify({ ...readStarted(), [what]: info }, null, 2)}\n`);
};

/**
 * The Postgres URL to use: `url` when its server answers, else a local cluster on its port.
 * `given` names where the URL came from, for the one line that says why it falls back.
 */
export async function ensurePostgres(url, given, say) {
  const { host, port } = hostPort(url, 5432);
  if (await tcpAnswers(host, port)) return url;
  if (!isLocal(host)) {
    throw new Error(
      `Postgres does not answer at ${host}:${port} (${given}); start it or set DATABASE_URL to one that answers.`,
    );
  }
  const initdb = findPgBin('initdb');
  const pgCtl = findPgBin('pg_ctl');
  if (!initdb || !pgCtl) {
    throw new Error(
      `Postgres does not answer at ${host}:${port} (${given}) and its tools (initdb, pg_ctl) are not installed to start one here. Install PostgreSQL 15+ (e.g. apt install postgresql) or set DATABASE_URL to a server that answers.`,
    );
  }
  say(
    `Postgres: nothing answers at ${host}:${port} (${given}); starting a local one on that port (data in .data/postgres; pnpm stop stops it)`,
  );
  const u = new URL(url);
  const user = decodeURIComponent(u.username) || 'postgres';
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(path.join(pgData, 'PG_VERSION'))) {
    rmSync(pgData, { recursive: true, force: true });
    mkdirSync(pgData, { recursive: true });
    execFileSync(...asPgUser(initdb, ['-D', pgData, '-U', user, '--auth=trust', '-E', 'UTF8', '--no-sync']), {
      stdio: 'ignore',
    });
  }
  const logFile = path.join(dataDir, 'postgres.log');
  const r = spawnSync(
    ...asPgUser(pgCtl, [
      '-D',
      pgData,
      '-l',
      logFile,
      '-o',
      `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      '-w',
      'start',
    ]),
    { encoding: 'utf8' },
  );
  if (r.status !== 0) {
    throw new Error(`the local Postgres did not start (${(r.stderr || r.stdout).trim()}); see ${logFile}`);
  }
  recordStarted('postgres', { port, pgCtl, pgData });
  u.hostname = '127.0.0.1';
  u.username = user;
  return u.toString();
}

/** The Redis URL to use: `url` when it answers, else a local redis-server on its port. */
export async function ensureRedis(url, given, say) {
  const { host, port } = hostPort(url, 6379);
  if (await tcpAnswers(host, port)) return url;
  if (!isLocal(host)) {
    throw new Error(
      `Redis does not answer at ${host}:${port} (${given}); start it or set REDIS_URL to one that answers.`,
    );
  }
  const redisServer = which('redis-server');
  if (!redisServer) {
    throw new Error(
      `Redis does not answer at ${host}:${port} (${given}) and redis-server is not installed to start one here. Install Redis 7 (e.g. apt install redis-server) or set REDIS_URL to a server that answers.`,
    );
  }
  say(
    `Redis: nothing answers at ${host}:${port} (${given}); starting a local redis-server on that port (data in .data/redis; pnpm stop stops it)`,
  );
  mkdirSync(redisDir, { recursive: true });
  const pidFile = path.join(redisDir, 'redis.pid');
  execFileSync(redisServer, [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    redisDir,
    '--pidfile',
    pidFile,
    '--appendonly',
    'yes',
    '--maxmemory-policy',
    'noeviction',
    '--logfile',
    path.join(redisDir, 'redis.log'),
  ]);
  if (!(await waitTcp('127.0.0.1', port)))
    throw new Error(`redis-server did not come up on port ${port}; see .data/redis/redis.log`);
  recordStarted('redis', { port, pidFile });
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  return u.toString();
}

/** Stops the Postgres and Redis that the fallback started. Returns what it stopped. */
export function stopLocalServices(say) {
  const started = readStarted();
  const stopped = [];
  if (started.postgres && existsSync(path.join(pgData, 'postmaster.pid'))) {
    const r = spawnSync(...asPgUser(started.postgres.pgCtl, ['-D', pgData, '-m', 'fast', '-w', 'stop']), {
      encoding: 'utf8',
    });
    if (r.status === 0) stopped.push(`Postgres on port ${started.postgres.port}`);
    else say(`pg_ctl stop: ${(r.stderr || r.stdout).trim()}`);
  }
  if (started.redis && existsSync(started.redis.pidFile)) {
    const pid = Number(readFileSync(started.redis.pidFile, 'utf8'));
    try {
      process.kill(pid, 'SIGTERM');
      stopped.push(`redis-server on port ${started.redis.port}`);
    } catch (err) {
      if (err.code !== 'ESRCH') throw err;
    }
  }
  rmSync(startedFile, { force: true });
  return stopped;
}
