import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase } from '../testing/services';
import { createDatabase } from './client';
import { migrationsApplied, runMigrations } from './migrate';

describe('migrations', () => {
  it('run twice, and concurrently, without error or change', async () => {
    const testDb = await createTestDatabase();
    const database = createDatabase(testDb.url, { max: 4 });
    try {
      // the test database comes migrated from its template; run again, three at once
      await Promise.all([
        runMigrations(database.pool),
        runMigrations(database.pool),
        runMigrations(database.pool),
      ]);
      await runMigrations(database.pool);
      expect(await migrationsApplied(database.pool)).toBe(true);
      const { rows } = await database.pool.query(
        `select table_name from information_schema.tables where table_schema = 'public' order by 1`,
      );
      expect(rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(['accounts', 'api_keys', 'ledger_entries', 'tasks']),
      );
    } finally {
      await database.close();
      await testDb.drop();
    }
  });

  it('reports an empty database as not migrated', async () => {
    const testDb = await createTestDatabase();
    const database = createDatabase(testDb.url, { max: 1 });
    try {
      await database.pool.query('drop schema drizzle cascade');
      expect(await migrationsApplied(database.pool)).toBe(false);
    } finally {
      await database.close();
      await testDb.drop();
    }
  });

  it('are journaled in order: each file once, each time after the one before', () => {
    // drizzle applies a migration only when its journal time is after the last one a database
    // recorded: a migration timed before an earlier one would be skipped where that one ran
    const dir = join(__dirname, '../../migrations');
    const journal = JSON.parse(readFileSync(join(dir, 'meta/_journal.json'), 'utf8')) as {
      entries: { tag: string; when: number }[];
    };
    const tags = journal.entries.map((e) => e.tag);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.slice(0, -'.sql'.length))
      .sort();
    expect(tags).toEqual(files);
    for (let i = 1; i < journal.entries.length; i += 1) {
      const [before, entry] = [journal.entries[i - 1]!, journal.entries[i]!];
      expect({ tag: entry.tag, after: before.tag, later: entry.when > before.when }).toEqual({
        tag: entry.tag,
        after: before.tag,
        later: true,
      });
    }
  });
});
