import { Client } from 'pg';
import { createTestDatabase } from '../testing/services';
import { waitFor } from '../testing/wait';
import { createDatabase } from './client';

describe('createDatabase', () => {
  it('survives a connection killed while a client is checked out between two queries', async () => {
    const t = await createTestDatabase();
    const database = createDatabase(t.url, { max: 2 });
    const admin = new Client({ connectionString: t.url });
    await admin.connect();
    try {
      const client = await database.pool.connect();
      await client.query('begin');
      const { rows } = await client.query('select pg_backend_pid() as pid');
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      // the server's FATAL arrives while no query is running on the client
      await waitFor(() => (client as unknown as { _queryable: boolean })._queryable === false, {
        what: 'the client to see its connection end',
      });
      await expect(client.query('select 1')).rejects.toThrow();
      client.release();
      expect((await database.pool.query('select 1 as one')).rows[0].one).toBe(1);
    } finally {
      await admin.end();
      await database.close();
      await t.drop();
    }
  });

  describe('prepared statements', () => {
    let t: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      t = await createTestDatabase();
    });
    afterAll(() => t.drop());

    /** The statements prepared on the pool's one connection, by their text. */
    const preparedOn = async (database: ReturnType<typeof createDatabase>) =>
      (await database.pool.query('select statement from pg_prepared_statements')).rows.map(
        (r: { statement: string }) => r.statement,
      );

    it('prepares a parameterized statement once per connection, outside transactions only', async () => {
      const database = createDatabase(t.url, { max: 1 });
      try {
        await database.pool.query('create table if not exists prep_a (id int primary key, v text)');
        for (let i = 0; i < 3; i++) {
          await database.pool.query('insert into prep_a (id, v) values ($1, $2) on conflict do nothing', [
            i,
            'x',
          ]);
        }
        const client = await database.pool.connect();
        try {
          for (const [begin, end] of [
            ['begin', 'commit'],
            ['\n  START TRANSACTION isolation level read committed', 'END;'],
            ['Begin', ' rollback '],
          ]) {
            await client.query(begin!);
            await client.query('select v from prep_a where id = $1 /* in a transaction */', [1]);
            await client.query(end!);
          }
          // after the transaction, statements are named again
          await client.query('select v from prep_a where id = $1 /* after */', [1]);
        } finally {
          client.release();
        }
        const prepared = await preparedOn(database);
        expect(prepared.filter((s) => s.startsWith('insert into prep_a'))).toHaveLength(1);
        expect(prepared.filter((s) => s.includes('in a transaction'))).toEqual([]);
        expect(prepared.filter((s) => s.includes('/* after */'))).toHaveLength(1);
      } finally {
        await database.close();
      }
    });

    it('answers a prepared statement whose result columns a migration changed, unnamed from then on', async () => {
      const database = createDatabase(t.url, { max: 1 });
      const admin = new Client({ connectionString: t.url });
      await admin.connect();
      try {
        await database.pool.query('create table prep_b (id int primary key)');
        await database.pool.query('insert into prep_b values (1)');
        const read = () => database.pool.query('select * from prep_b where id = $1', [1]);
        expect((await read()).rows).toEqual([{ id: 1 }]);
        await admin.query("alter table prep_b add column added text default 'new'");
        // Postgres refuses the stale statement (0A000): it runs again unnamed and sees the column
        expect((await read()).rows).toEqual([{ id: 1, added: 'new' }]);
        expect((await read()).rows).toEqual([{ id: 1, added: 'new' }]);
        // through a checked-out client with a callback-less promise as well
        const client = await database.pool.connect();
        try {
          expect((await client.query('select * from prep_b where id = $1', [1])).rows).toEqual([
            { id: 1, added: 'new' },
          ]);
        } finally {
          client.release();
        }
      } finally {
        await admin.end();
        await database.close();
      }
    });

    it('names nothing with preparedStatements off (a pooler in transaction mode)', async () => {
      const database = createDatabase(t.url, { max: 1, preparedStatements: false });
      try {
        await database.pool.query('select $1::int as one', [1]);
        expect(await preparedOn(database)).toEqual([]);
      } finally {
        await database.close();
      }
    });
  });
});
