import { Param, Placeholder, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { QueryResult } from 'pg';
import { builtOnce } from '../lru';
import type { DbOrTx } from './client';

/** A placeholder for each value of `V`, named after it. */
export type Slots<V> = { readonly [K in keyof V]-?: Placeholder<K & string> };

const dialect = new PgDialect();

/**
 * Each property read gives a placeholder of that name (a name may be used any number of times),
 * except `then`, so that the placeholders are never taken for a promise.
 */
const slots = new Proxy(
  {},
  {
    get: (_target, name) => (typeof name === 'string' && name !== 'then' ? sql.placeholder(name) : undefined),
  },
);

/**
 * A statement rendered to SQL text once and run with new values each time. `build` writes it
 * with a placeholder wherever a value goes (`p.name`, from its first argument), so it must not
 * compute on them or choose its shape by them: what varies in shape is a separate template.
 * Values reach Postgres as parameters, encoded by their column where the placeholder is a
 * column's value (an insert builder's `values`: a jsonb column takes the object), as given
 * otherwise (`${p.doc}::jsonb` takes JSON text). A column's value given as null or undefined is
 * SQL null, never the column's default: an insert written with placeholders sets every column
 * it names, so give each one its value.
 *
 * Why: drizzle walks a statement's whole tree to render it on every run, and for the hot path's
 * large statements (the create's charge, a task move with its outbox row) that walk was the
 * largest part of drizzle's time in the processes' CPU profiles. A template renders once per process;
 * a run fills the values and sends the same text, which the pool prepares once per connection.
 * `build` gets the first database handle it runs on, for drizzle's builders (their SQL does not
 * depend on the handle).
 */
export function sqlTemplate<V extends object>(build: (p: Slots<V>, db: DbOrTx) => SQL) {
  let rendered: { sql: string; fill: Array<(values: Record<string, unknown>) => unknown> } | undefined;
  return async function execute<R extends Record<string, unknown> = Record<string, unknown>>(
    db: DbOrTx,
    values: V,
  ): Promise<QueryResult<R>> {
    rendered ??= render(build(slots as Slots<V>, db));
    const given = values as Record<string, unknown>;
    const params = rendered.fill.map((f) => f(given));
    return db._.session
      .prepareQuery({ sql: rendered.sql, params }, undefined, undefined, false)
      .execute() as Promise<QueryResult<R>>;
  };
}

/** The statement's text, and for each of its parameters how to take it from the values. */
function render(statement: SQL) {
  const query = dialect.sqlToQuery(statement);
  const fill = query.params.map((p): ((values: Record<string, unknown>) => unknown) => {
    const named = (name: string) => (values: Record<string, unknown>) => {
      if (!Object.hasOwn(values, name)) throw new Error(`sqlTemplate: no value for "${name}"`);
      return values[name];
    };
    if (p instanceof Placeholder) return named(p.name);
    if (p instanceof Param && p.value instanceof Placeholder) {
      // a column's value: encoded by the column (jsonb, timestamps); null stays SQL null
      const value = named(p.value.name);
      const encoder = p.encoder;
      return (values) => {
        const v = value(values);
        return v === null || v === undefined ? null : encoder.mapToDriverValue(v);
      };
    }
    return () => p;
  });
  return { sql: query.sql, fill };
}

/** sqlTemplate per shape: `build(shape)` makes the template of a shape the first time it is asked for. */
export function sqlTemplates<S extends string, V extends object>(
  build: (shape: S) => (p: Slots<V>, db: DbOrTx) => SQL,
) {
  const byShape = new Map<S, ReturnType<typeof sqlTemplate<V>>>();
  return (shape: S) => builtOnce(byShape, shape, () => sqlTemplate<V>(build(shape)));
}
