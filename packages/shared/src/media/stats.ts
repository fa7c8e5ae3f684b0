import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';

/**
 * Videos not copied into storage yet, by state (pending, failed), with the age of the oldest since
 * its task succeeded: for the fleet gauges. Both states are always answered.
 */
export async function copyBacklog(
  db: DbOrTx,
): Promise<Array<{ state: 'pending' | 'failed'; count: number; oldestSeconds: number }>> {
  const { rows } = await db.execute<{ status: string; n: string; oldest: string | null }>(sql`
    select status, count(*) as n, extract(epoch from now() - min(created_at)) as oldest
    from task_media where status in ('pending', 'failed') group by status`);
  return (['pending', 'failed'] as const).map((state) => {
    const r = rows.find((x) => x.status === state);
    return { state, count: Number(r?.n ?? 0), oldestSeconds: Math.max(0, Number(r?.oldest ?? 0)) };
  });
}
