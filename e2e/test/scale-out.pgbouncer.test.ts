import { testServiceUrls } from '@mediagate/shared/testing';
import { scaleOutSuite } from './scale-out';
import { startPgBouncer } from './scale-services';

/**
 * The scale-out proof with every process (API, workers, CLI) reaching Postgres through a real
 * PgBouncer in transaction pooling mode, without named prepared statements
 * (DATABASE_PREPARED_STATEMENTS=false), which PgBouncer before 1.21 cannot carry.
 */
jest.setTimeout(600_000);

// 300 tasks in `pnpm test` (SCALE_TASKS=1000 for the full run)

scaleOutSuite(async () => {
  const bouncer = await startPgBouncer((await testServiceUrls()).databaseUrl, 20);
  return {
    label: `through ${bouncer.describe}`,
    env: { DATABASE_PREPARED_STATEMENTS: 'false' },
    databaseUrl: bouncer.through,
    stop: bouncer.stop,
  };
}, 300);
