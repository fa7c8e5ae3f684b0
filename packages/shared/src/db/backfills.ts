import type { PoolClient } from 'pg';

/** What one backfill did in a run. */
export interface BackfillReport {
  name: string;
  /** rows it gave their new data */
  updated: number;
  /** rows it should have given data but could not (left as they were) */
  unparsed: number;
}

/**
 * What a ledger entry written before `ledger_entries.details` existed is, read back from the
 * English texts each version wrote (LedgerDetails). A text that matches nothing, or a grant of
 * unknown origin, keeps null details: the console then names the entry by its kind alone.
 */
const LEDGER_DETAILS = `
  CASE
    WHEN b.kind = 'grant' THEN CASE b.reason
      WHEN 'test credit for a new account' THEN jsonb_build_object('cause', 'signup_credit')
      WHEN 'operator grant (cli)' THEN jsonb_build_object('cause', 'operator_grant')
      WHEN 'initial credit' THEN jsonb_build_object('cause', 'initial_credit') END
    WHEN b.kind = 'adjustment' THEN jsonb_build_object('cause', 'operator', 'note', coalesce(b.reason, ''))
    WHEN r.provider IS NOT NULL AND r.paid IS NOT NULL THEN jsonb_build_object('cause', 'payment',
      'provider', r.provider,
      'reference', CASE WHEN b.ref LIKE r.provider || ':%' THEN substr(b.ref, length(r.provider) + 2)
        ELSE coalesce(b.ref, '') END,
      'paid', r.paid)
    WHEN r.failed IS NOT NULL THEN jsonb_build_object('cause', 'task_failed', 'error_code', r.failed[1])
    WHEN r.images IS NOT NULL THEN jsonb_build_object('cause', 'images_not_delivered',
      'missing', r.images[1]::int, 'requested', r.images[2]::int)
    WHEN b.kind = 'refund' AND b.reason = 'upstream call failed' THEN jsonb_build_object('cause', 'image_call_failed')
    WHEN r.unsettled IS NOT NULL THEN jsonb_build_object('cause', 'unsettled', 'after_s', r.unsettled[1]::int)
    WHEN r.usage IS NOT NULL THEN jsonb_build_object('cause', 'usage_settlement',
      'quoted_micro_usd', r.usage[1]::bigint, 'actual_micro_usd', r.usage[2]::bigint,
      'duration_s', r.usage[3]::numeric, 'resolution', r.usage[4], 'audio', r.usage[5] IS NULL)
    WHEN r.topup_refund IS NOT NULL THEN jsonb_build_object('cause', 'topup_refund', 'provider', r.topup_refund[3],
      'order_id', NULL, 'refund_fen', (r.topup_refund[1]::numeric * 100)::bigint,
      'topup_fen', (r.topup_refund[2]::numeric * 100)::bigint)
  END`;

/**
 * The texts, matched once per entry. Payments were written three ways: 'top-up of 35.00 CNY via
 * alipay' (and 'bonus on ...' the same), before that the bonus without 'via' (its provider is the
 * ref's prefix), and first 'top-up via dev' with '10% bonus on a top-up of at least 100 USD', both
 * credited in USD: the top-up's own amount is what was paid.
 */
const LEDGER_TEXTS = `
  CROSS JOIN LATERAL (SELECT
    CASE WHEN b.kind IN ('topup', 'bonus') THEN regexp_match(b.reason,
      '^(?:bonus on a )?top-up of ([0-9]+(?:\\.[0-9]+)?) (CNY|USD)(?: via (\\S+))?$') END AS pay,
    CASE WHEN b.kind = 'topup' THEN regexp_match(b.reason, '^top-up via (\\S+)$') END AS first_topup,
    b.kind = 'bonus' AND b.reason ~ '^[0-9]+% bonus on a top-up of at least ' AS first_bonus,
    CASE WHEN b.kind = 'refund' THEN regexp_match(b.reason, '^task failed: (\\S+)$') END AS failed,
    CASE WHEN b.kind = 'refund' THEN regexp_match(b.reason, '^([0-9]+) of ([0-9]+) images not delivered$') END AS images,
    CASE WHEN b.kind = 'refund' THEN regexp_match(b.reason, '^not settled within ([0-9]+) s ') END AS unsettled,
    CASE WHEN b.kind = 'refund' THEN regexp_match(b.reason,
      '^usage settlement: quoted ([0-9]+), actual ([0-9]+) micro-USD \\(vendor reported ([0-9]+(?:\\.[0-9]+)?) s, ([0-9]+P)(, silent)?\\); refund [0-9]+$') END AS usage,
    CASE WHEN b.kind = 'refund' THEN regexp_match(b.reason,
      '^refund of ([0-9]+(?:\\.[0-9]+)?) CNY of a top-up of ([0-9]+(?:\\.[0-9]+)?) CNY via (\\S+)$') END AS topup_refund
  ) t
  CROSS JOIN LATERAL (SELECT
    CASE
      WHEN t.pay IS NOT NULL THEN coalesce(t.pay[3], nullif(split_part(b.ref, ':', 1), ''))
      WHEN t.first_topup IS NOT NULL THEN t.first_topup[1]
      WHEN t.first_bonus THEN nullif(split_part(b.ref, ':', 1), '')
    END AS provider,
    CASE
      WHEN t.pay IS NOT NULL AND t.pay[2] = 'CNY' THEN
        jsonb_build_object('currency', 'CNY', 'amount_fen', (t.pay[1]::numeric * 100)::bigint)
      WHEN t.pay IS NOT NULL THEN
        jsonb_build_object('currency', 'USD', 'amount_micro_usd', (t.pay[1]::numeric * 1000000)::bigint)
      WHEN t.first_topup IS NOT NULL THEN
        jsonb_build_object('currency', 'USD', 'amount_micro_usd', b.amount_micro_usd)
      WHEN t.first_bonus THEN (SELECT jsonb_build_object('currency', 'USD', 'amount_micro_usd', p.amount_micro_usd)
        FROM ledger_entries p WHERE p.kind = 'topup' AND p.ref = b.ref)
    END AS paid,
    t.failed, t.images, t.unsettled, t.usage, t.topup_refund
  ) r`;

const LEDGER_BATCH = `
  WITH batch AS (
    SELECT e.id, e.kind, e.ref, e.reason, e.amount_micro_usd, e.details
    FROM ledger_entries e
    WHERE e.id > (SELECT last_id FROM data_backfills WHERE name = 'ledger_details')
    ORDER BY e.id
    LIMIT $1
  ), parsed AS (
    SELECT b.id, ${LEDGER_DETAILS} AS details
    FROM batch b ${LEDGER_TEXTS}
    WHERE b.kind <> 'charge' AND b.details IS NULL
  ), updated AS (
    UPDATE ledger_entries l SET details = p.details
    FROM parsed p
    WHERE l.id = p.id AND p.details IS NOT NULL AND l.details IS NULL
    RETURNING l.id
  ), progress AS (
    UPDATE data_backfills SET last_id = (SELECT max(id) FROM batch), updated_at = now()
    WHERE name = 'ledger_details' AND EXISTS (SELECT 1 FROM batch)
    RETURNING last_id
  )
  SELECT (SELECT count(*) FROM batch)::int AS seen,
         (SELECT count(*) FROM parsed)::int AS candidates,
         (SELECT count(*) FROM updated)::int AS updated`;

/**
 * Data changes too large for the migrations' single transaction, run after it: each batch is one
 * statement of its own (locks held for one batch), and where a backfill has got to is kept in
 * `data_backfills`, so a run resumes where one stopped and later runs read only the rows added
 * since (an older replica may write rows without the new data during a rollout).
 */
export async function runBackfills(
  client: PoolClient,
  opts: { batchSize?: number } = {},
): Promise<BackfillReport[]> {
  const batchSize = opts.batchSize ?? 5_000;
  await client.query(`insert into data_backfills (name) values ('ledger_details') on conflict do nothing`);
  const report: BackfillReport = { name: 'ledger_details', updated: 0, unparsed: 0 };
  for (;;) {
    const { rows } = await client.query<{ seen: number; candidates: number; updated: number }>(LEDGER_BATCH, [
      batchSize,
    ]);
    const batch = rows[0]!;
    report.updated += batch.updated;
    report.unparsed += batch.candidates - batch.updated;
    if (batch.seen < batchSize) break;
  }
  return [report];
}
