import { sql } from 'drizzle-orm';
import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { openTestDatabase } from '../testing/services';
import type { Database } from './client';
import { sqlTemplate, sqlTemplates } from './template';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  await database.pool.query(
    `create table template_probe (id text primary key, doc jsonb, at timestamptz, n int)`,
  );
});
afterAll(() => database.close());

describe('sqlTemplate', () => {
  it('renders its statement once and runs it with each call’s values', async () => {
    let builds = 0;
    const insert = sqlTemplate<{ id: string; doc: string; n: number }>((p) => {
      builds += 1;
      return sql`insert into template_probe (id, doc, n) values (${p.id}, ${p.doc}::jsonb, ${p.n}::int + ${p.n}::int) returning n`;
    });
    const a = await insert<{ n: number }>(database.db, { id: 'a', doc: '{"k":1}', n: 2 });
    const b = await insert<{ n: number }>(database.db, { id: 'b', doc: '[]', n: 5 });
    expect([a.rows[0]!.n, b.rows[0]!.n]).toEqual([4, 10]);
    expect(builds).toBe(1);
    const { rows } = await database.pool.query(`select id, doc from template_probe order by id`);
    expect(rows).toEqual([
      { id: 'a', doc: { k: 1 } },
      { id: 'b', doc: [] },
    ]);
  });

  it('encodes a column’s values by the column, and keeps null as SQL null', async () => {
    const probe = pgTable('template_columns', {
      id: text('id').primaryKey(),
      doc: jsonb('doc'),
      at: timestamp('at', { withTimezone: true }),
    });
    await database.pool.query(
      `create table template_columns (id text primary key, doc jsonb, at timestamptz)`,
    );
    const insert = sqlTemplate<{ id: string; doc: unknown; at: Date | null }>((p, db) =>
      db.insert(probe).values({ id: p.id, doc: p.doc, at: p.at }).returning().getSQL(),
    );
    const at = new Date('2026-01-02T03:04:05.678Z');
    const { rows: returned } = await insert(database.db, {
      id: 'a',
      doc: { callback_url: 'https://x.test/' },
      at,
    });
    expect(returned[0]).toMatchObject({ id: 'a', doc: { callback_url: 'https://x.test/' } });
    await insert(database.db, { id: 'b', doc: null, at: null });
    const { rows } = await database.pool.query(
      `select id, doc, doc is null as sql_null, at from template_columns order by id`,
    );
    expect(rows).toEqual([
      { id: 'a', doc: { callback_url: 'https://x.test/' }, sql_null: false, at },
      // the JSON encoder given null would have written the JSON value null
      { id: 'b', doc: null, sql_null: true, at: null },
    ]);
  });

  it('runs on the handle of each call: the pool, then a transaction, whose write is its own until it ends', async () => {
    const insert = sqlTemplate<{ id: string }>((p) => sql`insert into template_probe (id) values (${p.id})`);
    const visible = async (id: string) =>
      (await database.pool.query(`select 1 from template_probe where id = $1`, [id])).rows.length === 1;
    await insert(database.db, { id: 'on-pool' });
    await expect(
      database.db.transaction(async (tx) => {
        await insert(tx, { id: 'rolled-back' });
        // another connection does not see it before the transaction ends
        expect(await visible('rolled-back')).toBe(false);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await database.db.transaction(async (tx) => {
      await insert(tx, { id: 'committed' });
      expect(await visible('committed')).toBe(false);
    });
    expect([await visible('on-pool'), await visible('rolled-back'), await visible('committed')]).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('refuses a call that leaves a value out, sending nothing', async () => {
    const insert = sqlTemplate<{ id: string; n: number }>(
      (p) => sql`insert into template_probe (id, n) values (${p.id}, ${p.n}::int)`,
    );
    await expect(insert(database.db, { id: 'no-n' } as { id: string; n: number })).rejects.toThrow(
      'no value for "n"',
    );
    // a name an object inherits is not a value
    const byName = sqlTemplate<{ constructor: string }>((p) => sql`select ${p.constructor}::text as v`);
    await expect(byName(database.db, {} as { constructor: string })).rejects.toThrow(
      'no value for "constructor"',
    );
    const { rows } = await database.pool.query(`select 1 from template_probe where id = 'no-n'`);
    expect(rows).toHaveLength(0);
  });

  it('keeps one template per shape', async () => {
    const shapes: string[] = [];
    const select = sqlTemplates<'plus' | 'minus', { n: number }>((shape) => {
      shapes.push(shape);
      return (p) => (shape === 'plus' ? sql`select 1 + ${p.n}::int as v` : sql`select 1 - ${p.n}::int as v`);
    });
    const run = async (shape: 'plus' | 'minus', n: number) =>
      (await select(shape)<{ v: number }>(database.db, { n })).rows[0]!.v;
    expect([await run('plus', 2), await run('minus', 2), await run('plus', 5)]).toEqual([3, -1, 6]);
    expect(shapes).toEqual(['plus', 'minus']);
  });
});
