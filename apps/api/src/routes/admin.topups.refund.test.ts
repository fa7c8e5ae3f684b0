import type { PaymentKeySet } from '@mediagate/payment-sim';
import { ensureAdminAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { reconcileTopUpOrders, reconcileTopUpRefunds } from '@mediagate/shared/payments';
import { waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, type TestApi } from '../../test/harness';
import { type Provider, refundNotification } from '../../test/payment-notifications';
import { type PaymentSimApi, startPaymentSimApi } from '../../test/payment-sim';

let s: PaymentSimApi;
let api: TestApi;
let keys: PaymentKeySet;
let admin: string;

beforeAll(async () => {
  // WeChat Pay ends a refund after 300 ms
  s = await startPaymentSimApi({}, { PAYSIM_WECHAT_REFUND_MS: '300' });
  ({ api, keys } = s);
  await ensureAdminAccount(api.database.db, {
    email: 'refunds-ops@example.test',
    password: 'operator-password',
  });
  const res = await call(api, 'POST', '/console/api/login', {
    json: { email: 'refunds-ops@example.test', password: 'operator-password' },
  });
  admin = ((await res.json()) as { token: string }).token;
});
afterAll(() => s.close());
afterEach(async () => {
  // balance = sum(ledger), and never below zero, after every test
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
  const { rows } = await api.database.pool.query(
    'select count(*)::int as n from accounts where balance_micro_usd < 0',
  );
  expect(rows[0].n).toBe(0);
});

const refundRows = async (accountId: string) =>
  (
    await api.database.pool.query(
      `select kind, amount_micro_usd::bigint::text as amount, ref, reason, details from ledger_entries
       where account_id = $1 and kind = 'refund' order by id`,
      [accountId],
    )
  ).rows as Array<{ kind: string; amount: string; ref: string; reason: string; details: unknown }>;
const refundsOf = async (orderId: string) =>
  (
    await api.database.pool.query(
      `select id, refund_no, provider_refund_id, origin, status, amount_fen::int as amount_fen,
              debit_micro_usd::bigint::text as debit, uncovered_micro_usd::bigint::text as uncovered, failure
       from topup_refunds where order_id = $1 order by created_at`,
      [orderId],
    )
  ).rows;
const orderRow = async (orderId: string) =>
  (
    await api.database.pool.query(
      'select status, refunded_fen::int as refunded_fen from topup_orders where id = $1',
      [orderId],
    )
  ).rows[0] as { status: string; refunded_fen: number };

/** A customer with a paid and credited QR top-up of `amountCny`. */
async function paidTopUp(provider: Provider, amountCny = 35) {
  const user = await consoleAccount(api, 0);
  const res = await consoleCall(api, 'POST', '/console/api/topups', user.session, {
    amount_cny: amountCny,
    provider,
  });
  const topUp = (await res.json()) as { id: string };
  expect((await s.control('POST', '/pay', { vendor: provider, out_trade_no: topUp.id })).status).toBe(200);
  await waitFor(async () => (await orderRow(topUp.id)).status === 'credited', { what: 'credited' });
  return { ...user, orderId: topUp.id, amountFen: Math.round(amountCny * 100) };
}

const accepted = async (provider: Provider, res: Response) => {
  if (provider === 'alipay') expect(await res.text()).toBe('success');
  else expect(res.status).toBe(204);
};

describe.each(['alipay', 'wechat'] as const)('%s: refunds made in the merchant portal', (provider) => {
  it('takes back the refunded share of the credit once, whatever the replays', async () => {
    const t = await paidTopUp(provider, 35);
    expect(await s.balance(t.accountId)).toBe(7_000_000);
    // half refunded in the portal: the vendor notifies it (Alipay as refund_fee on the trade)
    await s.control('POST', '/refund', { vendor: provider, out_trade_no: t.orderId, amount_fen: 1750 });
    await waitFor(async () => (await s.balance(t.accountId)) === 3_500_000, { what: 'debited' });
    const [refund] = await refundsOf(t.orderId);
    expect(refund).toMatchObject({
      origin: 'provider',
      status: 'succeeded',
      amount_fen: 1750,
      debit: '3500000',
      uncovered: '0',
    });
    expect(await refundRows(t.accountId)).toEqual([
      {
        kind: 'refund',
        amount: '-3500000',
        ref: refund.id,
        reason: `refund of 17.50 CNY of a top-up of 35.00 CNY via ${provider}`,
        details: { cause: 'topup_refund', provider, order_id: t.orderId, refund_fen: 1750, topup_fen: 3500 },
      },
    ]);
    expect(await orderRow(t.orderId)).toEqual({ status: 'credited', refunded_fen: 1750 });
    // the same notification again, and ten copies at once: nothing more is taken
    const again = refundNotification(keys, provider, t, {
      refundNo: refund.refund_no,
      refundId: refund.provider_refund_id ?? undefined,
      amountFen: 1750,
      refundedTotalFen: 1750,
    });
    await accepted(provider, await s.notify(provider, again));
    const copies = await Promise.all(Array.from({ length: 10 }, () => s.notify(provider, again)));
    for (const res of copies) await accepted(provider, res);
    expect(await s.balance(t.accountId)).toBe(3_500_000);
    expect(await refundsOf(t.orderId)).toHaveLength(1);
    expect(await refundRows(t.accountId)).toHaveLength(1);
  });

  it('a race of duplicate notifications of a new refund debits once', async () => {
    const t = await paidTopUp(provider, 35);
    // the vendor's own notification is lost; twelve copies of one arrive at once
    await s.control('POST', '/refund', {
      vendor: provider,
      out_trade_no: t.orderId,
      amount_fen: 3500,
      notify: false,
    });
    const { json } = await s.control('GET', `/orders/${provider}/${t.orderId}`);
    const made = json.refunds[0] as { no: string; refund_id: string };
    if (provider === 'wechat')
      await waitFor(
        async () =>
          (await s.control('GET', `/orders/wechat/${t.orderId}`)).json.refunds[0].status === 'SUCCESS',
        { what: 'refund ended' },
      );
    const n = refundNotification(keys, provider, t, {
      refundNo: made.no,
      refundId: made.refund_id,
      amountFen: 3500,
      refundedTotalFen: 3500,
    });
    const answers = await Promise.all(Array.from({ length: 12 }, () => s.notify(provider, n)));
    for (const res of answers) await accepted(provider, res);
    expect(await s.balance(t.accountId)).toBe(0);
    expect(await refundRows(t.accountId)).toEqual([expect.objectContaining({ amount: '-7000000' })]);
    expect(await orderRow(t.orderId)).toEqual({ status: 'credited', refunded_fen: 3500 });
  });

  it('never takes the balance below zero: what was already spent is recorded as uncovered', async () => {
    const t = await paidTopUp(provider, 35);
    // the customer spent 6 of the 7 USD
    await api.database.pool.query(
      `with l as (insert into ledger_entries (account_id, kind, amount_micro_usd, ref) values ($1, 'charge', -6000000, $2))
       update accounts set balance_micro_usd = balance_micro_usd - 6000000 where id = $1`,
      [t.accountId, `spent-${t.orderId}`],
    );
    await s.control('POST', '/refund', { vendor: provider, out_trade_no: t.orderId });
    await waitFor(async () => (await refundsOf(t.orderId))[0]?.status === 'succeeded', {
      what: 'refund recorded',
    });
    expect(await s.balance(t.accountId)).toBe(0);
    expect((await refundsOf(t.orderId))[0]).toMatchObject({
      debit: '1000000',
      uncovered: '6000000',
      amount_fen: 3500,
    });
    // the operator's view shows the uncovered part
    const listed = await consoleCall(api, 'GET', `/admin/api/topups/${t.orderId}/refunds`, admin);
    const body = (await expectContract(listed, contractFor('get /admin/api/topups/:id/refunds'), 200)) as any;
    expect(body.data[0]).toMatchObject({
      status: 'succeeded',
      debit_usd: 1,
      uncovered_usd: 6,
      origin: 'provider',
    });
  });
});

describe('WeChat Pay REFUND is not a payment to credit', () => {
  it('holds an order the reconciler finds refunded before it was credited; it is never credited', async () => {
    const user = await consoleAccount(api, 0);
    const res = await consoleCall(api, 'POST', '/console/api/topups', user.session, {
      amount_cny: 35,
      provider: 'wechat',
    });
    const { id } = (await res.json()) as { id: string };
    // paid (its notification lost) and refunded in the portal (that notification lost too)
    await s.control('POST', '/pay', { vendor: 'wechat', out_trade_no: id, notify: false });
    await s.control('POST', '/refund', { vendor: 'wechat', out_trade_no: id, notify: false });
    expect((await s.control('GET', `/orders/wechat/${id}`)).json.refunded_fen).toBe(3500);
    await reconcileTopUpOrders(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
    expect(await orderRow(id)).toMatchObject({ status: 'paid' });
    expect(await s.balance(user.accountId)).toBe(0);
    // again: still nothing
    await reconcileTopUpOrders(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
    expect(await s.balance(user.accountId)).toBe(0);
  });
});

const refund = (orderId: string, body: unknown, session = admin) =>
  consoleCall(api, 'POST', `/admin/api/topups/${orderId}/refund`, session, body);
const contract = contractFor('post /admin/api/topups/:id/refund');

describe.each(['alipay', 'wechat'] as const)('%s: operator refunds through the refund API', (provider) => {
  it('refunds through the provider and debits once (the bonus prorated exactly)', async () => {
    // 500 CNY credits 100 USD and a 10 USD bonus; a third (166.67 CNY) takes floor(110 * 16667 / 50000) USD back
    const t = await paidTopUp(provider, 500);
    expect(await s.balance(t.accountId)).toBe(110_000_000);
    const res = await refund(t.orderId, { amount_cny: 166.67, reason: 'customer asked' });
    const r = (await expectContract(res, contract, provider === 'alipay' ? 201 : 202)) as any;
    expect(r).toMatchObject({
      topup_id: t.orderId,
      amount_cny: 166.67,
      origin: 'operator',
      reason: 'customer asked',
    });
    // Alipay refunds at once; WeChat Pay answers PROCESSING and notifies the success
    await waitFor(async () => (await refundsOf(t.orderId))[0]?.status === 'succeeded', {
      what: 'refund succeeded',
    });
    expect(await s.balance(t.accountId)).toBe(110_000_000 - 36_667_400);
    // the rest (default: all that is left) takes back exactly what remains of credit and bonus
    const rest = (await (await refund(t.orderId, { reason: 'the rest' })).json()) as any;
    expect(rest.amount_cny).toBe(333.33);
    await waitFor(async () => (await refundsOf(t.orderId)).every((x) => x.status === 'succeeded'), {
      what: 'both succeeded',
    });
    expect(await s.balance(t.accountId)).toBe(0);
    expect((await refundRows(t.accountId)).map((x) => x.amount)).toEqual(['-36667400', '-73332600']);
    expect(await orderRow(t.orderId)).toEqual({ status: 'credited', refunded_fen: 50000 });
    // the vendor agrees, and its notifications (sent to us) changed nothing more
    expect((await s.control('GET', `/orders/${provider}/${t.orderId}`)).json.refunded_fen).toBe(50000);
    expect(await refundsOf(t.orderId)).toHaveLength(2);
    // the audit log has each request and, beside it, its outcome (what the provider did, what it took)
    const audit = await api.database.pool.query(
      `select action, target_type, reason, after from audit_log where target_id = $1 order by id`,
      [t.orderId],
    );
    const [first, second] = await refundsOf(t.orderId);
    const requests = audit.rows.filter((r) => r.action === 'topup.refund');
    const outcomes = audit.rows.filter((r) => r.action === 'topup.refund_outcome');
    expect(requests.map((r) => r.reason)).toEqual(['customer asked', 'the rest']);
    expect(outcomes).toEqual([
      {
        action: 'topup.refund_outcome',
        target_type: 'topup',
        reason: 'customer asked',
        after: {
          refund_id: first.id,
          status: 'succeeded',
          amount_cny: 166.67,
          debit_micro_usd: 36_667_400,
          uncovered_micro_usd: 0,
          failure: null,
        },
      },
      expect.objectContaining({
        reason: 'the rest',
        after: expect.objectContaining({
          refund_id: second.id,
          status: 'succeeded',
          debit_micro_usd: 73_332_600,
        }),
      }),
    ]);
  });

  it("tells the operator the provider's refusal (409) and leaves the balance alone", async () => {
    const t = await paidTopUp(provider, 35);
    await s.control('POST', '/refund-behaviour', {
      vendor: provider,
      out_trade_no: t.orderId,
      outcome: 'refuse',
    });
    const err = await expectError(await refund(t.orderId, { reason: 'refused' }), 409, 'conflict');
    expect(err.message).toMatch(provider === 'alipay' ? /ACQ\.SELLER_BALANCE_NOT_ENOUGH/ : /NOT_ENOUGH/);
    expect(await s.balance(t.accountId)).toBe(7_000_000);
    expect(await refundsOf(t.orderId)).toEqual([expect.objectContaining({ status: 'failed', debit: '0' })]);
    const outcome = await api.database.pool.query(
      `select after from audit_log where target_id = $1 and action = 'topup.refund_outcome'`,
      [t.orderId],
    );
    expect(outcome.rows).toEqual([
      {
        after: expect.objectContaining({ status: 'failed', debit_micro_usd: 0, failure: expect.any(String) }),
      },
    ]);
    // a refused refund reserves nothing: the whole payment can still be refunded
    const ok = await refund(t.orderId, { reason: 'again' });
    expect([201, 202]).toContain(ok.status);
    await waitFor(async () => (await s.balance(t.accountId)) === 0, { what: 'debited' });
  });

  it('finishes a refund whose answer and notification were lost, from the reconciler, once', async () => {
    const t = await paidTopUp(provider, 35);
    await s.control('POST', '/refund-behaviour', {
      vendor: provider,
      out_trade_no: t.orderId,
      outcome: 'no_answer',
      notify: false,
    });
    const r = (await expectContract(
      await refund(t.orderId, { amount_cny: 10, reason: 'lost' }),
      contract,
      202,
    )) as any;
    expect(r.status).toBe('pending');
    expect(await s.balance(t.accountId)).toBe(7_000_000);
    // while pending, at most what is not under way can be refunded
    await expectError(await refund(t.orderId, { amount_cny: 25.01, reason: 'too much' }), 409, 'conflict');
    await waitFor(
      async () => {
        await reconcileTopUpRefunds(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
        return (await refundsOf(t.orderId))[0]?.status === 'succeeded';
      },
      { what: 'reconciled' },
    );
    expect(await s.balance(t.accountId)).toBe(5_000_000);
    await reconcileTopUpRefunds(api.database.db, api.deps.qrProviders!, { afterMs: 0 });
    expect(await s.balance(t.accountId)).toBe(5_000_000);
    expect(await refundRows(t.accountId)).toHaveLength(1);
  });

  it('never refunds more than was paid (409), and refuses bad input (400), unpaid or unknown top-ups and non-operators', async () => {
    const t = await paidTopUp(provider, 35);
    expect([201, 202]).toContain((await refund(t.orderId, { amount_cny: 20, reason: 'first' })).status);
    const over = await expectError(
      await refund(t.orderId, { amount_cny: 15.01, reason: 'second' }),
      409,
      'conflict',
    );
    expect(over).toMatchObject({ param: 'amount_cny', message: expect.stringMatching(/15\.00 CNY left/) });
    for (const body of [
      { amount_cny: 1.001, reason: 'x' },
      { amount_cny: 0, reason: 'x' },
      { amount_cny: '5', reason: 'x' },
      { amount_cny: 5 },
      { amount_cny: 5, reason: 'x', extra: 1 },
    ]) {
      await expectError(await refund(t.orderId, body), 400, 'invalid_request');
    }
    await expectError(await refund('top_00000000000000000000000000', { reason: 'x' }), 404, 'not_found');
    const unpaid = await consoleCall(api, 'POST', '/console/api/topups', t.session, {
      amount_cny: 35,
      provider,
    });
    const { id } = (await unpaid.json()) as { id: string };
    await expectError(await refund(id, { reason: 'unpaid' }), 409, 'conflict');
    await expectError(await refund(t.orderId, { reason: 'mine' }, t.session), 403, 'permission_denied');
    await waitFor(async () => (await s.balance(t.accountId)) === 3_000_000, { what: 'first refund debited' });
    expect(await refundsOf(t.orderId)).toHaveLength(1);
  });
});

describe('a refund reported for more than is left of the payment', () => {
  const provider = 'wechat' as const;
  const held = async () =>
    (await api.deps.metrics!.registry.getSingleMetric('mediagate_topup_refunds_total')?.get())?.values.find(
      (v) => v.labels.provider === provider && v.labels.outcome === 'held',
    )?.value ?? 0;

  it('is acknowledged, held for an operator, counted, and debits nothing', async () => {
    const t = await paidTopUp(provider, 35);
    // 20 CNY refunded in the portal, taken back (4 USD)
    await s.control('POST', '/refund', { vendor: provider, out_trade_no: t.orderId, amount_fen: 2000 });
    await waitFor(async () => (await s.balance(t.accountId)) === 3_000_000, { what: 'first refund debited' });
    const before = await held();
    // then WeChat Pay notifies another 20 CNY: 40 refunded of 35 paid, more than the rule can take
    const n = refundNotification(keys, provider, t, {
      refundNo: 'portal-over-1',
      refundId: '50300999',
      amountFen: 2000,
      refundedTotalFen: 4000,
    });
    await accepted(provider, await s.notify(provider, n));
    expect(await s.balance(t.accountId)).toBe(3_000_000);
    expect(await orderRow(t.orderId)).toEqual({ status: 'credited', refunded_fen: 2000 });
    const rows = await refundsOf(t.orderId);
    expect(rows[1]).toMatchObject({
      refund_no: 'portal-over-1',
      status: 'held',
      amount_fen: 2000,
      debit: '0',
    });
    expect(rows[1].failure).toMatch(/40\.00 CNY refunded in all of 35\.00 CNY paid/);
    expect(await held()).toBe(before + 1);
    // sent again: acknowledged, still held once, nothing more counted or debited
    await accepted(provider, await s.notify(provider, n));
    expect(await held()).toBe(before + 1);
    expect(await refundsOf(t.orderId)).toHaveLength(2);
    expect(await refundRows(t.accountId)).toHaveLength(1);
    // the operator sees it, in the top-up's refunds and in the list of held refunds
    const listed = await consoleCall(api, 'GET', `/admin/api/topups/${t.orderId}/refunds`, admin);
    const body = (await expectContract(listed, contractFor('get /admin/api/topups/:id/refunds'), 200)) as any;
    expect(body.data[1]).toMatchObject({ status: 'held', debit_usd: 0, amount_cny: 20 });
    const all = await consoleCall(api, 'GET', '/admin/api/topup-refunds?status=held', admin);
    const heldList = (await expectContract(all, contractFor('get /admin/api/topup-refunds'), 200)) as any;
    expect(heldList.data.map((r: { id: string }) => r.id)).toContain(rows[1].id);
    // the held 20 CNY counts against what is left (the provider says 40 of 35 were refunded): nothing
    // is left to refund, not the rest nor a part of it
    await expectError(await refund(t.orderId, { reason: 'the rest' }), 409, 'conflict');
    await expectError(await refund(t.orderId, { amount_cny: 1, reason: 'part' }), 409, 'conflict');
    expect(await refundsOf(t.orderId)).toHaveLength(2);
  });
});
