import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import { createTestDatabase } from '../testing/services';
import { createDatabase, type Database } from './client';
import { databaseFaultOf, databaseRetryLogLevel, isTransientDbError } from './transient';

/** what `run` throws (it must throw) */
async function thrownBy(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('isTransientDbError, on what Postgres and node-postgres really throw', () => {
  let t: { url: string; drop: () => Promise<void> };
  let database: Database;
  beforeAll(async () => {
    t = await createTestDatabase();
    database = createDatabase(t.url, { max: 2 });
    await database.pool.query('create table held (id int primary key)');
    await database.pool.query('insert into held values (1)');
  });
  afterAll(async () => {
    await database?.close();
    await t?.drop();
  });

  it('answers true for a backend terminated by an administrator (57P01), through drizzle', async () => {
    const err = await thrownBy(() => database.db.execute(sql`select pg_terminate_backend(pg_backend_pid())`));
    expect(isTransientDbError(err)).toBe(true);
  });

  it("is logged by its code and the server's message, without the statement or its parameters", async () => {
    const err = await thrownBy(() =>
      database.db.execute(sql`select pg_terminate_backend(pg_backend_pid()), ${'a customer secret'}::text`),
    );
    expect(String((err as Error).message)).toContain('a customer secret');
    const fault = databaseFaultOf(err);
    expect(fault.code).toBe('57P01');
    expect(fault.message).toMatch(/terminat/);
    expect(JSON.stringify(fault)).not.toContain('a customer secret');
    expect(JSON.stringify(fault)).not.toContain('select');
  });

  it('answers true for a statement timeout (57014) and a lock timeout (55P03)', async () => {
    const holder = new Client({ connectionString: t.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select * from held for update');
      const locked = await thrownBy(() =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`set local lock_timeout = '50ms'`);
          await tx.execute(sql`update held set id = 1`);
        }),
      );
      expect(isTransientDbError(locked)).toBe(true);
      const slow = await thrownBy(() =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`set local statement_timeout = '50ms'`);
          await tx.execute(sql`select pg_sleep(1)`);
        }),
      );
      expect(isTransientDbError(slow)).toBe(true);
    } finally {
      await holder.end();
    }
  });

  it('answers true for a refused connection and a pool with no connection in time', async () => {
    const closed = createDatabase('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    try {
      expect(isTransientDbError(await thrownBy(() => closed.db.execute(sql`select 1`)))).toBe(true);
    } finally {
      await closed.close();
    }
    const small = createDatabase(t.url, { max: 1, connectionTimeoutMillis: 50 });
    const busy = await small.pool.connect();
    try {
      expect(isTransientDbError(await thrownBy(() => small.db.execute(sql`select 1`)))).toBe(true);
    } finally {
      busy.release();
      await small.close();
    }
  });

  it('answers false for an error of the statement or the data', async () => {
    expect(
      isTransientDbError(await thrownBy(() => database.db.execute(sql`insert into held values (1)`))),
    ).toBe(false);
    expect(isTransientDbError(await thrownBy(() => database.db.execute(sql`selec 1`)))).toBe(false);
    expect(isTransientDbError(new Error('something else'))).toBe(false);
    expect(isTransientDbError(undefined)).toBe(false);
  });
});

describe('databaseRetryLogLevel', () => {
  it('logs a retry as a warning, and every tenth try in a row as an error', () => {
    expect([1, 2, 9, 10, 11, 20, 30].map(databaseRetryLogLevel)).toEqual([
      'warn',
      'warn',
      'warn',
      'error',
      'warn',
      'error',
      'error',
    ]);
  });
});
