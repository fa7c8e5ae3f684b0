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
});
