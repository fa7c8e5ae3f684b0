import { sql } from 'drizzle-orm';
import { createAccount } from '../accounts';
import type { Database } from '../db/client';
import { openTestDatabase } from '../testing/services';
import { chargeForCall, findLedgerMismatches, refundCall } from './ledger';
import { checkLedger, ledgerCheckStatus } from './ledger-check';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

const charge = (accountId: string, amountMicroUsd: number, ref: string) =>
  database.db.transaction((tx) => chargeForCall(tx, { accountId, amountMicroUsd, ref }));
/** Passes until the rolling pass has come round (it checks `accountsPerPass` accounts a pass). */
const checkAll = async (opts: { entriesPerPass?: number; accountsPerPass?: number } = {}) => {
  let last = await checkLedger(database.db, opts);
  for (let i = 0; i < 20; i++) {
    const { rows } = await database.db.execute<{ cursor: string }>(
      sql`select account_cursor as cursor from ledger_check_state`,
    );
    if (rows[0]?.cursor === '') break;
    last = await checkLedger(database.db, opts);
  }
  return last;
};

describe('the ledger check', () => {
  it('finds an account whose balance moved without a ledger row, and forgets it once the books agree again', async () => {
    const accounts = await Promise.all(
      ['l1', 'l2', 'l3', 'l4', 'l5'].map((n) =>
        createAccount(database.db, { email: `${n}@example.test`, initialCreditMicroUsd: 10_000 }),
      ),
    );
    for (const [i, { accountId }] of accounts.entries()) await charge(accountId, 100 * (i + 1), `c-${i}`);
    expect(await checkAll({ accountsPerPass: 2 })).toMatchObject({ mismatched: 0 });
    expect((await ledgerCheckStatus(database.db)).checkedAt).toBeInstanceOf(Date);

    // a balance changed behind the ledger's back: no ledger entry says so
    const bad = accounts[3]!.accountId;
    await database.db.execute(
      sql`update accounts set balance_micro_usd = balance_micro_usd + 7 where id = ${bad}`,
    );
    expect(await findLedgerMismatches(database.db)).toHaveLength(1);
    expect(await checkAll({ accountsPerPass: 2 })).toMatchObject({ mismatched: 1 });
    expect((await ledgerCheckStatus(database.db)).mismatched).toBe(1);

    // new entries on other accounts are checked incrementally; the mismatch stays counted
    await charge(accounts[0]!.accountId, 5, 'c-more');
    await database.db.transaction((tx) =>
      refundCall(tx, { accountId: accounts[1]!.accountId, amountMicroUsd: 200, ref: 'c-1' }),
    );
    expect(await checkLedger(database.db, { accountsPerPass: 1_000 })).toMatchObject({ mismatched: 1 });

    // an operator puts it right: the next pass that reaches it clears it
    await database.db.execute(
      sql`update accounts set balance_micro_usd = balance_micro_usd - 7 where id = ${bad}`,
    );
    expect(await checkAll({ accountsPerPass: 2 })).toMatchObject({ mismatched: 0 });
  });

  it('reads only new entries, and still sums an entry committed after a later one was checked', async () => {
    const { accountId } = await createAccount(database.db, {
      email: 'late@example.test',
      initialCreditMicroUsd: 10_000,
    });
    await checkAll();
    // a transaction takes its ledger id first and commits last: a later charge commits before it
    const slow = await database.pool.connect();
    try {
      await slow.query('begin');
      await slow.query(
        `insert into ledger_entries (account_id, kind, amount_micro_usd, ref) values ($1, 'charge', -50, 'late-1')`,
        [accountId],
      );
      await charge(accountId, 20, 'late-0');
      // the check sees the later id and not the earlier one, which is not committed yet
      expect(await checkLedger(database.db)).toMatchObject({ mismatched: 0 });
      await slow.query('update accounts set balance_micro_usd = balance_micro_usd - 50 where id = $1', [
        accountId,
      ]);
      await slow.query('commit');
    } finally {
      slow.release();
    }
    await charge(accountId, 10, 'late-2');
    expect(await checkLedger(database.db)).toMatchObject({ mismatched: 0 });
    const { rows: stored } = await database.db.execute<{ sum: string }>(
      sql`select ledger_sum::text as sum from ledger_checks where account_id = ${accountId}`,
    );
    expect(Number(stored[0]!.sum)).toBe(10_000 - 20 - 50 - 10);
  });

  it('checks a bounded number of entries per pass and catches up over several', async () => {
    const { accountId } = await createAccount(database.db, {
      email: 'many@example.test',
      initialCreditMicroUsd: 1_000_000,
    });
    await checkAll();
    for (let i = 0; i < 12; i++) await charge(accountId, 1, `m-${i}`);
    const before = await database.db.execute<{ through: string }>(
      sql`select through_entry_id::text as through from ledger_check_state`,
    );
    await checkLedger(database.db, { entriesPerPass: 5, accountsPerPass: 1 });
    const after = await database.db.execute<{ through: string }>(
      sql`select through_entry_id::text as through from ledger_check_state`,
    );
    const { rows: next } = await database.db.execute<{ n: string }>(sql`
      select count(*) as n from ledger_entries
      where id > ${before.rows[0]!.through}::bigint and id <= ${after.rows[0]!.through}::bigint`);
    expect(Number(next[0]!.n)).toBe(5);
    for (let i = 0; i < 3; i++) await checkLedger(database.db, { entriesPerPass: 5, accountsPerPass: 1 });
    expect((await ledgerCheckStatus(database.db)).mismatched).toBe(0);
  });
});
