import { chargeForCall, findLedgerMismatches } from '@mediagate/shared/billing';
import { createDatabase } from '@mediagate/shared/db';
import { newImageCallId } from '@mediagate/shared/ids';
import { waitFor } from '@mediagate/shared/testing';
import { type Stack, startStack } from './stack';

// An API process SIGKILLed in the middle of an image call (charged, upstream still working, never
// settled): the reconciler process refunds the call in full once it is older than
// IMAGE_SETTLE_AFTER_MS, and only once. Real processes: simulator, API, reconciler.
const CALL_TIMEOUT_MS = 8_000;
const SETTLE_AFTER_MS = 10_000;
const PRICE = 30_000; // seedream-4.0

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    videoWorkers: 0,
    reconciler: true,
    env: { IMAGE_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS), IMAGE_SETTLE_AFTER_MS: String(SETTLE_AFTER_MS) },
  });
});
afterAll(() => stack?.stop());

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
  (await stack.pool.query(sql, params)).rows[0] as T;

it('refunds in full, through the reconciler, an image call whose API process was SIGKILLed mid-call', async () => {
  const key = stack.newKey(1);
  // the vendor takes far longer than the test lets the API live
  await stack.sim('POST', '/faults', { api: 'ark_images', latencyMs: 60_000 });
  const answer = fetch(`${stack.apiUrl}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'seedream-4.0', prompt: 'three paper boats', n: 3, size: '1K' }),
  }).then(
    (res) => `answered ${res.status}`,
    () => 'connection lost',
  );

  // the charge commits before the upstream call starts; kill the API while the call runs
  const call = await waitFor(
    () =>
      one<{ ref: string; account_id: string } | undefined>(
        `select ref, account_id from usage_records where settled_at is null and ref like 'img_%'`,
      ),
    { what: 'the charged, running image call', timeoutMs: 10_000 },
  );
  await stack.apiProcess.stop('SIGKILL');
  expect(await answer).toBe('connection lost');
  const balance = async () =>
    Number(
      (
        await one<{ b: string }>('select balance_micro_usd::text as b from accounts where id = $1', [
          call.account_id,
        ])
      ).b,
    );
  expect(await balance()).toBe(1_000_000 - 3 * PRICE);

  // nobody settles it but the reconciler, once the call is older than its bound
  await waitFor(
    async () =>
      (
        await one<{ settled: boolean }>(
          'select settled_at is not null as settled from usage_records where ref = $1',
          [call.ref],
        )
      ).settled,
    {
      what: 'the reconciler to settle the abandoned call',
      timeoutMs: SETTLE_AFTER_MS + 30_000,
      intervalMs: 200,
    },
  );
  const refunds = async () =>
    (
      await stack.pool.query(
        `select l.amount_micro_usd::int as amount, l.reason,
                extract(epoch from l.created_at - u.created_at) * 1000 as after_ms
         from ledger_entries l join usage_records u on u.ref = l.ref
         where l.ref = $1 and l.kind = 'refund'`,
        [call.ref],
      )
    ).rows;
  const [refund, ...more] = await refunds();
  expect(more).toEqual([]);
  expect(refund.amount).toBe(3 * PRICE);
  expect(refund.reason).toMatch(/not settled within 10 s/);
  // not before the bound: the sweep leaves a call that may still be running alone
  expect(Number(refund.after_ms)).toBeGreaterThanOrEqual(SETTLE_AFTER_MS);
  expect(await balance()).toBe(1_000_000);

  // the reconciler keeps sweeping (every 300 ms): once it has settled a second abandoned call,
  // charged after the first was settled, the first still has its one refund
  const database = createDatabase(stack.env.DATABASE_URL!, { max: 1 });
  try {
    const second = newImageCallId();
    await database.db.transaction((tx) =>
      chargeForCall(tx, {
        accountId: call.account_id,
        amountMicroUsd: PRICE,
        ref: second,
        settlesLater: true,
      }),
    );
    await stack.pool.query(
      `update usage_records set created_at = created_at - interval '1 hour' where ref = $1`,
      [second],
    );
    await waitFor(
      async () =>
        (
          await one<{ settled: boolean }>(
            'select settled_at is not null as settled from usage_records where ref = $1',
            [second],
          )
        ).settled,
      { what: 'a later sweep', timeoutMs: 30_000 },
    );
    expect(await findLedgerMismatches(database.db)).toEqual([]);
  } finally {
    await database.close();
  }
  expect(await refunds()).toHaveLength(1);
  expect(await balance()).toBe(1_000_000);
});
