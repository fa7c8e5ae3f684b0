import { getTableColumns, type InferSelectModel } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * Maps a row of `table` read by a raw statement (`select *`, `returning *`: driver values under
 * the columns' SQL names) to the object a typed drizzle query returns, through each column's own
 * decoder. For the hot paths written as one raw statement (data-modifying CTEs).
 */
export function fromDriverRow<T extends PgTable>(
  table: T,
  raw: Record<string, unknown>,
): InferSelectModel<T> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as InferSelectModel<T>;
}
