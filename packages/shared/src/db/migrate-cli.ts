import { baseEnvSchema, loadConfig } from '../config/env';
import { createDatabase } from './client';
import { ensureDatabaseExists } from './ensure-database';
import { runMigrations } from './migrate';

async function main(): Promise<void> {
  const config = loadConfig(baseEnvSchema, process.env, {
    requiredInProduction: {
      DATABASE_URL: 'the Postgres URL the migrations run on (direct, or a pooler in session mode)',
    },
  });
  await ensureDatabaseExists(config.DATABASE_URL);
  const database = createDatabase(config.DATABASE_URL, { max: 1 });
  try {
    await runMigrations(database.pool);
    process.stderr.write('migrations applied\n');
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
