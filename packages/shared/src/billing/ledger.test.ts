import { sql } from 'drizzle-orm';
import { createAccount, getAccount } from '../accounts';
import type { Database } from '../db/client';
import { InsufficientQuotaError } from '../errors';
import { openTestDatabase } from '../testing/services';
import { chargeForCall, findLedgerMismatches, refundCall } from './ledger';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());
afterEach(async () => {
  expect(await findLedgerMismatches(database.db)).toEqual([]);
});

const balance = async (id: string) => (await getAccount(database.db, id))!.balanceMicroUsd;

describe('ledger', () => {
  it('charges, refuses an overdraft, and refunds once per ref', async () => {
    const { accountId } = await createAccount(database.db, {
      email: 'a@example.test',
      initialCreditMicroUsd: 1_000,
    });
    await database.db.transaction((tx) =>
      chargeForCall(tx, { accountId, amountMicroUsd: 600, ref: 'call-1' }),
    );
    expect(await balance(accountId)).toBe(400);
    await expect(
      database.db.transaction((tx) => chargeForCall(tx, { accountId, amountMicroUsd: 600, ref: 'call-2' })),
    ).rejects.toBeInstanceOf(InsufficientQuotaError);
    expect(await balance(accountId)).toBe(400);
    expect(
      await database.db.transaction((tx) =>
        refundCall(tx, { accountId, amountMicroUsd: 600, ref: 'call-1' }),
      ),
    ).toBe(true);
    expect(
      await database.db.transaction((tx) =>
        refundCall(tx, { accountId, amountMicroUsd: 600, ref: 'call-1' }),
      ),
    ).toBe(false);
    expect(await balance(accountId)).toBe(1_000);
  });

  it('refuses a second charge for the same ref', async () => {
    const { accountId } = await createAccount(database.db, {
      email: 'b@example.test',
      initialCreditMicroUsd: 1_000,
    });
    await database.db.transaction((tx) => chargeForCall(tx, { accountId, amountMicroUsd: 100, ref: 'dup' }));
    await expect(
      database.db.transaction((tx) => chargeForCall(tx, { accountId, amountMicroUsd: 100, ref: 'dup' })),
    ).rejects.toThrow();
    expect(await balance(accountId)).toBe(900);
  });

  it('lets exactly as many concurrent charges through as the balance covers', async () => {
    const { accountId } = await createAccount(database.db, {
      email: 'c@example.test',
      initialCreditMicroUsd: 1_000,
    });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        database.db.transaction((tx) =>
          chargeForCall(tx, { accountId, amountMicroUsd: 100, ref: `race-${i}` }),
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(await balance(accountId)).toBe(0);
  });

  it("commits an image call's charge on its own without touching its connection's durability", async () => {
    // the charge of a call that settles later commits without its WAL flush (the settlement's
    // synchronous commit flushes it): the setting must end with the statement, and a charge in a
    // caller's transaction must not change that transaction's
    const one = await openTestDatabase({ max: 1 });
    try {
      const { accountId, key } = await createAccount(one.db, {
        email: 'd@example.test',
        initialCreditMicroUsd: 1_000,
      });
      const args = { accountId, keyId: key.id, amountMicroUsd: 100, settlesLater: true } as const;
      const setting = async () =>
        (await one.pool.query<{ synchronous_commit: string }>('show synchronous_commit')).rows[0]!
          .synchronous_commit;
      await chargeForCall(one.db, { ...args, ref: 'own-1' });
      await chargeForCall(one.db, { ...args, ref: 'own-2' });
      expect(await setting()).toBe('on');
      const inTx = await one.db.transaction(async (tx) => {
        await chargeForCall(tx, { ...args, ref: 'tx-1' });
        return (await tx.execute<{ synchronous_commit: string }>(sql`show synchronous_commit`)).rows[0]!
          .synchronous_commit;
      });
      expect(inTx).toBe('on');
      await expect(
        chargeForCall(one.db, { ...args, amountMicroUsd: 800, ref: 'own-3' }),
      ).rejects.toBeInstanceOf(InsufficientQuotaError);
      expect((await getAccount(one.db, accountId))!.balanceMicroUsd).toBe(700);
      expect(await findLedgerMismatches(one.db)).toEqual([]);
    } finally {
      await one.close();
    }
  });
});
