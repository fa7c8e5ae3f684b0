// The Postgres and Redis that `pnpm test`, `pnpm bench` and `pnpm drills` use, found as `pnpm start`
// finds its own: TEST_DATABASE_URL / TEST_REDIS_URL when set; otherwise the servers of this
// checkout's configuration (DATABASE_URL / REDIS_URL from the environment, .env or what `pnpm start`
// recorded, else the local defaults), started locally like `pnpm start` does when nothing answers.
// The database `test` (or the one TEST_DATABASE_URL names) is created when missing. With neither a
// server nor the tools to start one, a Docker engine is used through testcontainers, and without
// one either the command stops and says what is missing.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ensurePostgres, ensureRedis, hostPort } from './local-services.mjs';
import { configEnv, DEFAULTS, root } from './runtime-config.mjs';

const dockerAnswers = () => spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates the database of `url` when its server answers without it. */
async function ensureDatabase(url) {
  const { Client } = createRequire(path.join(root, 'packages/shared/package.json'))('pg');
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new Client({
    connectionString: withDatabase(url, 'postgres'),
    connectionTimeoutMillis: 5_000,
  });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await admin.query(`create database "${name.replace(/"/g, '""')}"`).catch((e) => {
        if (e.code !== '42P04') throw e; // created meanwhile by a parallel run
      });
    }
  } finally {
    await admin.end();
  }
}

/**
 * `env` with TEST_DATABASE_URL / TEST_REDIS_URL filled in. `say(line)` reports a local service
 * started. Throws an Error naming what is missing when no service can be had.
 */
export async function withTestServices(env, say = () => {}) {
  const cfg = configEnv(env);
  const out = { ...env };
  const docker = () => dockerAnswers();
  let dbOrigin = 'TEST_DATABASE_URL';
  if (!out.TEST_DATABASE_URL) {
    const base = cfg.DATABASE_URL ?? DEFAULTS.DATABASE_URL;
    const origin = cfg.DATABASE_URL ? 'DATABASE_URL of this checkout' : 'default DATABASE_URL';
    dbOrigin = `the database test next to the ${origin}`;
    try {
      out.TEST_DATABASE_URL = withDatabase(await ensurePostgres(base, origin, say), 'test');
    } catch (err) {
      if (!docker()) {
        throw new Error(`${err.message} Or set TEST_DATABASE_URL, or run a Docker engine (testcontainers).`);
      }
    }
  }
  if (out.TEST_DATABASE_URL) {
    await ensureDatabase(out.TEST_DATABASE_URL).catch((err) => {
      const { host, port } = hostPort(out.TEST_DATABASE_URL, 5432);
      throw new Error(
        `Postgres at ${host}:${port} (${dbOrigin}) does not take connections: ${err.message}. Set TEST_DATABASE_URL to a server that does.`,
      );
    });
  }
  if (!out.TEST_REDIS_URL) {
    const base = cfg.REDIS_URL ?? DEFAULTS.REDIS_URL;
    const origin = cfg.REDIS_URL ? 'REDIS_URL of this checkout' : 'default REDIS_URL';
    try {
      out.TEST_REDIS_URL = await ensureRedis(base, origin, say);
    } catch (err) {
      if (!docker())
        throw new Error(`${err.message} Or set TEST_REDIS_URL, or run a Docker engine (testcontainers).`);
    }
  }
  return out;
}
