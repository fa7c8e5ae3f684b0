import { createVerify } from 'node:crypto';
import { alipayTime } from '@mediagate/shared/payments';
import { alipayCall, notificationSink, orderNo, startSim, until } from '../test/harness';

let sim: Awaited<ReturnType<typeof startSim>>;
let notifyUrl: string;
const sink = notificationSink(() => ({ status: 200, body: 'success' }));
beforeAll(async () => {
  sim = await startSim({ PAYSIM_TIME_SCALE: '0.001' });
  notifyUrl = `${await sim.listen(sink.app)}/notify`;
});
afterAll(() => sim.close());

const call = (method: string, biz: Record<string, unknown>, extra: Record<string, string> = {}) =>
  alipayCall(sim.url, sim.keys.merchant, method, biz, { notify_url: notifyUrl, ...extra });
const precreate = (no: string, biz: Record<string, unknown> = {}) =>
  call('alipay.trade.precreate', { out_trade_no: no, total_amount: '35.00', subject: 'Top-up', ...biz });
const pay = (no: string) => sim.control('POST', '/pay', { vendor: 'alipay', out_trade_no: no });
const age = (no: string, seconds: number) =>
  sim.control('POST', '/age', { vendor: 'alipay', out_trade_no: no, seconds });
const notificationsOf = (no: string) =>
  sink.received
    .map((r) => Object.fromEntries(new URLSearchParams(r.raw.toString('utf8'))))
    .filter((f) => f.out_trade_no === no);

describe('Alipay codes and trades live as long as Alipay lets them', () => {
  it('a precreated code is not a trade: closing it answers TRADE_NOT_EXIST and it stays payable', async () => {
    const no = orderNo('AC');
    await precreate(no, { timeout_express: '15m' });
    expect((await call('alipay.trade.close', { out_trade_no: no })).response).toMatchObject({
      code: '40004',
      sub_code: 'ACQ.TRADE_NOT_EXIST',
    });
    expect((await call('alipay.trade.query', { out_trade_no: no })).response.sub_code).toBe(
      'ACQ.TRADE_NOT_EXIST',
    );
    // 90 minutes later the code still scans (2 hours without qr_code_timeout_express)
    expect((await age(no, 90 * 60)).status).toBe(200);
    expect((await pay(no)).status).toBe(200);
    expect((await call('alipay.trade.query', { out_trade_no: no })).response.trade_status).toBe(
      'TRADE_SUCCESS',
    );
  });

  it('without qr_code_timeout_express the code dies 2 hours after the precreate', async () => {
    const no = orderNo('AD');
    await precreate(no, { timeout_express: '15m' });
    await age(no, 2 * 3600 + 1);
    expect((await pay(no)).status).toBe(409);
  });

  it('qr_code_timeout_express ends the code, counted from the precreate', async () => {
    const no = orderNo('AQ');
    await precreate(no, { qr_code_timeout_express: '15m' });
    await age(no, 14 * 60);
    expect((await sim.control('GET', `/orders/alipay/${no}`)).json.status).toBe('WAIT');
    await age(no, 61);
    expect((await pay(no)).status).toBe(409);
  });

  it('time_expire ends the order at that moment, scanned or not', async () => {
    const no = orderNo('AT');
    await precreate(no, {
      time_expire: alipayTime(new Date(Date.now() + 10 * 60_000)),
      timeout_express: '1d',
    });
    await sim.control('POST', '/scan', { vendor: 'alipay', out_trade_no: no });
    await age(no, 10 * 60 + 1);
    expect((await pay(no)).status).toBe(409);
  });

  it('timeout_express counts from the scan; the timed-out trade is closed and notified TRADE_CLOSED', async () => {
    const no = orderNo('AS');
    await precreate(no, { timeout_express: '5m' });
    // an hour before anyone scans: the code is still good, and the payer's 5 minutes start at the scan
    await age(no, 3600);
    expect((await sim.control('POST', '/scan', { vendor: 'alipay', out_trade_no: no })).status).toBe(200);
    expect((await call('alipay.trade.query', { out_trade_no: no })).response.trade_status).toBe(
      'WAIT_BUYER_PAY',
    );
    await age(no, 4 * 60);
    expect((await sim.control('GET', `/orders/alipay/${no}`)).json.status).toBe('WAIT');
    await age(no, 61);
    expect((await call('alipay.trade.query', { out_trade_no: no })).response.trade_status).toBe(
      'TRADE_CLOSED',
    );
    expect((await pay(no)).status).toBe(409);
    const closed = await until(async () =>
      notificationsOf(no).find((f) => f.trade_status === 'TRADE_CLOSED'),
    );
    expect(closed).toMatchObject({ notify_type: 'trade_status_sync', total_amount: '35.00' });
    expect(closed.gmt_close).toBeDefined();
    // a closed trade cannot be closed again
    expect((await call('alipay.trade.close', { out_trade_no: no })).response.sub_code).toBe(
      'ACQ.TRADE_STATUS_ERROR',
    );
  });
});

describe('Alipay answers as Alipay writes them', () => {
  it('escapes slashes in the JSON and signs the escaped text', async () => {
    const { text, response } = await precreate(orderNo('AE'));
    expect(text).toContain('"qr_code":"https:\\/\\/qr.alipay.com\\/');
    expect(response.qr_code).toMatch(/^https:\/\/qr\.alipay\.com\//);
    const inner = text.slice(text.indexOf(':') + 1, text.lastIndexOf(',"sign"'));
    const sign = JSON.parse(text).sign as string;
    const alipayPublicKey = sim.keys.merchant.ALIPAY_PUBLIC_KEY!;
    expect(createVerify('RSA-SHA256').update(inner).verify(alipayPublicKey, sign, 'base64')).toBe(true);
    // the re-serialised object (unescaped) does not verify: a merchant must verify the text
    expect(
      createVerify('RSA-SHA256').update(JSON.stringify(response)).verify(alipayPublicKey, sign, 'base64'),
    ).toBe(false);
  });

  it('answers an unknown app or method with an unsigned error_response', async () => {
    const wrongApp = await alipayCall(
      sim.url,
      { ...sim.keys.merchant, ALIPAY_APP_ID: '2021000000000000' },
      'alipay.trade.query',
      {
        out_trade_no: 'x',
      },
    );
    expect(wrongApp.json).toEqual({
      error_response: expect.objectContaining({ code: '40002', sub_code: 'isv.invalid-app-id' }),
    });
    const wrongMethod = await call('alipay.trade.pay.nonexistent', { out_trade_no: 'x' });
    expect(wrongMethod.json.error_response).toMatchObject({ code: '40002', sub_code: 'isv.invalid-method' });
    expect(wrongMethod.json.sign).toBeUndefined();
  });

  it('refuses more calls of a method per second than the limit (40005 isv.method-call-limited)', async () => {
    const limited = await startSim({ PAYSIM_RATE_LIMIT_PER_S: '2' });
    try {
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          alipayCall(limited.url, limited.keys.merchant, 'alipay.trade.query', {
            out_trade_no: 'top_nothing',
          }),
        ),
      );
      const codes = answers.map((a) => a.response.sub_code);
      expect(codes).toContain('isv.method-call-limited');
      expect(answers.find((a) => a.response.code === '40005')?.json.sign).toBeDefined();
      expect((await limited.control('GET', '/stats')).json.alipay.limited).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe('Alipay refunds', () => {
  it('notifies a partial refund as TRADE_SUCCESS and the full refund as TRADE_CLOSED, with refund_fee', async () => {
    const no = orderNo('AR');
    await precreate(no);
    await pay(no);
    expect(
      (await sim.control('POST', '/refund', { vendor: 'alipay', out_trade_no: no, amount_fen: 1000 })).status,
    ).toBe(200);
    const partial = await until(async () => notificationsOf(no).find((f) => f.refund_fee));
    expect(partial).toMatchObject({ trade_status: 'TRADE_SUCCESS', refund_fee: '10.00' });
    expect(partial.out_biz_no).toBeDefined();
    // the rest through the refund API; the same out_request_no again changes nothing
    const refund = { out_trade_no: no, refund_amount: '25.00', out_request_no: 'r1' };
    expect((await call('alipay.trade.refund', refund)).response).toMatchObject({
      code: '10000',
      fund_change: 'Y',
      refund_fee: '35.00',
    });
    expect((await call('alipay.trade.refund', refund)).response).toMatchObject({
      code: '10000',
      fund_change: 'N',
    });
    const full = await until(async () => notificationsOf(no).find((f) => f.refund_fee === '35.00'));
    expect(full).toMatchObject({ trade_status: 'TRADE_CLOSED', out_biz_no: 'r1' });
    expect((await call('alipay.trade.query', { out_trade_no: no })).response.trade_status).toBe(
      'TRADE_CLOSED',
    );
    expect(
      (await call('alipay.trade.fastpay.refund.query', { out_trade_no: no, out_request_no: 'r1' })).response,
    ).toMatchObject({ refund_status: 'REFUND_SUCCESS', refund_amount: '25.00' });
    expect(
      (await call('alipay.trade.refund', { out_trade_no: no, refund_amount: '0.01', out_request_no: 'r2' }))
        .response.sub_code,
    ).toBe('ACQ.TRADE_STATUS_ERROR');
    // every try of the first refund's notification still says what was refunded then
    expect(
      notificationsOf(no)
        .filter((f) => f.out_biz_no === partial.out_biz_no)
        .map((f) => f.refund_fee),
    ).toEqual(expect.arrayContaining(['10.00']));
  });

  it('refuses more than is left (ACQ.REASON_TRADE_REFUND_FEE_ERR), a partial refund without out_request_no (ACQ.REFUND_AMT_NOT_EQUAL_TOTAL), and as the control API says', async () => {
    const no = orderNo('AX');
    await precreate(no);
    await pay(no);
    const refund = (biz: Record<string, string>) => call('alipay.trade.refund', { out_trade_no: no, ...biz });
    expect((await refund({ refund_amount: '10.00' })).response.sub_code).toBe(
      'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL',
    );
    expect((await refund({ refund_amount: '35.01', out_request_no: 'x1' })).response.sub_code).toBe(
      'ACQ.REASON_TRADE_REFUND_FEE_ERR',
    );
    await sim.control('POST', '/refund-behaviour', { vendor: 'alipay', out_trade_no: no, outcome: 'refuse' });
    expect((await refund({ refund_amount: '10.00', out_request_no: 'x2' })).response.sub_code).toBe(
      'ACQ.SELLER_BALANCE_NOT_ENOUGH',
    );
    // made, answered with Alipay's system error: the query finds it, the same request answers fund_change N
    await sim.control('POST', '/refund-behaviour', {
      vendor: 'alipay',
      out_trade_no: no,
      outcome: 'no_answer',
    });
    expect((await refund({ refund_amount: '10.00', out_request_no: 'x3' })).response.sub_code).toBe(
      'ACQ.SYSTEM_ERROR',
    );
    expect(
      (await call('alipay.trade.fastpay.refund.query', { out_trade_no: no, out_request_no: 'x3' })).response,
    ).toMatchObject({ refund_status: 'REFUND_SUCCESS', refund_amount: '10.00' });
    expect((await refund({ refund_amount: '10.00', out_request_no: 'x3' })).response).toMatchObject({
      code: '10000',
      fund_change: 'N',
      refund_fee: '10.00',
    });
  });
});
