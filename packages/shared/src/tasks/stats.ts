import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';

/** Unfinished tasks of one state: how many, the oldest's age, and how many are past their deadline. */
export interface ActiveTaskStats {
  state: 'pending' | 'processing';
  count: number;
  oldestSeconds: number;
  overdue: number;
}

/**
 * The unfinished tasks by state, for the fleet gauges: one read of the active-task index
 * (`tasks_active_idx`), whatever the size of the table. Both states are always answered.
 */
export async function activeTaskStats(db: DbOrTx): Promise<ActiveTaskStats[]> {
  const { rows } = await db.execute<{
    status: string;
    n: string;
    oldest: string | null;
    overdue: string;
  }>(sql`
    select status, count(*) as n,
      extract(epoch from now() - min(created_at)) as oldest,
      count(*) filter (where deadline_at < now()) as overdue
    from tasks where status in ('pending', 'processing') group by status`);
  return (['pending', 'processing'] as const).map((state) => {
    const r = rows.find((x) => x.status === state);
    return {
      state,
      count: Number(r?.n ?? 0),
      oldestSeconds: Math.max(0, Number(r?.oldest ?? 0)),
      overdue: Number(r?.overdue ?? 0),
    };
  });
}
