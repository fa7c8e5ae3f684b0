import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { generatePaymentKeys } from './app';
import { startSim } from '../test/harness';

const CLI = resolve(__dirname, '../../../packages/shared/dist/cli/main.js');
let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(() => sim.close());

/** `pnpm cli payments:check` with the merchant's variables (and `env` over them). */
async function check(env: Record<string, string | undefined>) {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    PATH: process.env.PATH,
    LOG_LEVEL: 'silent',
    ...sim.keys.merchant,
    ALIPAY_GATEWAY: `${sim.url}/gateway.do`,
    WECHATPAY_BASE_URL: sim.url,
    ...env,
  }))
    if (v !== undefined) merged[k] = v;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, 'payments:check'], {
      env: merged,
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('pnpm cli payments:check against the payment simulator', () => {
  it('proves both providers: a query for an order that does not exist comes back signed and verified', async () => {
    const r = await check({});
    expect(r.stdout).toMatch(/^alipay: ok: .*ACQ\.TRADE_NOT_EXIST, signed and verified$/m);
    expect(r.stdout).toMatch(/^wechat: ok: .*404 ORDER_NOT_EXIST, signed and verified$/m);
    expect(r.code).toBe(0);
  });

  it("reports Alipay's error_response for an app id it does not know as what it is, not as a signature failure", async () => {
    const r = await check({ ALIPAY_APP_ID: '2021009999999999' });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^alipay: FAILED: .*error_response 40002 isv\.invalid-app-id/m);
    expect(r.stdout).not.toMatch(/验签|not verified|signature/i);
    expect(r.stdout).toMatch(/^wechat: ok/m);
  });

  it('fails on a well-formed but wrong key: Alipay answers not verified, WeChat Pay refusing our signature', async () => {
    const other = generatePaymentKeys({ withCertificate: false });
    const r = await check({
      ALIPAY_PUBLIC_KEY: other.merchant.ALIPAY_PUBLIC_KEY,
      WECHATPAY_PRIVATE_KEY: other.merchant.WECHATPAY_PRIVATE_KEY,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^alipay: FAILED: /m);
    expect(r.stdout).toMatch(/^wechat: FAILED: /m);
    expect(`${r.stdout}${r.stderr}`).not.toContain('PRIVATE KEY');
  });

  it('refuses a provider configured in part, naming the missing variable', async () => {
    const r = await check({ WECHATPAY_MERCHANT_SERIAL: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/WECHATPAY_MERCHANT_SERIAL: required/);
  });
});
