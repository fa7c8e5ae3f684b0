import { createAccount, createToken, getAccount, getToken } from '../accounts';
import type { Database } from '../db/client';
import { ConcurrencyLimitError, InsufficientQuotaError, PermissionDeniedError } from '../errors';
import { openTestDatabase } from '../testing/services';
import { chargeForCall, findLedgerMismatches, refundCall } from './ledger';
import { createUsageRecorder, finishUsage, finishUsageBatch, listLedger, listUsage } from './statements';
import { recordTopUp, TopUpTooSmallError, UnknownAccountError } from './topups';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());
afterEach(async () => {
  expect(await findLedgerMismatches(database.db)).toEqual([]);
});

let n = 0;
const account = (micro: number) =>
  createAccount(database.db, { email: `q${++n}@example.test`, initialCreditMicroUsd: micro });
const balance = async (id: string) => (await getAccount(database.db, id))!.balanceMicroUsd;
const charge = (args: Parameters<typeof chargeForCall>[1]) =>
  database.db.transaction((tx) => chargeForCall(tx, args));

describe('key quota in the charge path', () => {
  it('on its own (no transaction), a refused charge changes nothing, and the first failed check is named', async () => {
    const { accountId } = await account(1_000);
    const { key } = await createToken(database.db, accountId, {
      name: 'narrow',
      quotaMicroUsd: 250,
      allowedModels: ['a'],
    });
    const alone = (ref: string, over: Partial<Parameters<typeof chargeForCall>[1]> = {}) =>
      chargeForCall(database.db, {
        accountId,
        keyId: key.id,
        amountMicroUsd: 200,
        ref,
        model: 'a',
        videoSlot: { max: 1 },
        ...over,
      });
    const slots = async () => (await getAccount(database.db, accountId))!.activeVideoTasks;
    await expect(alone('o-1', { amountMicroUsd: 5_000 })).rejects.toBeInstanceOf(InsufficientQuotaError);
    await expect(alone('o-2', { model: 'b' })).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(alone('o-3', { amountMicroUsd: 300 })).rejects.toThrow(/key's quota/);
    expect(await balance(accountId)).toBe(1_000);
    expect(await slots()).toBe(0);
    expect((await getToken(database.db, accountId, key.id))!.usedMicroUsd).toBe(0);
    await alone('o-4');
    expect(await slots()).toBe(1);
    await expect(alone('o-5', { amountMicroUsd: 10 })).rejects.toBeInstanceOf(ConcurrencyLimitError);
    expect(await balance(accountId)).toBe(800);
    expect((await getToken(database.db, accountId, key.id))!.usedMicroUsd).toBe(200);
    expect((await listLedger(database.db, accountId, { limit: 10 })).data.map((e) => e.ref)).not.toContain(
      'o-3',
    );
  });

  it('raises the key used amount, refuses past the quota, and gives quota back on refund', async () => {
    const { accountId } = await account(10_000);
    const { key } = await createToken(database.db, accountId, { name: 'capped', quotaMicroUsd: 500 });
    await charge({ accountId, keyId: key.id, amountMicroUsd: 300, ref: 'k-1', model: 'm' });
    expect((await getToken(database.db, accountId, key.id))!.usedMicroUsd).toBe(300);
    await expect(
      charge({ accountId, keyId: key.id, amountMicroUsd: 300, ref: 'k-2', model: 'm' }),
    ).rejects.toBeInstanceOf(InsufficientQuotaError);
    expect(await balance(accountId)).toBe(9_700);
    await database.db.transaction((tx) => refundCall(tx, { accountId, amountMicroUsd: 100, ref: 'k-1' }));
    expect((await getToken(database.db, accountId, key.id))!.usedMicroUsd).toBe(200);
    await charge({ accountId, keyId: key.id, amountMicroUsd: 300, ref: 'k-3', model: 'm' });
    expect((await getToken(database.db, accountId, key.id))!.usedMicroUsd).toBe(500);
  });

  it('lets exactly the quota through under concurrency', async () => {
    const { accountId } = await account(1_000_000);
    const { key } = await createToken(database.db, accountId, { name: 'race', quotaMicroUsd: 1_000 });
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) =>
        charge({ accountId, keyId: key.id, amountMicroUsd: 100, ref: `kr-${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(await balance(accountId)).toBe(999_000);
  });

  it('names the permission before the money: a key that may not use the model is refused as such whatever the balance', async () => {
    const { accountId } = await account(50);
    const { key } = await createToken(database.db, accountId, { name: 'only-a', allowedModels: ['a'] });
    const refused = (amountMicroUsd: number) =>
      chargeForCall(database.db, {
        accountId,
        keyId: key.id,
        amountMicroUsd,
        ref: `p-${amountMicroUsd}`,
        model: 'b',
      });
    await expect(refused(10)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(refused(5_000)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(
      database.db.transaction((tx) =>
        chargeForCall(tx, { accountId, keyId: key.id, amountMicroUsd: 5_000, ref: 'p-tx', model: 'b' }),
      ),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(await balance(accountId)).toBe(50);
  });

  it('enforces the model allow-list and charges nothing when it refuses', async () => {
    const { accountId } = await account(10_000);
    const { key } = await createToken(database.db, accountId, { name: 'only-a', allowedModels: ['a'] });
    await expect(
      charge({ accountId, keyId: key.id, amountMicroUsd: 100, ref: 'm-1', model: 'b' }),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(await balance(accountId)).toBe(10_000);
    await charge({ accountId, keyId: key.id, amountMicroUsd: 100, ref: 'm-2', model: 'a' });
    expect(await balance(accountId)).toBe(9_900);
  });
});

describe('usage records', () => {
  it('records a partial image batch: refund of the undelivered images, outcome partial', async () => {
    const { accountId, key } = await account(10_000);
    await charge({
      accountId,
      keyId: key.id,
      amountMicroUsd: 4_000,
      ref: 'img-1',
      model: 'img',
      units: 4,
      requestId: 'req-1',
    });
    // 3 of 4 images delivered: the price of one comes back, once.
    const refund = () =>
      database.db.transaction((tx) =>
        refundCall(tx, {
          accountId,
          amountMicroUsd: 1_000,
          ref: 'img-1',
          reason: '1 of 4 images not delivered',
        }),
      );
    expect(await refund()).toBe(true);
    expect(await refund()).toBe(false);
    await finishUsage(database.db, { accountId, requestId: 'req-1', latencyMs: 1234, ok: true });
    expect(await balance(accountId)).toBe(7_000);
    const usage = await listUsage(database.db, accountId, { limit: 10 });
    expect(usage.data).toEqual([
      expect.objectContaining({
        ref: 'img-1',
        model: 'img',
        units: 4,
        costMicroUsd: 4_000,
        refundedMicroUsd: 1_000,
        outcome: 'partial',
        latencyMs: 1234,
        keyName: 'default',
      }),
    ]);
    const ledger = await listLedger(database.db, accountId, { limit: 2 });
    expect(ledger.data.map((e) => [e.kind, e.amountMicroUsd])).toEqual([
      ['refund', 1_000],
      ['charge', -4_000],
    ]);
    expect(ledger.hasMore).toBe(true);
    const older = await listLedger(database.db, accountId, { limit: 2, before: Number(ledger.nextCursor) });
    expect(older.data.map((e) => e.kind)).toEqual(['grant']);
    expect(older.hasMore).toBe(false);
  });

  it('marks a fully delivered call succeeded and a fully refunded one failed', async () => {
    const { accountId } = await account(10_000);
    await charge({ accountId, amountMicroUsd: 100, ref: 'ok-1', requestId: 'r-ok' });
    await charge({ accountId, amountMicroUsd: 100, ref: 'bad-1', requestId: 'r-bad' });
    await database.db.transaction((tx) => refundCall(tx, { accountId, amountMicroUsd: 100, ref: 'bad-1' }));
    await finishUsage(database.db, { accountId, requestId: 'r-ok', latencyMs: 5, ok: true });
    await finishUsage(database.db, { accountId, requestId: 'r-bad', latencyMs: 5, ok: false });
    const { data } = await listUsage(database.db, accountId, { limit: 10 });
    expect(Object.fromEntries(data.map((u) => [u.ref, u.outcome]))).toEqual({
      'ok-1': 'succeeded',
      'bad-1': 'failed',
    });
  });
  it('finishes calls whose request ids hold quotes, commas and braces, each through the request index', async () => {
    const { accountId } = await account(10_000);
    const ids = ['r,1', 'r"2', 'r{3}', "r'4", 'r\\5', 'r 6', 'NULL'];
    for (const [i, requestId] of ids.entries()) {
      await charge({ accountId, amountMicroUsd: 10, ref: `odd-${i}`, requestId });
    }
    // the statement the batch sends, kept to be explained below
    let sent: { text: string; values: unknown[] } | undefined;
    const query = database.pool.query.bind(database.pool);
    const spy = jest.spyOn(database.pool, 'query').mockImplementation(((...args: unknown[]) => {
      const q = args[0] as { text?: string; values?: unknown[] };
      if (q?.text?.includes('update usage_records'))
        sent = { text: q.text, values: q.values ?? (args[1] as unknown[]) ?? [] };
      return (query as (...a: unknown[]) => unknown)(...args);
    }) as never);
    try {
      await finishUsageBatch(
        database.db,
        ids.map((requestId, i) => ({ accountId, requestId, latencyMs: 100 + i, ok: true })),
      );
    } finally {
      spy.mockRestore();
    }
    const { data } = await listUsage(database.db, accountId, { limit: 10 });
    expect(Object.fromEntries(data.map((u) => [u.ref, [u.latencyMs, u.outcome]]))).toEqual(
      Object.fromEntries(ids.map((_, i) => [`odd-${i}`, [100 + i, 'succeeded']])),
    );
    // with a table of some thousands of rows of one account: the batch never reads the account's
    // rows through its index (before the table's first statistics either), and once the table has
    // statistics each call is looked up by request id
    await database.pool.query(
      `insert into usage_records (account_id, ref, cost_micro_usd, request_id)
         select $1, 'bulk-' || g, 1, 'bulk-req-' || g from generate_series(1, 5000) g`,
      [accountId],
    );
    const plan = async () =>
      (await database.pool.query(`explain ${sent!.text}`, sent!.values)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    expect(await plan()).not.toMatch(/usage_records_account_idx/);
    await database.pool.query('analyze usage_records');
    const analyzed = await plan();
    expect(analyzed).toMatch(/usage_records_request_idx/);
    expect(analyzed).not.toMatch(/usage_records_account_idx|Seq Scan on usage_records/);
  });
});

describe('usage recorder', () => {
  it('writes every finished call, batching those that arrive while a write runs', async () => {
    const { accountId } = await account(1_000_000);
    const n = 300;
    for (let i = 0; i < n; i += 1) {
      await charge({ accountId, amountMicroUsd: 10, ref: `batch-${i}`, requestId: `rq-${i}` });
    }
    await database.db.transaction((tx) => refundCall(tx, { accountId, amountMicroUsd: 10, ref: 'batch-7' }));
    let writes = 0;
    const statements = database.pool.query.bind(database.pool);
    const spy = jest.spyOn(database.pool, 'query').mockImplementation(((...args: unknown[]) => {
      if (String((args[0] as { text?: string })?.text ?? args[0]).includes('update usage_records'))
        writes += 1;
      return (statements as (...a: unknown[]) => unknown)(...args);
    }) as never);
    const errors: unknown[] = [];
    const recorder = createUsageRecorder(database.db, (err) => errors.push(err));
    try {
      for (let i = 0; i < n; i += 1) {
        recorder.record({ accountId, requestId: `rq-${i}`, latencyMs: i, ok: i % 50 !== 3 });
      }
      recorder.record({ accountId: 'acct_someone_else', requestId: 'rq-0', latencyMs: 99_999, ok: true });
      await recorder.drain();
    } finally {
      spy.mockRestore();
    }
    expect(errors).toEqual([]);
    // the first call is written alone, everything recorded meanwhile in the next statement
    expect(writes).toBe(2);
    const { data } = await listUsage(database.db, accountId, { limit: 1_000 });
    const byRef = new Map(data.map((u) => [u.ref, u]));
    expect(byRef.get('batch-0')).toMatchObject({ latencyMs: 0, outcome: 'succeeded' });
    expect(byRef.get('batch-3')).toMatchObject({ latencyMs: 3, outcome: 'accepted' });
    expect(byRef.get('batch-7')).toMatchObject({ latencyMs: 7, outcome: 'failed' });
    expect(byRef.get('batch-299')).toMatchObject({ latencyMs: 299, outcome: 'succeeded' });
    expect(data.filter((u) => u.latencyMs === null)).toEqual([]);
  });

  it('with a linger, writes the calls of the interval in one statement, and at once when drained', async () => {
    const { accountId } = await account(1_000_000);
    for (let i = 0; i < 3; i += 1) {
      await charge({ accountId, amountMicroUsd: 10, ref: `linger-${i}`, requestId: `lq-${i}` });
    }
    let writes = 0;
    const statements = database.pool.query.bind(database.pool);
    const spy = jest.spyOn(database.pool, 'query').mockImplementation(((...args: unknown[]) => {
      if (String((args[0] as { text?: string })?.text ?? args[0]).includes('update usage_records'))
        writes += 1;
      return (statements as (...a: unknown[]) => unknown)(...args);
    }) as never);
    const latencies = async () =>
      (await listUsage(database.db, accountId, { limit: 10 })).data.map((u) => u.latencyMs).sort();
    const recorder = createUsageRecorder(database.db, (err) => expect(err).toBeUndefined(), {
      lingerMs: 60_000,
    });
    try {
      recorder.record({ accountId, requestId: 'lq-0', latencyMs: 10, ok: true });
      // the calls that end apart, within the linger, wait for each other instead of a write each
      await new Promise((r) => setTimeout(r, 50));
      recorder.record({ accountId, requestId: 'lq-1', latencyMs: 11, ok: true });
      await new Promise((r) => setTimeout(r, 50));
      recorder.record({ accountId, requestId: 'lq-2', latencyMs: 12, ok: true });
      expect(writes).toBe(0);
      expect(await latencies()).toEqual([null, null, null]);
      // a shutdown does not wait out the linger
      await recorder.drain();
    } finally {
      spy.mockRestore();
    }
    expect(writes).toBe(1);
    expect(await latencies()).toEqual([10, 11, 12]);
  });
});

describe('top-ups', () => {
  const policy = { minMicroUsd: 7_000_000, bonusThresholdMicroUsd: 100_000_000, bonusPercent: 10 };

  it('credits once per reference, with a separate bonus entry at the threshold', async () => {
    const { accountId } = await account(0);
    const first = await recordTopUp(
      database.db,
      { accountId, provider: 'bank_transfer', reference: 'T-1', amountMicroUsd: 100_000_000 },
      policy,
    );
    expect(first).toMatchObject({ credited: true, bonusMicroUsd: 10_000_000 });
    const again = await recordTopUp(
      database.db,
      { accountId, provider: 'bank_transfer', reference: 'T-1', amountMicroUsd: 100_000_000 },
      policy,
    );
    expect(again).toMatchObject({ credited: false, paymentId: first.paymentId });
    await recordTopUp(
      database.db,
      { accountId, provider: 'bank_transfer', reference: 'T-2', amountMicroUsd: 7_000_000 },
      policy,
    );
    expect(await balance(accountId)).toBe(117_000_000);
    const { data } = await listLedger(database.db, accountId, { limit: 10 });
    expect(data.map((e) => [e.kind, e.amountMicroUsd])).toEqual([
      ['topup', 7_000_000],
      ['bonus', 10_000_000],
      ['topup', 100_000_000],
    ]);
  });

  it('credits a reference once even when notified concurrently', async () => {
    const { accountId } = await account(0);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        recordTopUp(
          database.db,
          { accountId, provider: 'qr', reference: 'P-1', amountMicroUsd: 8_000_000 },
          policy,
        ),
      ),
    );
    expect(results.filter((r) => r.credited)).toHaveLength(1);
    expect(await balance(accountId)).toBe(8_000_000);
  });

  it('refuses a top-up under the minimum and an unknown account', async () => {
    const { accountId } = await account(0);
    await expect(
      recordTopUp(
        database.db,
        { accountId, provider: 'qr', reference: 'S', amountMicroUsd: 6_999_999 },
        policy,
      ),
    ).rejects.toBeInstanceOf(TopUpTooSmallError);
    await expect(
      recordTopUp(
        database.db,
        { accountId: 'acct_nope', provider: 'qr', reference: 'S', amountMicroUsd: 7_000_000 },
        policy,
      ),
    ).rejects.toBeInstanceOf(UnknownAccountError);
    expect(await balance(accountId)).toBe(0);
  });
});
