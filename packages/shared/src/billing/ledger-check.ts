import { sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';

export interface LedgerCheckResult {
  /** accounts compared in this pass */
  checked: number;
  /** accounts whose balance differs from their ledger, after this pass (all accounts checked so far) */
  mismatched: number;
}

/**
 * One pass of the ledger check: compares the balance of each account with the sum of its ledger,
 * incrementally. The accounts compared are those with ledger entries newer than the last pass
 * (at most `entriesPerPass` entries further) and the next `accountsPerPass` accounts in id order
 * (a rolling pass over every account, which also catches a balance changed without a ledger row).
 * Each account's sum is kept as of the last entry it was checked through (`ledger_checks`), so a
 * pass reads only new entries; an account that seems to differ is summed in full before it is
 * counted (an entry committed late, under a lower id, is then included). Everything is read in
 * one repeatable-read snapshot, where balances and entries agree: they change in one transaction.
 */
export async function checkLedger(
  db: Db,
  opts: { entriesPerPass?: number; accountsPerPass?: number } = {},
): Promise<LedgerCheckResult> {
  const entriesPerPass = opts.entriesPerPass ?? 20_000;
  const accountsPerPass = opts.accountsPerPass ?? 1_000;
  return db.transaction(
    async (tx) => {
      const state = (
        await tx.execute<{ through: string; cursor: string }>(sql`
          select through_entry_id::text as through, account_cursor as cursor
          from ledger_check_state where id for update`)
      ).rows[0] ?? { through: '0', cursor: '' };
      const touched = (
        await tx.execute<{ account_id: string; last: string }>(sql`
          select account_id, max(id)::text as last from (
            select id, account_id from ledger_entries where id > ${state.through}::bigint
            order by id limit ${entriesPerPass}
          ) e group by account_id`)
      ).rows;
      const rolling = (
        await tx.execute<{ id: string }>(sql`
          select id from accounts where id > ${state.cursor} order by id limit ${accountsPerPass}`)
      ).rows;
      const through = touched.reduce(
        (m, r) => (BigInt(r.last) > m ? BigInt(r.last) : m),
        BigInt(state.through),
      );
      const cursor = rolling.length < accountsPerPass ? '' : rolling[rolling.length - 1]!.id;
      const ids = [...new Set([...touched.map((r) => r.account_id), ...rolling.map((r) => r.id)])];
      if (ids.length > 0) {
        // each account's sum: as stored plus its entries since, summed in full where that differs
        await tx.execute(sql`
          with a as (
            select acc.id, acc.balance_micro_usd as balance,
              coalesce(c.ledger_sum, 0) + n.delta as sum, greatest(coalesce(c.checked_through, 0), n.last) as last
            from accounts acc
            left join ledger_checks c on c.account_id = acc.id
            cross join lateral (
              select coalesce(sum(e.amount_micro_usd), 0) as delta, coalesce(max(e.id), 0) as last
              from ledger_entries e where e.account_id = acc.id and e.id > coalesce(c.checked_through, 0)
            ) n
            where acc.id in (select json_array_elements_text(${JSON.stringify(ids)}::json))
          ), full_sum as (
            select a.id, a.balance, coalesce(f.sum, 0) as sum, coalesce(f.last, 0) as last
            from a cross join lateral (
              select sum(e.amount_micro_usd) as sum, max(e.id) as last
              from ledger_entries e where e.account_id = a.id
            ) f
            where a.sum <> a.balance
          ), checked as (
            select a.id, coalesce(f.sum, a.sum) as sum, coalesce(f.last, a.last) as last, a.balance
            from a left join full_sum f on f.id = a.id
          )
          insert into ledger_checks (account_id, ledger_sum, checked_through, mismatch, checked_at)
          select id, sum, last, sum <> balance, now() from checked
          on conflict (account_id) do update set ledger_sum = excluded.ledger_sum,
            checked_through = excluded.checked_through, mismatch = excluded.mismatch,
            checked_at = excluded.checked_at`);
      }
      await tx.execute(sql`
        update ledger_check_state set through_entry_id = ${through.toString()}::bigint,
          account_cursor = ${cursor}, checked_at = now() where id`);
      const { mismatched } = await ledgerCheckStatus(tx);
      return { checked: ids.length, mismatched };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/** The ledger check's answer so far: accounts found to differ, and when the last pass ran. */
export async function ledgerCheckStatus(db: DbOrTx): Promise<{ mismatched: number; checkedAt: Date | null }> {
  const { rows } = await db.execute<{ n: string; at: string | Date | null }>(sql`
    select (select count(*) from ledger_checks where mismatch) as n,
      (select checked_at from ledger_check_state where id) as at`);
  const at = rows[0]?.at;
  return { mismatched: Number(rows[0]?.n ?? 0), checkedAt: at ? new Date(at) : null };
}
