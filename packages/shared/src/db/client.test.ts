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
});
