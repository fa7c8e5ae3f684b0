import { decryptWechatResource, wechatTime } from '@mediagate/shared/payments';
import { notificationSink, orderNo, startSim, until, wechatCall } from '../test/harness';
import { generatePaymentKeys } from './app';

let sim: Awaited<ReturnType<typeof startSim>>;
let notifyUrl: string;
const sink = notificationSink(() => ({ status: 204 }));
beforeAll(async () => {
  sim = await startSim({ PAYSIM_TIME_SCALE: '0.001' });
  notifyUrl = `${await sim.listen(sink.app)}/notify`;
});
afterAll(() => sim.close());

const pubKeyId = () => sim.keys.merchant.WECHATPAY_PUBLIC_KEY_ID!;
/** `serial` null: no Wechatpay-Serial header */
const call = (method: 'GET' | 'POST', path: string, body?: unknown, serial: string | null = pubKeyId()) =>
  wechatCall(sim.url, sim.keys.merchant, method, path, body, serial ?? undefined);
const native = (no: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/v3/pay/transactions/native', {
    appid: sim.keys.merchant.WECHATPAY_APPID,
    mchid: sim.keys.merchant.WECHATPAY_MCHID,
    description: 'Top-up',
    out_trade_no: no,
    notify_url: notifyUrl,
    amount: { total: 3500, currency: 'CNY' },
    ...extra,
  });
const query = (no: string) =>
  call('GET', `/v3/pay/transactions/out-trade-no/${no}?mchid=${sim.keys.merchant.WECHATPAY_MCHID}`);
const close = (no: string) =>
  call('POST', `/v3/pay/transactions/out-trade-no/${no}/close`, { mchid: sim.keys.merchant.WECHATPAY_MCHID });

describe('WeChat Pay signs each answer with the key the request names (Wechatpay-Serial)', () => {
  it('refuses a request without Wechatpay-Serial while the merchant is on the public key', async () => {
    const mchid = sim.keys.merchant.WECHATPAY_MCHID;
    const res = await call('GET', `/v3/pay/transactions/out-trade-no/top_x?mchid=${mchid}`, undefined, null);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('PARAM_ERROR');
  });

  it('signs with the public key when the request names it, with the certificate when it names that', async () => {
    const no = orderNo('WK');
    const byKey = await native(no);
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get('wechatpay-serial')).toBe(pubKeyId());
    const byCert = await call(
      'GET',
      `/v3/pay/transactions/out-trade-no/${no}?mchid=${sim.keys.merchant.WECHATPAY_MCHID}`,
      undefined,
      sim.keys.vendor.wechatCertSerial,
    );
    expect(byCert.headers.get('wechatpay-serial')).toBe(sim.keys.vendor.wechatCertSerial);
    expect(
      (await call('GET', `/v3/pay/transactions/out-trade-no/${no}?mchid=1`, undefined, 'PUB_KEY_ID_UNKNOWN'))
        .status,
    ).toBe(400);
    // a merchant still on platform certificates (the simulator in certificate mode) sends none
    await sim.control('POST', '/wechat/signer', { mode: 'certificate' });
    try {
      const path = `/v3/pay/transactions/out-trade-no/${no}?mchid=${sim.keys.merchant.WECHATPAY_MCHID}`;
      const none = await call('GET', path, undefined, null);
      expect(none.status).toBe(200);
      expect(none.headers.get('wechatpay-serial')).toBe(sim.keys.vendor.wechatCertSerial);
    } finally {
      await sim.control('POST', '/wechat/signer', { mode: 'public_key' });
    }
  });

  it('the merchant side names its key: a merchant with only the public key, and one finishing the switch', async () => {
    for (const mode of ['public_key', 'certificate'] as const) {
      await sim.control('POST', '/wechat/signer', { mode });
      // only the public key: no platform certificate configured at all
      const p = sim.providers({ WECHATPAY_PLATFORM_CERTS: undefined }).get('wechat')!;
      const no = orderNo('WM');
      await expect(
        p.createQr({
          id: no,
          amountFen: 100,
          subject: 't',
          expiresAt: new Date(Date.now() + 60_000),
          notifyUrl,
        }),
      ).resolves.toMatchObject({ qrCode: expect.stringMatching(/^weixin:/) });
      expect(await p.query(no)).toMatchObject({ state: 'unpaid' });
    }
    await sim.control('POST', '/wechat/signer', { mode: 'public_key' });
  });

  it('a merchant with both keys gets answers signed with the public key, even in certificate mode', async () => {
    await sim.control('POST', '/wechat/signer', { mode: 'certificate' });
    try {
      const before = (await sim.control('GET', '/stats')).json.wechat.signedWith;
      const p = sim.providers().get('wechat')!;
      expect(sim.keys.merchant.WECHATPAY_PLATFORM_CERTS).toBeDefined();
      await p.createQr({
        id: orderNo('WB'),
        amountFen: 100,
        subject: 't',
        expiresAt: new Date(Date.now() + 60_000),
        notifyUrl,
      });
      const after = (await sim.control('GET', '/stats')).json.wechat.signedWith;
      expect(after.public_key - before.public_key).toBeGreaterThanOrEqual(1);
      expect(after.certificate).toBe(before.certificate);
    } finally {
      await sim.control('POST', '/wechat/signer', { mode: 'public_key' });
    }
  });
});

describe('WeChat Pay orders', () => {
  it('honours time_expire: the order closes then and cannot be paid', async () => {
    const no = orderNo('WT');
    expect((await native(no, { time_expire: wechatTime(new Date(Date.now() + 15 * 60_000)) })).status).toBe(
      200,
    );
    await sim.control('POST', '/age', { vendor: 'wechat', out_trade_no: no, seconds: 14 * 60 });
    expect((await query(no)).json.trade_state).toBe('NOTPAY');
    await sim.control('POST', '/age', { vendor: 'wechat', out_trade_no: no, seconds: 61 });
    expect((await query(no)).json.trade_state).toBe('CLOSED');
    expect((await sim.control('POST', '/pay', { vendor: 'wechat', out_trade_no: no })).status).toBe(409);
  });

  it('closes as WeChat Pay does: 204, 202 USER_PAYING while the payer pays, 400 ORDER_CLOSED, 400 ORDERPAID', async () => {
    const paying = orderNo('WP');
    await native(paying);
    await sim.control('POST', '/scan', { vendor: 'wechat', out_trade_no: paying });
    expect((await query(paying)).json.trade_state).toBe('USERPAYING');
    const busy = await close(paying);
    expect([busy.status, busy.json.code]).toEqual([202, 'USER_PAYING']);
    const open = orderNo('WO');
    await native(open);
    expect((await close(open)).status).toBe(204);
    const again = await close(open);
    expect([again.status, again.json.code]).toEqual([400, 'ORDER_CLOSED']);
    expect((await sim.control('POST', '/pay', { vendor: 'wechat', out_trade_no: open })).status).toBe(409);
    await sim.control('POST', '/pay', { vendor: 'wechat', out_trade_no: paying });
    const paid = await close(paying);
    expect([paid.status, paid.json.code]).toEqual([400, 'ORDERPAID']);
  });

  it('notifies https URLs only (and loopback, standing in for the merchant)', async () => {
    for (const url of ['http://api.example.com/notify', 'https://api.example.com/notify?x=1', 'ftp://x/']) {
      const res = await native(orderNo('WH'), { notify_url: url });
      expect([res.status, res.json.code]).toEqual([400, 'PARAM_ERROR']);
    }
    expect((await native(orderNo('WH'), { notify_url: 'https://api.example.com/notify' })).status).toBe(200);
  });

  it('answers 429 FREQUENCY_LIMITED past the rate limit', async () => {
    const limited = await startSim({ PAYSIM_RATE_LIMIT_PER_S: '2' }, sim.keys);
    try {
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          wechatCall(
            limited.url,
            sim.keys.merchant,
            'GET',
            `/v3/pay/transactions/out-trade-no/nothing?mchid=${sim.keys.merchant.WECHATPAY_MCHID}`,
            undefined,
            pubKeyId(),
          ),
        ),
      );
      expect(answers.map((a) => a.status)).toContain(429);
      expect(answers.find((a) => a.status === 429)?.json.code).toBe('FREQUENCY_LIMITED');
    } finally {
      await limited.close();
    }
  });
});

describe('WeChat Pay notifications beyond payments', () => {
  it('sends REFUND.SUCCESS for a refund through the API and one made in the portal', async () => {
    const no = orderNo('WR');
    await native(no);
    await sim.control('POST', '/pay', { vendor: 'wechat', out_trade_no: no });
    const refund = await call('POST', '/v3/refund/domestic/refunds', {
      out_trade_no: no,
      out_refund_no: `${no}R1`,
      notify_url: notifyUrl,
      amount: { refund: 1000, total: 3500, currency: 'CNY' },
    });
    expect(refund.status).toBe(200);
    expect(refund.json).toMatchObject({ out_refund_no: `${no}R1`, status: 'PROCESSING' });
    // PROCESSING until WeChat Pay ends it (PAYSIM_WECHAT_REFUND_MS), then SUCCESS
    expect((await call('GET', `/v3/refund/domestic/refunds/${no}R1`)).json).toMatchObject({
      status: 'PROCESSING',
    });
    expect((await call('GET', `/v3/refund/domestic/refunds/${no}R1`)).json.success_time).toBeUndefined();
    await until(
      async () => (await call('GET', `/v3/refund/domestic/refunds/${no}R1`)).json.status === 'SUCCESS',
    );
    const over = await call('POST', '/v3/refund/domestic/refunds', {
      out_trade_no: no,
      out_refund_no: `${no}R2`,
      amount: { refund: 2501, total: 3500, currency: 'CNY' },
    });
    expect(over.status).toBe(400);
    await sim.control('POST', '/refund', { vendor: 'wechat', out_trade_no: no });
    const refunds = await until(async () => {
      const found = sink.received
        .map((r) => JSON.parse(r.raw.toString('utf8')))
        .filter((b) => b.event_type === 'REFUND.SUCCESS')
        .map((b) => JSON.parse(decryptWechatResource(sim.keys.vendor.wechatApiV3Key, b.resource)))
        .filter((r) => r.out_trade_no === no);
      return found.length === 2 ? found : undefined;
    });
    expect(refunds.map((r) => r.amount.refund).sort()).toEqual([1000, 2500]);
    expect(refunds[0]).toMatchObject({ refund_status: 'SUCCESS', mchid: sim.keys.merchant.WECHATPAY_MCHID });
    expect((await query(no)).json.trade_state).toBe('REFUND');
  });

  it('refuses a refund as the control API says (403 NOT_ENOUGH), ends one ABNORMAL with REFUND.ABNORMAL, and sends none when told', async () => {
    const no = orderNo('WB');
    await native(no);
    await sim.control('POST', '/pay', { vendor: 'wechat', out_trade_no: no });
    const refund = (n: string, fen: number) =>
      call('POST', '/v3/refund/domestic/refunds', {
        out_trade_no: no,
        out_refund_no: n,
        notify_url: notifyUrl,
        amount: { refund: fen, total: 3500, currency: 'CNY' },
      });
    await sim.control('POST', '/refund-behaviour', { vendor: 'wechat', out_trade_no: no, outcome: 'refuse' });
    const refused = await refund(`${no}B1`, 1000);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('NOT_ENOUGH');
    // the refusal refunded nothing: the whole amount is still refundable
    await sim.control('POST', '/refund-behaviour', {
      vendor: 'wechat',
      out_trade_no: no,
      outcome: 'abnormal',
    });
    expect((await refund(`${no}B2`, 1000)).json.status).toBe('PROCESSING');
    const abnormal = await until(async () =>
      sink.received
        .map((r) => JSON.parse(r.raw.toString('utf8')))
        .filter((b) => b.event_type === 'REFUND.ABNORMAL')
        .map((b) => JSON.parse(decryptWechatResource(sim.keys.vendor.wechatApiV3Key, b.resource)))
        .find((r) => r.out_refund_no === `${no}B2`),
    );
    expect(abnormal).toMatchObject({ refund_status: 'ABNORMAL', amount: { refund: 1000 } });
    expect(abnormal.success_time).toBeUndefined();
    await sim.control('POST', '/refund-behaviour', { vendor: 'wechat', out_trade_no: no, notify: false });
    expect((await refund(`${no}B3`, 2500)).status).toBe(200);
    await until(
      async () => (await call('GET', `/v3/refund/domestic/refunds/${no}B3`)).json.status === 'SUCCESS',
    );
    const sent = (await sim.control('GET', `/orders/wechat/${no}`)).json.notifications as Array<{
      kind: string;
    }>;
    expect(sent.filter((n) => n.kind === 'refund')).toHaveLength(1);
  });

  it('probes with WECHATPAY/SIGNTEST/ signatures: a merchant that verifies refuses them', async () => {
    const verifier = sim.providers().get('wechat')!;
    const verifying = notificationSink((req, raw) => {
      try {
        verifier.verifyNotification(req.headers, raw);
        return { status: 204 };
      } catch {
        return { status: 401, body: '{"code":"FAIL","message":"signature"}' };
      }
    });
    const careless = notificationSink(() => ({ status: 204 }));
    for (const [merchant, refused] of [
      [verifying, true],
      [careless, false],
    ] as const) {
      const no = orderNo('WX');
      await native(no, { notify_url: `${await sim.listen(merchant.app)}/notify` });
      await sim.control('POST', '/wechat/signtest', { out_trade_no: no });
      const probe = await until(async () => {
        const n = (await sim.control('GET', `/orders/wechat/${no}`)).json.notifications[0];
        return n?.attempts.length ? n : undefined;
      });
      expect(String(merchant.received[0]!.headers['wechatpay-signature'])).toMatch(/^WECHATPAY\/SIGNTEST\//);
      expect(probe).toMatchObject({ kind: 'signtest', answered: refused });
    }
  });

  it('can put probe signatures on answers, which a verifying merchant refuses', async () => {
    const probing = await startSim({ PAYSIM_WECHAT_SIGNTEST_EVERY: '1' }, sim.keys);
    try {
      const p = probing.providers().get('wechat')!;
      const order = {
        id: orderNo('WZ'),
        amountFen: 100,
        subject: 't',
        expiresAt: new Date(Date.now() + 60_000),
        notifyUrl,
      };
      await expect(p.createQr(order)).rejects.toThrow(/not verified/);
    } finally {
      await probing.close();
    }
  });
});

describe('keys', () => {
  it('a fresh key set has a platform certificate and a public key', () => {
    const k = generatePaymentKeys();
    expect(k.vendor.wechatCertSerial).toMatch(/^[0-9A-F]+$/);
    expect(k.vendor.wechatPubKeyId).toMatch(/^PUB_KEY_ID_/);
  });
});
