import { sql } from 'drizzle-orm';
import { createAccount } from '../accounts';
import { runBackfills } from '../db/backfills';
import type { Database } from '../db/client';
import { ledgerEntries } from '../db/schema';
import { openTestDatabase } from '../testing/services';
import { adjustBalance, refundCall } from './ledger';
import { recordTopUp } from './topups';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

const policy = { minMicroUsd: 7_000_000, bonusThresholdMicroUsd: 100_000_000, bonusPercent: 10 };

const detailsOf = async (accountId: string) =>
  (
    await database.db.execute<{ kind: string; ref: string | null; details: unknown }>(
      sql`select kind, ref, details from ledger_entries where account_id = ${accountId} order by id`,
    )
  ).rows;

describe('ledger details', () => {
  it('are written with every entry: grant, top-up and bonus, refund, adjustment', async () => {
    const { accountId } = await createAccount(database.db, {
      email: 'written@example.test',
      initialCreditMicroUsd: 50_000,
      grant: 'signup_credit',
    });
    await recordTopUp(
      database.db,
      { accountId, provider: 'bank_transfer', reference: 'WIRE-1', amountMicroUsd: 123_456_789 },
      policy,
    );
    await database.db.transaction(async (tx) => {
      await refundCall(tx, {
        accountId,
        amountMicroUsd: 1,
        ref: 'task_x',
        details: { cause: 'task_failed', error_code: 'DataInspectionFailed' },
      });
      await adjustBalance(tx, { accountId, amountMicroUsd: -2, reason: '补偿 double charge, ticket #7' });
    });
    expect(await detailsOf(accountId)).toEqual([
      { kind: 'grant', ref: null, details: { cause: 'signup_credit' } },
      {
        kind: 'topup',
        ref: 'bank_transfer:WIRE-1',
        details: {
          cause: 'payment',
          provider: 'bank_transfer',
          reference: 'WIRE-1',
          paid: { currency: 'USD', amount_micro_usd: 123_456_789 },
        },
      },
      {
        kind: 'bonus',
        ref: 'bank_transfer:WIRE-1',
        details: {
          cause: 'payment',
          provider: 'bank_transfer',
          reference: 'WIRE-1',
          paid: { currency: 'USD', amount_micro_usd: 123_456_789 },
        },
      },
      {
        kind: 'refund',
        ref: 'task_x',
        details: { cause: 'task_failed', error_code: 'DataInspectionFailed' },
      },
      {
        kind: 'adjustment',
        ref: null,
        details: { cause: 'operator', note: '补偿 double charge, ticket #7' },
      },
    ]);
  });

  it('are read back, after the migrations and in batches, from the texts of entries written before them', async () => {
    const { accountId } = await createAccount(database.db, { email: 'legacy@example.test' });
    const legacy: Array<[typeof ledgerEntries.$inferInsert.kind, string | null, string | null]> = [
      ['grant', null, 'test credit for a new account'],
      ['grant', null, 'operator grant (cli)'],
      ['grant', null, 'initial credit'],
      ['grant', null, 'a grant of unknown origin'],
      ['topup', 'alipay:top_01LEGACY', 'top-up of 499.99 CNY via alipay'],
      ['bonus', 'wechat:top_02LEGACY', 'bonus on a top-up of 1234.50 CNY via wechat'],
      ['topup', 'bank_transfer:WIRE-9', 'top-up of 100.000001 USD via bank_transfer'],
      ['bonus', 'alipay:top_03OLDER', 'bonus on a top-up of 35.5 CNY'],
      ['topup', 'dev:dev_04FIRST', 'top-up via dev'],
      ['bonus', 'dev:dev_04FIRST', '10% bonus on a top-up of at least 100 USD'],
      ['refund', 'task_a', 'task failed: canceled'],
      ['refund', 'img_b', '1 of 4 images not delivered'],
      ['refund', 'img_c', 'upstream call failed'],
      [
        'refund',
        'img_d',
        "not settled within 600 s (the call's process ended or its settlement failed); its result never reached the client",
      ],
      [
        'refund',
        'task_e',
        'usage settlement: quoted 500000, actual 400000 micro-USD (vendor reported 4.5 s, 720P, silent); refund 100000',
      ],
      ['refund', 'rfd_f', 'refund of 17.50 CNY of a top-up of 35.00 CNY via alipay'],
      ['refund', 'task_g', 'something nobody wrote'],
      ['adjustment', 'adj:T-1', 'goodwill, ticket 42'],
      ['charge', 'task_h', null],
    ];
    await database.db.insert(ledgerEntries).values(
      legacy.map(([kind, ref, reason]) => ({
        accountId,
        kind,
        ref,
        reason,
        amountMicroUsd: kind === 'charge' ? -1 : 1,
      })),
    );
    const client = await database.pool.connect();
    try {
      // batches of 4 rows: entries on both sides of a batch's end
      const [report] = await runBackfills(client, { batchSize: 4 });
      expect(report).toEqual({ name: 'ledger_details', updated: 16, unparsed: 2 });
      expect(await runBackfills(client)).toEqual([{ name: 'ledger_details', updated: 0, unparsed: 0 }]);
    } finally {
      client.release();
    }
    expect((await detailsOf(accountId)).map((r) => r.details)).toEqual([
      { cause: 'signup_credit' },
      { cause: 'operator_grant' },
      { cause: 'initial_credit' },
      null,
      {
        cause: 'payment',
        provider: 'alipay',
        reference: 'top_01LEGACY',
        paid: { currency: 'CNY', amount_fen: 49_999 },
      },
      {
        cause: 'payment',
        provider: 'wechat',
        reference: 'top_02LEGACY',
        paid: { currency: 'CNY', amount_fen: 123_450 },
      },
      {
        cause: 'payment',
        provider: 'bank_transfer',
        reference: 'WIRE-9',
        paid: { currency: 'USD', amount_micro_usd: 100_000_001 },
      },
      {
        cause: 'payment',
        provider: 'alipay',
        reference: 'top_03OLDER',
        paid: { currency: 'CNY', amount_fen: 3_550 },
      },
      {
        cause: 'payment',
        provider: 'dev',
        reference: 'dev_04FIRST',
        paid: { currency: 'USD', amount_micro_usd: 1 },
      },
      {
        cause: 'payment',
        provider: 'dev',
        reference: 'dev_04FIRST',
        paid: { currency: 'USD', amount_micro_usd: 1 },
      },
      { cause: 'task_failed', error_code: 'canceled' },
      { cause: 'images_not_delivered', missing: 1, requested: 4 },
      { cause: 'image_call_failed' },
      { cause: 'unsettled', after_s: 600 },
      {
        cause: 'usage_settlement',
        quoted_micro_usd: 500_000,
        actual_micro_usd: 400_000,
        duration_s: 4.5,
        resolution: '720P',
        audio: false,
      },
      { cause: 'topup_refund', provider: 'alipay', order_id: null, refund_fen: 1_750, topup_fen: 3_500 },
      null,
      { cause: 'operator', note: 'goodwill, ticket 42' },
      null,
    ]);
  });
});
