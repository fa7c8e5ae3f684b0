import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';

/**
 * The callback backlog, for the fleet gauges: deliveries still pending, those due now, and the age
 * of the oldest (since its event). Reads the pending deliveries' index only.
 */
export async function deliveryBacklog(
  db: DbOrTx,
): Promise<{ pending: number; due: number; oldestSeconds: number }> {
  const { rows } = await db.execute<{ n: string; due: string; oldest: string | null }>(sql`
    select count(*) as n, count(*) filter (where next_attempt_at <= now()) as due,
      extract(epoch from now() - min(created_at)) as oldest
    from callback_deliveries where status = 'pending'`);
  const r = rows[0];
  return {
    pending: Number(r?.n ?? 0),
    due: Number(r?.due ?? 0),
    oldestSeconds: Math.max(0, Number(r?.oldest ?? 0)),
  };
}
