import { CONTROL_TOKEN, notificationSink, orderNo, startSim, until, wechatCall } from '../test/harness';

let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  sim = await startSim({ PAYSIM_TIME_SCALE: '0.001' });
});
afterAll(() => sim.close());

/** What a phone's browser does: follows the pay URL to the pay page, then submits the form. */
async function openPayPage(payUrl: string): Promise<{ url: string; html: string }> {
  let url = payUrl;
  for (let hops = 0; hops < 3; hops += 1) {
    const res = await fetch(url, { redirect: 'manual' });
    if (res.status === 303 || res.status === 302) {
      url = new URL(res.headers.get('location')!, url).toString();
      continue;
    }
    expect(res.status).toBe(200);
    return { url, html: await res.text() };
  }
  throw new Error('too many redirects');
}
const submit = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });

describe.each(['alipay', 'wechat'] as const)('%s on a phone', (vendor) => {
  it('places a mobile payment whose page the payer pays, then returns to the merchant; notified and queried paid', async () => {
    const p = sim.providers().get(vendor)!;
    const sink = notificationSink((_req, raw) => {
      try {
        p.verifyNotification(_req.headers, raw);
        return vendor === 'alipay' ? { status: 200, body: 'success' } : { status: 204 };
      } catch {
        return { status: 400, body: 'fail' };
      }
    });
    const id = orderNo('MP');
    const { payUrl } = await p.createMobilePayment({
      id,
      amountFen: 3500,
      subject: 'mediagate top-up 35.00 CNY',
      expiresAt: new Date(Date.now() + 15 * 60_000),
      notifyUrl: `${await sim.listen(sink.app)}/notify`,
      payerIp: '203.0.113.7',
      returnUrl: 'https://console.example/console/topup?order=x',
    });
    const { url, html } = await openPayPage(payUrl);
    expect(html).toContain('¥35.00');
    const redirect = vendor === 'wechat' ? new URL(payUrl).searchParams.get('redirect_url')! : '';
    // paying needs the control token, as the control API does
    expect((await submit(url, { token: 'not-the-token', redirect_url: redirect })).status).toBe(401);
    const paid = await submit(url, { token: CONTROL_TOKEN, redirect_url: redirect });
    expect(paid.status).toBe(303);
    const back = new URL(paid.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe('https://console.example/console/topup');
    if (vendor === 'alipay') expect(back.searchParams.get('out_trade_no')).toBe(id);
    expect(await p.query(id)).toMatchObject({ state: 'paid', amountFen: 3500 });
    const n = await until(async () => {
      const v = (await sim.control('GET', `/orders/${vendor}/${id}`)).json;
      return v.notification?.answered ? v : undefined;
    });
    expect(n.channel).toBe('mobile');
    // paid once: the page says so and refuses a second payment
    expect((await openPayPage(url)).html).toContain('cannot be paid');
  });
});

it('WeChat Pay H5 needs scene_info (the payer IP and h5_info)', async () => {
  const res = await wechatCall(
    sim.url,
    sim.keys.merchant,
    'POST',
    '/v3/pay/transactions/h5',
    {
      appid: sim.keys.merchant.WECHATPAY_APPID,
      mchid: sim.keys.merchant.WECHATPAY_MCHID,
      description: 't',
      out_trade_no: orderNo('MH'),
      notify_url: 'https://merchant.example/notify',
      amount: { total: 100, currency: 'CNY' },
    },
    sim.keys.merchant.WECHATPAY_PUBLIC_KEY_ID,
  );
  expect([res.status, res.json.code]).toEqual([400, 'PARAM_ERROR']);
});

it('lists the QR orders waiting for payment, newest first, and pays one with the control token', async () => {
  const ids = [orderNo('QA'), orderNo('QB')];
  for (const [i, id] of ids.entries()) {
    await sim
      .providers()
      .get(i === 0 ? 'alipay' : 'wechat')!
      .createQr({
        id,
        amountFen: 3500 + i,
        subject: `mediagate top-up ${i}`,
        expiresAt: new Date(Date.now() + 15 * 60_000),
        notifyUrl: 'http://127.0.0.1:9/notify',
      });
  }
  const list = async () => (await fetch(`${sim.url}/_pay`)).text();
  const html = await list();
  expect(html.indexOf(ids[1]!)).toBeGreaterThan(-1);
  expect(html.indexOf(ids[1]!)).toBeLessThan(html.indexOf(ids[0]!));
  expect(html).toContain('¥35.00');
  const pay = (fields: Record<string, string>) =>
    fetch(`${sim.url}/_pay`, { method: 'POST', body: new URLSearchParams(fields) });
  expect((await pay({ vendor: 'alipay', out_trade_no: ids[0]!, token: 'not-the-token' })).status).toBe(401);
  expect((await pay({ vendor: 'alipay', out_trade_no: 'nothing', token: CONTROL_TOKEN })).status).toBe(404);
  const paid = await pay({ vendor: 'alipay', out_trade_no: ids[0]!, token: CONTROL_TOKEN });
  expect(paid.status).toBe(200);
  expect(await paid.text()).toContain('data-testid="pay-done"');
  expect((await sim.control('GET', `/orders/alipay/${ids[0]}`)).json.status).toBe('PAID');
  // paid: gone from the list, and not paid twice
  expect(await list()).not.toContain(ids[0]!);
  expect((await pay({ vendor: 'alipay', out_trade_no: ids[0]!, token: CONTROL_TOKEN })).status).toBe(409);
});
