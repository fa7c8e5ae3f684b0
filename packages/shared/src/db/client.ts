import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { Pool, type PoolConfig } from 'pg';
import * as schema from './schema';

export type Db = NodePgDatabase<typeof schema>;
/** A transaction handle, or the database itself where a function works either way. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/** Whether `db` is a transaction (its statements commit with it) rather than the pool. */
export function isTransaction(db: DbOrTx): boolean {
  return db instanceof PgTransaction;
}

export interface Database {
  pool: Pool;
  db: Db;
  close(): Promise<void>;
}

/** Opens a pg pool and its drizzle handle. The caller owns it and must `close()` it. */
export function createDatabase(url: string, opts: Omit<PoolConfig, 'connectionString'> = {}): Database {
  const pool = new Pool({ connectionString: url, max: 20, connectionTimeoutMillis: 5_000, ...opts });
  // An idle client that loses its connection (Postgres restart) emits 'error'; the pool drops it.
  pool.on('error', () => {});
  // A checked-out client (inside a transaction, between two queries) that loses its connection
  // emits 'error' on itself, where the pool has no listener: without this one the process would
  // crash. The client is then not queryable: its next query rejects and release drops it.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzle(pool, { schema });
  return { pool, db, close: () => pool.end() };
}

/** The Postgres SQLSTATE of an error, looking through drizzle's wrapping (`cause`). */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}
