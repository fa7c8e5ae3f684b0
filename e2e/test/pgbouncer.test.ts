import { createDatabase } from '@mediagate/shared/db';
import { getTask } from '@mediagate/shared/tasks';
import { createTestDatabase } from '@mediagate/shared/testing';
import { type OwnService, startPgBouncer } from './scale-services';

/**
 * Why DATABASE_PREPARED_STATEMENTS=false exists: behind PgBouncer 1.18 in transaction mode, the
 * task read (a named prepared statement) breaks as soon as a client's statements reach another
 * server connection; with the switch off the same reads all succeed.
 */
jest.setTimeout(60_000);

let bouncer: OwnService & { through: (direct: string) => string };
let testDb: { url: string; drop: () => Promise<void> };

beforeAll(async () => {
  testDb = await createTestDatabase();
  // two server connections for up to eight clients: statements cross connections all the time
  bouncer = await startPgBouncer(testDb.url, 2);
});
afterAll(async () => {
  await bouncer?.stop();
  await testDb?.drop();
});

async function readMany(preparedStatements: boolean): Promise<{ ok: number; errors: string[] }> {
  const database = createDatabase(bouncer.through(testDb.url), { max: 8, preparedStatements });
  const errors: string[] = [];
  let ok = 0;
  try {
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        Array.from({ length: 8 }, () =>
          getTask(database.db, 'task_00000000000000000000000000').then(
            (row) => {
              expect(row).toBeNull();
              ok += 1;
            },
            (err: Error) => errors.push(String((err.cause as Error | undefined)?.message ?? err.message)),
          ),
        ),
      );
    }
  } finally {
    await database.close();
  }
  return { ok, errors };
}

it('named prepared statements fail through a transaction pooler', async () => {
  const { errors } = await readMany(true);
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.join('\n')).toMatch(/prepared statement "mediagate_get_task"/);
});

it('with preparedStatements off every read succeeds', async () => {
  expect(await readMany(false)).toEqual({ ok: 80, errors: [] });
});
