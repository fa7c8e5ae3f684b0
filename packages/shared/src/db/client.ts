import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { Pool, type PoolClient, type PoolConfig } from 'pg';
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

/**
 * Opens a pg pool and its drizzle handle. The caller owns it and must `close()` it. With
 * `preparedStatements: false` no statement is named (each is parsed per execution), which a
 * pooler in transaction mode needs when it cannot track named statements across server connections.
 */
export function createDatabase(
  url: string,
  opts: Omit<PoolConfig, 'connectionString'> & { preparedStatements?: boolean } = {},
): Database {
  const { preparedStatements = true, ...poolOpts } = opts;
  const pool = new Pool({ connectionString: url, max: 20, connectionTimeoutMillis: 5_000, ...poolOpts });
  if (!preparedStatements) pool.on('connect', (client) => unnameStatements(client));
  // An idle client that loses its connection (Postgres restart) emits 'error'; the pool drops it.
  pool.on('error', () => {});
  // A checked-out client (inside a transaction, between two queries) that loses its connection
  // emits 'error' on itself, where the pool has no listener: without this one the process would
  // crash. The client is then not queryable: its next query rejects and release drops it.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzle(pool, { schema });
  return { pool, db, close: () => pool.end() };
}

/**
 * Drops the `name` of every query config a client is given: drizzle's `.prepare(name)` becomes a
 * statement in Postgres' unnamed slot, parsed, bound and run in one round trip (safe behind a
 * transaction pooler, where the next query may reach another server connection).
 */
function unnameStatements(client: PoolClient): void {
  const query = client.query;
  client.query = function (this: PoolClient, config: unknown, ...rest: unknown[]) {
    if (config && typeof config === 'object' && 'name' in config && !('submit' in config)) {
      const { name: _name, ...unnamed } = config as { name?: string };
      return (query as (...args: unknown[]) => unknown).call(this, unnamed, ...rest);
    }
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as PoolClient['query'];
}

/** The Postgres SQLSTATE of an error, looking through drizzle's wrapping (`cause`). */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}
