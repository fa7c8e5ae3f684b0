import { findLedgerMismatches, sweepUnsettledImageCalls } from '@mediagate/shared/billing';
import { type RunningSim, waitFor } from '@mediagate/shared/testing';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, type TestApi } from '../../test/harness';
import { balanceOf, startImagesApi } from '../../test/images';

// The settlement of image calls through the real endpoint (simulator upstream, real Postgres): a
// call answers its images only once its settlement has committed, and whatever it leaves unsettled
// the reconciler's sweep (sweepUnsettledImageCalls, called here directly) refunds in full, once.
let api: TestApi;
let sim: RunningSim;
let close: () => Promise<void>;
const CALL_TIMEOUT_MS = 2_000;
const PRICE = 30_000; // seedream-4.0
const BOUND_MS = 60_000;

beforeAll(async () => {
  const started = await startImagesApi({ config: { IMAGE_CALL_TIMEOUT_MS: CALL_TIMEOUT_MS } });
  ({ api, close } = started);
  sim = started.sims[0]!;
});
afterAll(() => close());
beforeEach(() => sim.control('POST', '/reset'));
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const generate = (key: string, n: number) =>
  call(api, 'POST', '/v1/images/generations', {
    key,
    json: { model: 'seedream-4.0', prompt: 'paper boats', n, size: '1K' },
  });

interface UsageRow {
  ref: string;
  settled: boolean;
  refunded: number;
  outcome: string;
}
async function usageOf(accountId: string): Promise<UsageRow[]> {
  const { rows } = await api.database.pool.query<UsageRow>(
    `select ref, settled_at is not null as settled, refunded_micro_usd::int as refunded, outcome
     from usage_records where account_id = $1 order by id`,
    [accountId],
  );
  return rows;
}
async function refundsOf(ref: string): Promise<number[]> {
  const { rows } = await api.database.pool.query<{ a: string }>(
    `select amount_micro_usd::text as a from ledger_entries where ref = $1 and kind = 'refund'`,
    [ref],
  );
  return rows.map((r) => Number(r.a));
}
const age = (ref: string) =>
  api.database.pool.query(
    `update usage_records set created_at = created_at - interval '1 hour' where ref = $1`,
    [ref],
  );
const sweep = (olderThanMs = BOUND_MS) => sweepUnsettledImageCalls(api.database.db, { olderThanMs });
async function settlements(outcome: string): Promise<number> {
  const m = await api.deps.metrics!.imageSettlements.get();
  return m.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

/** A real Postgres fault in every settlement of an image call until the returned function is called. */
async function breakSettlements(): Promise<() => Promise<void>> {
  await api.database.pool.query(`
    create function fail_settlement() returns trigger language plpgsql as $$
    begin raise exception 'settlement unavailable'; end $$;
    create trigger fail_settlement before update of settled_at on usage_records for each row
      when (new.settled_at is not null) execute function fail_settlement();`);
  return async () => {
    await api.database.pool.query(
      'drop trigger fail_settlement on usage_records; drop function fail_settlement();',
    );
  };
}

describe('settlement of an image call', () => {
  it('concurrent calls, delivered, partly delivered and failed: every call has its usage row, settled, and the balance is the ledger', async () => {
    const { key, accountId } = await api.account(10);
    // two single images fail (answered 400, refunded in full), one batch image fails (partial)
    await sim.control('POST', '/ark-item-failures', { count: 3 });
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => generate(key, i % 4 === 0 ? 2 : 1)),
    );
    const requestIds = answers.map((r) => r.headers.get('x-request-id'));
    const delivered = (
      await Promise.all(
        answers.map(async (r) =>
          r.status === 200 ? ((await r.json()) as { delivered: number }).delivered : 0,
        ),
      )
    ).reduce((a, b) => a + b, 0);
    expect(answers.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    const { rows } = await api.database.pool.query<{ request_id: string; settled: boolean }>(
      `select request_id, settled_at is not null as settled from usage_records where account_id = $1`,
      [accountId],
    );
    // every call was charged, so every call has its row, each settled
    expect(rows.map((r) => r.request_id).sort()).toEqual([...requestIds].sort());
    expect(rows.every((r) => r.settled)).toBe(true);
    expect(await balanceOf(api, accountId)).toBe(10_000_000 - delivered * PRICE);
    const { rows: ledger } = await api.database.pool.query<{ sum: string }>(
      `select sum(amount_micro_usd)::text as sum from ledger_entries where account_id = $1`,
      [accountId],
    );
    expect(Number(ledger[0]!.sum)).toBe(10_000_000 - delivered * PRICE);
  });

  it('settles a delivered call with its partial refund in the same step, and the sweep leaves it alone', async () => {
    const { key, accountId } = await api.account(1);
    await sim.control('POST', '/ark-item-failures', { count: 1 });
    const res = await generate(key, 4);
    expect(await expectContract(res, contractFor('post /v1/images/generations'), 200)).toMatchObject({
      requested: 4,
      delivered: 3,
    });
    const [row] = await usageOf(accountId);
    expect(row).toMatchObject({ settled: true, refunded: PRICE, outcome: 'partial' });
    await age(row!.ref);
    expect(await sweep()).toEqual([]);
    expect(await refundsOf(row!.ref)).toEqual([PRICE]);
    expect(await balanceOf(api, accountId)).toBe(1_000_000 - 3 * PRICE);
  });

  it('a call whose settlement fails delivers nothing (503), and the sweep later refunds it in full, once', async () => {
    const { key, accountId } = await api.account(1);
    const failedBefore = await settlements('failed');
    await sim.control('POST', '/ark-item-failures', { count: 1 });
    const repair = await breakSettlements();
    let res: Response;
    try {
      res = await generate(key, 4);
    } finally {
      await repair();
    }
    const err = await expectError(res, 503, 'service_unavailable');
    expect(err.message).toMatch(/refunded in full/);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await settlements('failed')).toBe(failedBefore + 1);
    // charged for 4, settled not at all: neither the partial refund nor the mark was written
    const [row] = await usageOf(accountId);
    expect(row).toMatchObject({ settled: false, refunded: 0 });
    expect(await balanceOf(api, accountId)).toBe(1_000_000 - 4 * PRICE);

    expect(await sweep()).toEqual([]); // younger than the bound
    await age(row!.ref);
    const [swept, again] = await Promise.all([sweep(), sweep()]);
    expect([...swept, ...again]).toEqual([{ ref: row!.ref, accountId, refundedMicroUsd: 4 * PRICE }]);
    expect(await sweep()).toEqual([]);
    expect(await refundsOf(row!.ref)).toEqual([4 * PRICE]);
    expect((await usageOf(accountId))[0]).toMatchObject({
      settled: true,
      refunded: 4 * PRICE,
      outcome: 'failed',
    });
    expect(await balanceOf(api, accountId)).toBe(1_000_000);
  });

  it('a failed upstream call whose settlement fails is answered as before and refunded by the sweep', async () => {
    const { key, accountId } = await api.account(1);
    await sim.control('POST', '/faults', { api: 'ark_images', status: 503, count: 10 });
    const repair = await breakSettlements();
    try {
      await expectError(await generate(key, 2), 500, 'server_error');
    } finally {
      await repair();
    }
    const [row] = await usageOf(accountId);
    expect(row).toMatchObject({ settled: false, refunded: 0 });
    await age(row!.ref);
    expect(await sweep()).toHaveLength(1);
    expect(await refundsOf(row!.ref)).toEqual([2 * PRICE]);
    expect(await balanceOf(api, accountId)).toBe(1_000_000);
  });

  it('a call still running is not touched by the sweep, and settles itself when it ends', async () => {
    const { key, accountId } = await api.account(1);
    await sim.control('POST', '/faults', { api: 'ark_images', latencyMs: 800 });
    const pending = generate(key, 2);
    const [row] = await waitFor(
      async () => {
        const open = (await usageOf(accountId)).filter((r) => !r.settled);
        return open.length > 0 ? open : undefined;
      },
      { what: 'the running call in the usage log', timeoutMs: 5_000 },
    );
    expect(await sweep()).toEqual([]);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await refundsOf(row!.ref)).toEqual([]);
    expect((await usageOf(accountId))[0]).toMatchObject({ settled: true, refunded: 0 });
    expect(await balanceOf(api, accountId)).toBe(1_000_000 - 2 * PRICE);
  });

  it('a call the sweep settled first (too old) is not settled again: one full refund, no images', async () => {
    const { key, accountId } = await api.account(1);
    const lateBefore = await settlements('late');
    await sim.control('POST', '/faults', { api: 'ark_images', latencyMs: 1_000 });
    const pending = generate(key, 3);
    // a sweep with a bound shorter than the call: it takes the running call for abandoned
    const swept = await waitFor(
      async () => {
        const s = await sweep(1);
        return s.length > 0 ? s : undefined;
      },
      { what: 'the sweep to settle the running call', timeoutMs: 5_000 },
    );
    expect(swept).toEqual([{ ref: expect.stringMatching(/^img_/), accountId, refundedMicroUsd: 3 * PRICE }]);
    const res = await pending;
    const err = await expectError(res, 500, 'server_error');
    expect(err.message).toMatch(/refunded in full/);
    expect(await settlements('late')).toBe(lateBefore + 1);
    expect(await refundsOf(swept[0]!.ref)).toEqual([3 * PRICE]);
    expect(await balanceOf(api, accountId)).toBe(1_000_000);
  });

  it('a call past IMAGE_CALL_TIMEOUT_MS is answered 500 and settled with a full refund', async () => {
    const { key, accountId } = await api.account(1);
    await sim.control('POST', '/faults', { api: 'ark_images', latencyMs: CALL_TIMEOUT_MS + 3_000 });
    const started = Date.now();
    const err = await expectError(await generate(key, 2), 500, 'server_error');
    expect(err.message).toMatch(/did not answer in time/);
    expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_MS + 2_500);
    const [row] = await usageOf(accountId);
    expect(row).toMatchObject({ settled: true, refunded: 2 * PRICE, outcome: 'failed' });
    expect(await balanceOf(api, accountId)).toBe(1_000_000);
  });
});
