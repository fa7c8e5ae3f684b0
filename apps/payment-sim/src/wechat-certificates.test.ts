import type { WechatPayProvider } from '@mediagate/shared/payments';
import { notificationSink, orderNo, startSim, until } from '../test/harness';
import { generatePaymentKeys } from './app';

const keys = generatePaymentKeys();
let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  // WeChat Pay signs with its platform certificate; the merchant has no public key
  sim = await startSim({ PAYSIM_WECHAT_SIGN_WITH: 'certificate', PAYSIM_TIME_SCALE: '0.001' }, keys);
});
afterAll(() => sim.close());

/** A merchant on platform certificates only (the one it was given at setup). */
const certificateMerchant = (extra: Record<string, string | undefined> = {}) =>
  sim
    .providers({ WECHATPAY_PUBLIC_KEY: undefined, WECHATPAY_PUBLIC_KEY_ID: undefined, ...extra })
    .get('wechat') as WechatPayProvider;
const order = (notifyUrl = 'https://merchant.example/notify') => ({
  id: orderNo('WC'),
  amountFen: 100,
  subject: 't',
  expiresAt: new Date(Date.now() + 60_000),
  notifyUrl,
});
const downloads = async () => (await sim.control('GET', '/stats')).json.wechat.certificateDownloads as number;

describe('WeChat Pay platform certificates, downloaded and rotated', () => {
  it('keeps working across a rotation: answers signed with the new certificate are verified after a download', async () => {
    const p = certificateMerchant();
    await p.createQr(order());
    const rotated = (await sim.control('POST', '/wechat/rotate')).json;
    expect(rotated.certificates).toHaveLength(2);
    const before = await downloads();
    // the answer names a serial the merchant was never given: it downloads the list and goes on
    await expect(p.createQr(order())).resolves.toMatchObject({ qrCode: expect.any(String) });
    expect(await downloads()).toBe(before + 1);
    expect(await p.query(orderNo('WN'))).toMatchObject({ state: 'closed' });
  });

  it('credits a notification signed with a certificate it did not have: refused once, accepted on the next try', async () => {
    const p = certificateMerchant();
    const sink = notificationSink((req, raw) => {
      try {
        p.verifyNotification(req.headers, raw);
        return { status: 204 };
      } catch {
        return { status: 401, body: '{"code":"FAIL","message":"signature"}' };
      }
    });
    const url = `${await sim.listen(sink.app)}/notify`;
    await sim.control('POST', '/wechat/rotate');
    const o = order(url);
    // created through another merchant process, so this one has not seen the new serial yet
    await certificateMerchant().createQr(o);
    await sim.control('POST', '/pay', { vendor: 'wechat', out_trade_no: o.id });
    const n = await until(async () => {
      const v = (await sim.control('GET', `/orders/wechat/${o.id}`)).json.notification;
      return v?.answered ? v : undefined;
    });
    expect(n.attempts[0].ok).toBe(false);
    expect(n.attempts.at(-1).ok).toBe(true);
  });

  it('downloads at the first call of a merchant on certificates, and never for one on the public key only', async () => {
    let before = await downloads();
    await certificateMerchant().createQr(order());
    expect(await downloads()).toBe(before + 1);
    before = await downloads();
    const publicKeyOnly = sim
      .providers({ WECHATPAY_PLATFORM_CERTS: undefined })
      .get('wechat') as WechatPayProvider;
    await sim.control('POST', '/wechat/signer', { mode: 'public_key' });
    try {
      await publicKeyOnly.createQr(order());
      expect(await publicKeyOnly.refreshCertificates()).toBe(0);
      expect(await downloads()).toBe(before);
    } finally {
      await sim.control('POST', '/wechat/signer', { mode: 'certificate' });
    }
  });

  it('refuses certificates that do not decrypt with its APIv3 key', async () => {
    const p = certificateMerchant({ WECHATPAY_API_V3_KEY: 'x'.repeat(32) });
    await expect(p.refreshCertificates()).rejects.toThrow();
  });
});
