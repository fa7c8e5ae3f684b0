import { baseEnvSchema, loadConfig } from '../config/env';
import { createDatabase } from './client';
import { ensureDatabaseExists } from './ensure-database';
import { runMigrations } from './migrate';
import { MIGRATE_REQUIRED_IN_PRODUCTION } from './migrate-config';

async function main(): Promise<void> {
  const config = loadConfig(baseEnvSchema, process.env, {
    requiredInProduction: MIGRATE_REQUIRED_IN_PRODUCTION,
  });
  await ensureDatabaseExists(config.DATABASE_URL);
  const database = createDatabase(config.DATABASE_URL, { max: 1 });
  try {
    const backfills = await runMigrations(database.pool);
    process.stderr.write('migrations applied\n');
    for (const b of backfills) {
      const left = b.unparsed ? `, ${b.unparsed} left as they were (their text matched no known form)` : '';
      process.stderr.write(`backfill ${b.name}: ${b.updated} rows given their data${left}\n`);
    }
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
