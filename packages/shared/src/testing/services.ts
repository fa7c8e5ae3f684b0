import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase, type Database } from '../db/client';
import { MIGRATIONS_FOLDER, runMigrations } from '../db/migrate';

interface ServiceUrls {
  databaseUrl: string;
  redisUrl: string;
}

let containers: Promise<ServiceUrls> | undefined;

/**
 * Where the tests' Postgres and Redis are: TEST_DATABASE_URL / TEST_REDIS_URL when set (CI),
 * otherwise containers started with testcontainers, otherwise an error saying how to provide them.
 */
export async function testServiceUrls(): Promise<ServiceUrls> {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.TEST_REDIS_URL;
  if (databaseUrl && redisUrl) return { databaseUrl, redisUrl };
  containers ??= startContainers(databaseUrl, redisUrl);
  return containers;
}

async function startContainers(databaseUrl?: string, redisUrl?: string): Promise<ServiceUrls> {
  try {
    const { GenericContainer } = await import('testcontainers');
    let db = databaseUrl;
    if (!db) {
      const pg = await new GenericContainer('postgres:16-alpine')
        .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'test' })
        .withExposedPorts(5432)
        .start();
      db = `postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/test`;
    }
    let redis = redisUrl;
    if (!redis) {
      const r = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
      redis = `redis://${r.getHost()}:${r.getMappedPort(6379)}`;
    }
    return { databaseUrl: db, redisUrl: redis };
  } catch (err) {
    throw new Error(
      'Tests need Postgres and Redis. Set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) and ' +
        'TEST_REDIS_URL (e.g. redis://127.0.0.1:6379), or run a Docker engine for testcontainers. ' +
        `Starting containers failed: ${(err as Error).message}`,
    );
  }
}

function migrationsHash(): string {
  const h = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_FOLDER)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    h.update(f).update(readFileSync(path.join(MIGRATIONS_FOLDER, f)));
  }
  return h.digest('hex').slice(0, 12);
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const TEMPLATE_LOCK = 7_301_991_205;

/**
 * A fresh database for one test file, cloned from a template that holds every migration (the
 * template is built once per migration set). Returns its URL and a function that drops it.
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const { databaseUrl } = await testServiceUrls();
  const template = `mgtpl_${migrationsHash()}`;
  const name = `mgt_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
      if (exists.rowCount === 0) {
        await admin.query(`create database ${template}_build`).catch(async (e: { code?: string }) => {
          if (e.code !== '42P04') throw e;
          await admin.query(`drop database ${template}_build with (force)`);
          await admin.query(`create database ${template}_build`);
        });
        const built = createDatabase(withDatabase(databaseUrl, `${template}_build`), { max: 1 });
        try {
          await runMigrations(built.pool);
        } finally {
          await built.close();
        }
        await admin.query(`alter database ${template}_build rename to ${template}`);
      }
      await admin.query(`create database ${name} template ${template}`);
    } finally {
      await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(databaseUrl, name),
    drop: async () => {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A BullMQ key prefix no other test file or run uses. */
export function testQueuePrefix(): string {
  return `{mgtest-${randomUUID().slice(0, 8)}}`;
}

/**
 * A fresh test database (see createTestDatabase) already opened; its `close()` also drops it.
 * The usual per-file lifecycle: open in beforeAll, close in afterAll.
 */
export async function openTestDatabase(opts: { max?: number } = {}): Promise<Database> {
  const t = await createTestDatabase();
  const database = createDatabase(t.url, { max: opts.max ?? 20 });
  return {
    ...database,
    close: async () => {
      await database.close();
      await t.drop();
    },
  };
}
