import { readFileSync } from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type { Pool } from 'pg';
import { type BackfillReport, runBackfills } from './backfills';

export const MIGRATIONS_FOLDER = path.join(__dirname, '..', '..', 'migrations');
const MIGRATION_LOCK_KEY = 7_301_991_204;

/**
 * Applies every pending migration, then the backfills (`backfills.ts`: data changes run in short
 * batches after the migrations' one transaction), and answers what each backfill did. Safe to run
 * twice and from several processes at once: a Postgres advisory lock serializes runners, applied
 * migrations are recorded and skipped, and a backfill resumes where it got to.
 */
export async function runMigrations(pool: Pool): Promise<BackfillReport[]> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
      return await runBackfills(client);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/** True when every migration of this build is recorded as applied (readiness check). */
export async function migrationsApplied(pool: Pool): Promise<boolean> {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  try {
    const { rows } = await pool.query<{ n: string }>(
      'select count(*)::text as n from drizzle.__drizzle_migrations',
    );
    return Number(rows[0]?.n ?? 0) >= journal.entries.length;
  } catch {
    return false;
  }
}
