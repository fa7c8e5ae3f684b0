import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { notificationSink, orderNo, startSim, until } from '../test/harness';
import { alipayCertSn } from './alipay-certs';
import { generatePaymentKeys } from './app';

const keys = generatePaymentKeys({ withCertificate: false, alipayCertificates: true });
let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  sim = await startSim({ PAYSIM_TIME_SCALE: '0.001' }, keys);
});
afterAll(() => sim.close());

const order = (notifyUrl = 'http://127.0.0.1:9/notify') => ({
  id: orderNo('AC'),
  amountFen: 3500,
  subject: 'Top-up',
  expiresAt: new Date(Date.now() + 15 * 60_000),
  notifyUrl,
});

describe('Alipay public-key-certificate mode', () => {
  it('places, queries and verifies notifications with the three certificates and no public key', async () => {
    const p = sim.providers({ ALIPAY_PUBLIC_KEY: undefined }).get('alipay')!;
    expect(p).toBeDefined();
    const sink = notificationSink((_req, raw) => {
      try {
        p.verifyNotification({}, raw);
        return { status: 200, body: 'success' };
      } catch {
        return { status: 200, body: 'fail' };
      }
    });
    const o = order(`${await sim.listen(sink.app)}/notify`);
    await expect(p.createQr(o)).resolves.toMatchObject({ qrCode: expect.stringContaining('qr.alipay.com') });
    await sim.control('POST', '/pay', { vendor: 'alipay', out_trade_no: o.id });
    expect(await p.query(o.id)).toMatchObject({ state: 'paid', amountFen: 3500 });
    const n = await until(async () => {
      const v = (await sim.control('GET', `/orders/alipay/${o.id}`)).json.notification;
      return v?.answered ? v : undefined;
    });
    expect(n.attempts.map((a: { ok: boolean }) => a.ok)).toEqual([true]);
  });

  it('reads the certificates from files', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'alipay-certs-'));
    try {
      const files = {
        ALIPAY_APP_CERT: 'app.crt',
        ALIPAY_PUBLIC_CERT: 'alipay.crt',
        ALIPAY_ROOT_CERT: 'root.crt',
      };
      const env: Record<string, string | undefined> = { ALIPAY_PUBLIC_KEY: undefined };
      for (const [name, file] of Object.entries(files)) {
        writeFileSync(path.join(dir, file), keys.merchant[name]!);
        env[name] = path.join(dir, file);
      }
      await expect(sim.providers(env).get('alipay')!.createQr(order())).resolves.toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is refused without the serial numbers (a merchant configured in public-key mode)', async () => {
    const p = sim
      .providers({ ALIPAY_APP_CERT: undefined, ALIPAY_PUBLIC_CERT: undefined, ALIPAY_ROOT_CERT: undefined })
      .get('alipay')!;
    await expect(p.createQr(order())).rejects.toThrow(/invalid-signature/);
    expect(alipayCertSn(keys.merchant.ALIPAY_APP_CERT!)).toMatch(/^[0-9a-f]{32}$/);
  });
});
