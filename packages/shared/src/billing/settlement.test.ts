import { createAccount, getAccount } from '../accounts';
import type { Database } from '../db/client';
import { newImageCallId } from '../ids';
import { openTestDatabase } from '../testing/services';
import { chargeForCall, findLedgerMismatches } from './ledger';
import { settleImageCall, sweepUnsettledImageCalls } from './settlement';

// Settlement of image calls against a real Postgres: the call's own settlement, the reconciler's
// sweep of calls left unsettled, and the two racing. "A crash" is a charge never followed by a
// settlement; "a failed settlement" is a real Postgres error raised inside its transaction.
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());
afterEach(async () => {
  expect(await findLedgerMismatches(database.db)).toEqual([]);
});

const BOUND_MS = 60_000;
const PRICE = 30_000;
let n = 0;

async function account(credit = 1_000_000): Promise<string> {
  n += 1;
  const { accountId } = await createAccount(database.db, {
    email: `settle${n}-${Date.now()}@example.test`,
    initialCreditMicroUsd: credit,
  });
  return accountId;
}

/** Charges an image call of `images` images the way the image service does (unsettled). */
async function charge(accountId: string, images = 4): Promise<string> {
  const ref = newImageCallId();
  await database.db.transaction((tx) =>
    chargeForCall(tx, {
      accountId,
      amountMicroUsd: PRICE * images,
      ref,
      model: 'seedream-4.0',
      units: images,
      settlesLater: true,
    }),
  );
  return ref;
}

/** Makes the call's usage record look `ms` older, as if its process had died that long ago. */
async function age(ref: string, ms = 2 * BOUND_MS): Promise<void> {
  await database.pool.query(
    `update usage_records set created_at = created_at - $2 * interval '1 millisecond' where ref = $1`,
    [ref, ms],
  );
}

const balance = async (id: string) => (await getAccount(database.db, id))!.balanceMicroUsd;

async function refunds(ref: string): Promise<number[]> {
  const { rows } = await database.pool.query<{ amount: string }>(
    `select amount_micro_usd::text as amount from ledger_entries where ref = $1 and kind = 'refund'`,
    [ref],
  );
  return rows.map((r) => Number(r.amount));
}

async function usage(ref: string): Promise<{ settled: boolean; refunded: number; outcome: string }> {
  const { rows } = await database.pool.query(
    `select settled_at is not null as settled, refunded_micro_usd::int as refunded, outcome from usage_records where ref = $1`,
    [ref],
  );
  return rows[0];
}

const sweep = () => sweepUnsettledImageCalls(database.db, { olderThanMs: BOUND_MS });

describe('image call settlement', () => {
  it('refunds the undelivered images and marks the call settled, once', async () => {
    const accountId = await account();
    const ref = await charge(accountId, 4);
    expect(await usage(ref)).toEqual({ settled: false, refunded: 0, outcome: 'accepted' });
    expect(await settleImageCall(database.db, { accountId, ref, refundMicroUsd: PRICE })).toEqual({
      settled: true,
      refundedMicroUsd: PRICE,
    });
    expect(await settleImageCall(database.db, { accountId, ref, refundMicroUsd: PRICE })).toEqual({
      settled: false,
      refundedMicroUsd: 0,
    });
    expect(await usage(ref)).toEqual({ settled: true, refunded: PRICE, outcome: 'partial' });
    expect(await refunds(ref)).toEqual([PRICE]);
    expect(await balance(accountId)).toBe(1_000_000 - 3 * PRICE);
  });

  it('settles a fully delivered call without a refund row', async () => {
    const accountId = await account();
    const ref = await charge(accountId, 2);
    expect(await settleImageCall(database.db, { accountId, ref, refundMicroUsd: 0 })).toEqual({
      settled: true,
      refundedMicroUsd: 0,
    });
    expect(await refunds(ref)).toEqual([]);
    await age(ref);
    expect(await sweep()).toEqual([]);
    expect(await balance(accountId)).toBe(1_000_000 - 2 * PRICE);
  });

  it('marks calls that end together in one statement, each hearing its own outcome', async () => {
    const accountId = await account();
    const refs = await Promise.all(Array.from({ length: 20 }, () => charge(accountId, 1)));
    // the sweep settled one of them first: its own settlement finds it settled
    await age(refs[0]!);
    expect((await sweep()).map((c) => c.ref)).toEqual([refs[0]]);
    let statements = 0;
    const count = () => {
      statements += 1;
    };
    database.pool.on('acquire', count);
    const settled = await Promise.all(
      [...refs, refs[1]!].map((ref) => settleImageCall(database.db, { accountId, ref, refundMicroUsd: 0 })),
    );
    database.pool.off('acquire', count);
    // one call marked twice at once: one of the two marks applies
    expect(settled.map((s) => s.settled)).toEqual([false, ...refs.slice(1).map(() => true), false]);
    // fewer statements than calls: those ending while a mark was on its way went together
    expect(statements).toBeLessThan(refs.length);
    for (const ref of refs) expect((await usage(ref)).settled).toBe(true);
    expect(await balance(accountId)).toBe(1_000_000 - 19 * PRICE);
  });

  it('writes every other charge (a video task) settled, so the sweep never touches it', async () => {
    const accountId = await account();
    await database.db.transaction((tx) =>
      chargeForCall(tx, { accountId, amountMicroUsd: 500_000, ref: 'task_not_an_image_call' }),
    );
    await age('task_not_an_image_call');
    expect((await usage('task_not_an_image_call')).settled).toBe(true);
    expect(await sweep()).toEqual([]);
    expect(await balance(accountId)).toBe(500_000);
  });
});

describe('the sweep of unsettled image calls', () => {
  it('settles later a call whose own settlement failed: one full refund, in one transaction', async () => {
    const accountId = await account();
    const ref = await charge(accountId, 4);
    // A real Postgres fault inside the settlement's transaction, after its usage record was marked.
    await database.pool.query(`
      create function fail_refund() returns trigger language plpgsql as $$
      begin raise exception 'ledger unavailable'; end $$;
      create trigger fail_refund before insert on ledger_entries for each row
        when (new.kind = 'refund') execute function fail_refund();`);
    try {
      await expect(settleImageCall(database.db, { accountId, ref, refundMicroUsd: PRICE })).rejects.toThrow();
    } finally {
      await database.pool.query('drop trigger fail_refund on ledger_entries; drop function fail_refund();');
    }
    // the mark rolled back with the refund: the call is still open and still fully charged
    expect(await usage(ref)).toEqual({ settled: false, refunded: 0, outcome: 'accepted' });
    expect(await balance(accountId)).toBe(1_000_000 - 4 * PRICE);

    expect(await sweep()).toEqual([]); // not yet past the bound
    await age(ref);
    expect(await sweep()).toEqual([{ ref, accountId, refundedMicroUsd: 4 * PRICE }]);
    expect(await sweep()).toEqual([]);
    expect(await refunds(ref)).toEqual([4 * PRICE]);
    expect(await usage(ref)).toEqual({ settled: true, refunded: 4 * PRICE, outcome: 'failed' });
    expect(await balance(accountId)).toBe(1_000_000);
  });

  it('refunds in full a call abandoned after its charge (a crash), once, however often and however many sweep', async () => {
    const accountId = await account();
    const refs: string[] = [];
    for (let i = 0; i < 12; i++) refs.push(await charge(accountId, 1 + (i % 4)));
    for (const ref of refs) await age(ref);
    const charged = refs.reduce((sum, _r, i) => sum + PRICE * (1 + (i % 4)), 0);
    expect(await balance(accountId)).toBe(1_000_000 - charged);

    // four sweeps at once (several reconcilers, or one whose lock expired), then two more
    const concurrent = await Promise.all([sweep(), sweep(), sweep(), sweep()]);
    const settledRefs = concurrent.flat().map((c) => c.ref);
    expect(settledRefs.sort()).toEqual([...refs].sort());
    expect(await sweep()).toEqual([]);
    expect(await sweep()).toEqual([]);
    for (const [i, ref] of refs.entries()) expect(await refunds(ref)).toEqual([PRICE * (1 + (i % 4))]);
    expect(await balance(accountId)).toBe(1_000_000);
  });

  it('pages through more unsettled calls than one batch', async () => {
    const accountId = await account();
    const refs: string[] = [];
    for (let i = 0; i < 7; i++) refs.push(await charge(accountId, 1));
    for (const ref of refs) await age(ref);
    const swept = await sweepUnsettledImageCalls(database.db, { olderThanMs: BOUND_MS, batchSize: 3 });
    expect(swept.map((c) => c.ref)).toEqual(refs);
    expect(await balance(accountId)).toBe(1_000_000);
  });

  it('leaves alone a call younger than the bound, which its own settlement then settles', async () => {
    const accountId = await account();
    const ref = await charge(accountId, 4);
    await age(ref, BOUND_MS / 2);
    expect(await sweep()).toEqual([]);
    expect(await usage(ref)).toEqual({ settled: false, refunded: 0, outcome: 'accepted' });
    expect(await settleImageCall(database.db, { accountId, ref, refundMicroUsd: PRICE })).toMatchObject({
      settled: true,
    });
    expect(await refunds(ref)).toEqual([PRICE]);
    expect(await balance(accountId)).toBe(1_000_000 - 3 * PRICE);
  });

  it('a settlement after the sweep changes nothing: the full refund stands alone', async () => {
    const accountId = await account();
    const ref = await charge(accountId, 4);
    await age(ref);
    expect(await sweep()).toHaveLength(1);
    expect(await settleImageCall(database.db, { accountId, ref, refundMicroUsd: PRICE })).toEqual({
      settled: false,
      refundedMicroUsd: 0,
    });
    expect(await refunds(ref)).toEqual([4 * PRICE]);
    expect(await balance(accountId)).toBe(1_000_000);
  });

  it('a sweep after the settlement changes nothing: the partial refund stands alone', async () => {
    const accountId = await account();
    const ref = await charge(accountId, 4);
    await settleImageCall(database.db, { accountId, ref, refundMicroUsd: PRICE });
    await age(ref);
    expect(await sweep()).toEqual([]);
    expect(await refunds(ref)).toEqual([PRICE]);
    expect(await balance(accountId)).toBe(1_000_000 - 3 * PRICE);
  });

  it('a settlement racing the sweep: exactly one of them applies, never both refunds', async () => {
    const accountId = await account(10_000_000);
    const refs: string[] = [];
    for (let i = 0; i < 10; i++) refs.push(await charge(accountId, 4));
    for (const ref of refs) await age(ref);
    const [swept, ...own] = await Promise.all([
      sweep(),
      ...refs.map((ref) => settleImageCall(database.db, { accountId, ref, refundMicroUsd: PRICE })),
    ]);
    let expected = 10_000_000 - refs.length * 4 * PRICE;
    for (const [i, ref] of refs.entries()) {
      const bySweep = swept!.some((c) => c.ref === ref);
      expect(bySweep).toBe(!own[i]!.settled); // one winner per call
      expect(await refunds(ref)).toEqual([bySweep ? 4 * PRICE : PRICE]);
      expected += bySweep ? 4 * PRICE : PRICE;
    }
    expect(await balance(accountId)).toBe(expected);
  });
});
