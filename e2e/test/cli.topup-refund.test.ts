import { createDatabase, type Database } from '@mediagate/shared/db';
import { waitFor } from '@mediagate/shared/testing';
import { type PaySimProcess, paidTopUp as paidTopUpAt, startPaySimProcess } from './payment-sim';
import { type Stack, startStack } from './stack';

// `pnpm cli topup:refund`: an operator's refund of a QR top-up from the command line, through the
// payment simulator's Alipay, against a real API, Postgres and Redis: what it refunds, what it
// refuses (with a message and a non-zero exit), and that it is audited like the console's Refund.
const OPERATOR = { email: 'cli-refunds-ops@example.test', password: 'operator-password-1' };

let stack: Stack;
let paysim: PaySimProcess;
let database: Database;

beforeAll(async () => {
  paysim = await startPaySimProcess();
  stack = await startStack({
    videoWorkers: 0,
    reconciler: false,
    env: { ADMIN_EMAIL: OPERATOR.email, ADMIN_PASSWORD: OPERATOR.password, ...paysim.merchantEnv },
  });
  database = createDatabase(stack.env.DATABASE_URL!, { max: 2 });
  // the API makes the operator at its start, without waiting for it
  await waitFor(
    async () =>
      (await stack.pool.query(`select 1 from accounts where email = $1 and role = 'admin'`, [OPERATOR.email]))
        .rowCount === 1,
    { what: 'the operator account' },
  );
}, 180_000);

afterAll(async () => {
  await database?.close();
  await stack?.stop();
  await paysim?.stop();
});

const balance = async (accountId: string) =>
  Number(
    (await stack.pool.query('select balance_micro_usd::text as b from accounts where id = $1', [accountId]))
      .rows[0].b,
  );
const refundCli = (topUp: string, ...more: string[]) =>
  stack.cli(['topup:refund', topUp, '--operator', OPERATOR.email, ...more]);

let n = 0;
/** A customer who paid 35 CNY through Alipay (7 USD credited). */
async function paidTopUp(): Promise<{ email: string; accountId: string; topUp: string }> {
  n += 1;
  const email = `cli-refund-${n}-${Date.now()}@example.test`;
  const { accountId, topUp } = await paidTopUpAt({ database, apiUrl: stack.apiUrl, paysim }, email);
  return { email, accountId, topUp };
}

describe('pnpm cli topup:refund', () => {
  it('is listed by --help', () => {
    const r = stack.cli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/topup:refund <topup id> --operator/);
  });

  it('refunds through the provider, takes the refunded share back once, and audits request and outcome', async () => {
    const t = await paidTopUp();
    const r = refundCli(t.topUp, '--amount-cny', '10', '--reason', 'customer asked by phone');
    expect(r.stderr).toMatch(
      /^refunded: refund rfd_\w+ of 10\.00 CNY of top_\w+ \(alipay, account acct_\w+\); took back 2\.00 USD/,
    );
    expect(r.status).toBe(0);
    const refundId = r.stdout.trim();
    expect(refundId).toMatch(/^rfd_[0-9A-Z]{26}$/);
    expect(await balance(t.accountId)).toBe(5_000_000);
    const audit = await stack.pool.query(
      `select action, operator_email, reason, after->>'status' as status from audit_log where target_id = $1 order by id`,
      [t.topUp],
    );
    expect(audit.rows).toEqual([
      {
        action: 'topup.refund',
        operator_email: OPERATOR.email,
        reason: 'customer asked by phone',
        status: null,
      },
      {
        action: 'topup.refund_outcome',
        operator_email: OPERATOR.email,
        reason: 'customer asked by phone',
        status: 'succeeded',
      },
    ]);
    // more than is left (25.00 CNY) refunds nothing: a message naming what is left, exit 1
    const over = refundCli(t.topUp, '--amount-cny', '25.01', '--reason', 'too much');
    expect(over.status).toBe(1);
    expect(over.stdout).toBe('');
    expect(over.stderr).toMatch(/25\.00 CNY left to refund.*Nothing was refunded/);
    // the rest, by default all that is left
    const rest = refundCli(t.topUp, '--reason', 'the rest');
    expect(rest.status).toBe(0);
    expect(await balance(t.accountId)).toBe(0);
    const none = refundCli(t.topUp, '--reason', 'again');
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/0\.00 CNY left to refund/);
  });

  it("says the provider's refusal and a refund left under way, with a non-zero exit", async () => {
    const t = await paidTopUp();
    await paysim.control('/refund-behaviour', { vendor: 'alipay', out_trade_no: t.topUp, outcome: 'refuse' });
    const refused = refundCli(t.topUp, '--reason', 'refused');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /the provider refused refund rfd_\w+ .*ACQ\.SELLER_BALANCE_NOT_ENOUGH.*nothing was refunded/,
    );
    expect(await balance(t.accountId)).toBe(7_000_000);
    await paysim.control('/refund-behaviour', {
      vendor: 'alipay',
      out_trade_no: t.topUp,
      outcome: 'no_answer',
    });
    const underWay = refundCli(t.topUp, '--amount-cny', '5', '--reason', 'lost answer');
    expect(underWay.status).toBe(3);
    expect(underWay.stdout).toMatch(/^rfd_/);
    expect(underWay.stderr).toMatch(/under way at the provider and not finished yet/);
    // logged as the API logs it, on stderr (stdout is the refund id alone)
    expect(underWay.stderr).toMatch(/"service":"cli".*no answer from the provider; left pending for the reconciler/);
  });

  it('refuses what it cannot do: usage mistakes exit 2, an unknown top-up or a non-operator exit 1', async () => {
    const t = await paidTopUp();
    for (const args of [
      ['topup:refund'],
      ['topup:refund', t.topUp, '--operator', OPERATOR.email],
      ['topup:refund', t.topUp, '--reason', 'x'],
      ['topup:refund', t.topUp, '--operator', OPERATOR.email, '--reason', 'x', '--amount-cny', '1.001'],
      ['topup:refund', t.topUp, '--operator', OPERATOR.email, '--reason', 'x', '--amount-cny', '-5'],
      ['topup:refund', t.topUp, 'another', '--operator', OPERATOR.email, '--reason', 'x'],
    ]) {
      const r = stack.cli(args);
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
    }
    const unknown = refundCli('top_00000000000000000000000000', '--reason', 'x');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/no top-up has the id top_0+; nothing was refunded/);
    const customer = stack.cli(['topup:refund', t.topUp, '--operator', t.email, '--reason', 'mine']);
    expect(customer.status).toBe(1);
    expect(customer.stderr).toMatch(/is not an active operator account; nothing was refunded/);
    expect(await balance(t.accountId)).toBe(7_000_000);
    expect(
      (await stack.pool.query('select count(*)::int as n from topup_refunds where order_id = $1', [t.topUp]))
        .rows[0].n,
    ).toBe(0);
  });
});
