import { createHash } from 'node:crypto';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { Pool, type PoolClient, type PoolConfig, type QueryConfig } from 'pg';
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
 * Opens a pg pool and its drizzle handle. The caller owns it and must `close()` it. Parameterized
 * statements run outside a transaction are prepared once per connection (see
 * `prepareRepeatedStatements`). With `preparedStatements: false` no statement is named (each is
 * parsed per execution), which a pooler in transaction mode needs when it cannot track named
 * statements across server connections.
 */
export function createDatabase(
  url: string,
  opts: Omit<PoolConfig, 'connectionString'> & { preparedStatements?: boolean } = {},
): Database {
  const { preparedStatements = true, ...poolOpts } = opts;
  const pool = new Pool({ connectionString: url, max: 20, connectionTimeoutMillis: 5_000, ...poolOpts });
  pool.on('connect', (client) =>
    preparedStatements ? prepareRepeatedStatements(client) : unnameStatements(client),
  );
  // An idle client that loses its connection (Postgres restart) emits 'error'; the pool drops it.
  pool.on('error', () => {});
  // A checked-out client (inside a transaction, between two queries) that loses its connection
  // emits 'error' on itself, where the pool has no listener: without this one the process would
  // crash. The client is then not queryable: its next query rejects and release drops it.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzle(pool, { schema });
  return { pool, db, close: () => pool.end() };
}

/** How many distinct statement texts a process names; texts past it run unnamed. */
const MAX_NAMED_STATEMENTS = 300;
/** statement text -> its name, the same on every connection of the process */
const statementNames = new Map<string, string>();
/** names whose prepared form went stale (a migration changed their result columns): run unnamed */
const staleNames = new Set<string>();

const isStale = (err: unknown) =>
  (err as { code?: string } | null)?.code === '0A000' &&
  /cached plan must not change result type/.test((err as Error).message);

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `mg_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

type Callback = (err: Error | null, result?: unknown) => void;

const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
const END = /^\s*(commit|end|rollback)\s*;?\s*$/i;

/**
 * Whether `text` opens or ends a transaction. The first letter decides whether a pattern is tried
 * at all: every statement of the hot path (a few KB of SQL each) went through both, a visible
 * share of the API's CPU per image call.
 */
function transactionControl(text: string): 'begin' | 'end' | undefined {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 32) i += 1;
  const first = text.charCodeAt(i) | 0x20; // lower case
  if (first > 0x7f) return BEGIN.test(text) ? 'begin' : END.test(text) ? 'end' : undefined;
  if (first === 0x62 /* b */ || first === 0x73 /* s */) return BEGIN.test(text) ? 'begin' : undefined;
  if (first === 0x63 /* c */ || first === 0x65 /* e */ || first === 0x72 /* r */)
    return END.test(text) ? 'end' : undefined;
  return undefined;
}

/**
 * Names every parameterized statement the client runs outside a transaction after a hash of its
 * text, so Postgres parses it once per connection and reuses its plan: the task moves are large
 * statements whose parse and plan cost more than their execution (create 1.3 -> 0.5 ms of backend
 * CPU). Statements in a transaction stay unnamed. A named statement whose result columns a
 * migration changed fails with 0A000; it is then run unnamed, now and from then on (outside a
 * transaction the failed statement wrote nothing, so it is run again at once).
 */
function prepareRepeatedStatements(client: PoolClient): void {
  const query = client.query as (...args: unknown[]) => unknown;
  let inTransaction = false;
  client.query = function (this: PoolClient, ...args: unknown[]) {
    const [first, ...rest] = args;
    if (typeof first !== 'string' && (first === null || typeof first !== 'object' || 'submit' in first)) {
      return query.apply(this, args);
    }
    const config: QueryConfig = typeof first === 'string' ? { text: first } : { ...(first as QueryConfig) };
    // (text, values, callback), with values undefined when the pool passes none
    if (rest.length > 0 && (rest[0] === undefined || Array.isArray(rest[0]))) {
      const values = rest.shift() as unknown[] | undefined;
      if (values) config.values = values;
    }
    const callback = typeof rest[0] === 'function' ? (rest[0] as Callback) : undefined;
    const control = transactionControl(config.text);
    if (control === 'begin') inTransaction = true;
    else if (control === 'end') inTransaction = false;
    if (config.name && staleNames.has(config.name)) delete config.name;
    else if (!config.name && !inTransaction && config.values?.length)
      config.name = statementName(config.text);
    const name = config.name;
    if (!name) return callback ? query.call(this, config, callback) : query.call(this, config);
    const { name: _name, ...unnamed } = config;
    const retried = (err: unknown) => {
      if (!isStale(err)) return false;
      staleNames.add(name);
      return !inTransaction;
    };
    if (callback) {
      return query.call(this, config, (err: Error | null, result?: unknown) =>
        retried(err) ? query.call(this, unnamed, callback) : callback(err, result),
      );
    }
    return (query.call(this, config) as Promise<unknown>).catch((err: unknown) => {
      if (retried(err)) return query.call(this, unnamed);
      throw err;
    });
  } as PoolClient['query'];
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
