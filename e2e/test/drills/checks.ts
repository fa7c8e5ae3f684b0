import type { Pool } from 'pg';

/**
 * What every drill asserts afterwards: no task left pending or processing, no task charged twice
 * or refunded twice, a refund only for a failed task, no upstream task submitted twice, and
 * balance = sum(ledger) for every account. Returns the outcome counts for the report.
 */
export async function checkNothingLost(pool: Pool, simSubmitted: number) {
  const { rows: byStatus } = await pool.query(`select status, count(*)::int as n from tasks group by status`);
  const counts = Object.fromEntries(byStatus.map((r) => [r.status, r.n])) as Record<string, number>;
  const { rows: failedCodes } = await pool.query(
    `select error_code, count(*)::int as n from tasks where status = 'failed' group by error_code`,
  );
  const { rows: doubleCharges } = await pool.query(
    `select ref from ledger_entries where kind = 'charge' group by ref having count(*) > 1`,
  );
  const { rows: doubleRefunds } = await pool.query(
    `select ref from ledger_entries where kind = 'refund' group by ref having count(*) > 1`,
  );
  const { rows: wrongRefunds } = await pool.query(
    `select l.ref from ledger_entries l join tasks t on t.id = l.ref where l.kind = 'refund' and t.status <> 'failed'`,
  );
  const { rows: uncharged } = await pool.query(
    `select t.id from tasks t left join ledger_entries l on l.ref = t.id and l.kind = 'charge' where l.id is null and t.price_micro_usd > 0`,
  );
  const { rows: books } = await pool.query(`
    select a.id from accounts a left join ledger_entries l on l.account_id = a.id
    group by a.id having a.balance_micro_usd <> coalesce(sum(l.amount_micro_usd), 0)`);
  // A task may have been sent upstream once: those that hold an upstream id, and those whose
  // submit was marked started and never answered (a worker killed mid-call; the task then fails
  // as upstream_submit_interrupted and is never sent again). The upstream may or may not have
  // received that one call, so each such task allows at most one submission the gateway never
  // recorded; anything beyond is a second submission.
  const { rows: submitted } = await pool.query(
    `select count(*) filter (where upstream_task_id is not null)::int as recorded,
            count(*) filter (where upstream_task_id is not null
              or (submit_started_at is not null and error_code = 'upstream_submit_interrupted'))::int as n
     from tasks`,
  );
  return {
    counts,
    failedCodes: Object.fromEntries(failedCodes.map((r) => [r.error_code, r.n])),
    stuck: (counts.pending ?? 0) + (counts.processing ?? 0),
    doubleCharges: doubleCharges.length,
    doubleRefunds: doubleRefunds.length,
    wrongRefunds: wrongRefunds.length,
    uncharged: uncharged.length,
    booksOff: books.length,
    /**
     * upstream submissions beyond one per task that was (or may have been) sent upstream; an
     * interrupted submit killed before its request left counts fewer, never more
     */
    extraSubmissions: Math.max(0, simSubmitted - submitted[0].n),
    /** upstream ids the gateway recorded that the upstream never created (must be 0 too) */
    unknownSubmissions: Math.max(0, submitted[0].recorded - simSubmitted),
  };
}

/** What checkNothingLost must find after a run that crashes, kills or fails over nothing it should not. */
export const NOTHING_LOST = {
  stuck: 0,
  doubleCharges: 0,
  doubleRefunds: 0,
  wrongRefunds: 0,
  uncharged: 0,
  booksOff: 0,
  extraSubmissions: 0,
  unknownSubmissions: 0,
} as const;

/** How many tasks the upstream has accepted (an upstream id recorded). */
export async function submittedCount(pool: Pool): Promise<number> {
  const { rows } = await pool.query(
    'select count(*)::int as n from tasks where upstream_task_id is not null',
  );
  return rows[0].n;
}

/**
 * Creates `n` video tasks with `body` (JSON text), `batch` at a time, spread over the API `urls` in
 * turn; every create must be accepted (200). Returns the task ids in order.
 */
export async function createVideos(opts: {
  urls: string[];
  key: string;
  body: string;
  n: number;
  batch: number;
}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < opts.n; i += opts.batch) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(opts.batch, opts.n - i) }, async (_, j) => {
        const res = await fetch(`${opts.urls[(i + j) % opts.urls.length]}/v1/videos`, {
          method: 'POST',
          headers: { authorization: `Bearer ${opts.key}`, 'content-type': 'application/json' },
          body: opts.body,
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    ids.push(...batch);
  }
  return ids;
}
