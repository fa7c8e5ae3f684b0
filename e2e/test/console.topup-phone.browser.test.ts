// The top-up page on a phone, in Chromium against the real processes and the payment simulator:
// at 375 px the order is made for the phone and the provider's pay page opens; paying there returns
// to the console's order, which follows it until credited. At 1440 px the QR code stays.
import { hashPassword } from '@mediagate/shared/accounts';
import type { Browser } from 'playwright-core';
import { hasChromium, launchChromium, screenshot, WIDTHS } from './console/browser';
import { type PaySimProcess, startPaySimProcess } from './payment-sim';
import { type Stack, startStack } from './stack';

const describeBrowser = hasChromium() ? describe : describe.skip;
const PASSWORD = 'Customer-pass-42';

let stack: Stack;
let paysim: PaySimProcess;
let browser: Browser;

describeBrowser('the top-up page on a phone', () => {
  beforeAll(async () => {
    paysim = await startPaySimProcess();
    stack = await startStack({
      env: {
        ...paysim.merchantEnv,
        PAYMENTS_CONTACT: 'payments@example.test',
      },
    });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await paysim?.stop();
  });

  /** A signed-in customer in a browser of `width`, the page in `lang`. */
  async function customer(width: keyof typeof WIDTHS, lang: 'en' | 'zh') {
    const email = `phone-${lang}-${width}-${Date.now()}@example.test`;
    expect(stack.cli(['account:create', '--email', email]).status).toBe(0);
    await stack.pool.query('update accounts set password_hash = $1 where email = $2', [
      await hashPassword(PASSWORD),
      email,
    ]);
    const context = await browser.newContext({ viewport: WIDTHS[width] });
    await context.addInitScript((l) => window.localStorage.setItem('mediagate.lang', l), lang);
    const page = await context.newPage();
    await page.goto(`${stack.apiUrl}/login?next=${encodeURIComponent('/console/topup')}`);
    await page.locator('input[type="email"], input#email, input[name="email"]').first().fill(email);
    await page.locator('input[type="password"]').first().fill(PASSWORD);
    await page.locator('button[type="submit"]').first().click();
    await page.waitForURL((u) => u.pathname === '/console/topup');
    return { page, context, email };
  }

  it.each([
    ['en', 'Continue to payment', 'Payment received', '$7.00 has been added to your balance.'],
    ['zh', '去支付', '已收到付款', '$7.00 已计入余额。'],
  ] as const)(
    "at 375 px (%s): pays on the provider's mobile page and comes back to the credited order",
    async (lang, go, received, added) => {
      const { page, context } = await customer('phone', lang);
      await page.locator('.ant-input-number input').first().fill('35');
      await screenshot(page, `topup-phone-form-${lang}`);
      await page.getByRole('button', { name: go }).click();
      // the simulator's Alipay mobile page (alipay.trade.wap.pay), then back to ?order=
      await page.waitForURL((u) => !u.pathname.startsWith('/console'));
      await page.getByTestId('pay-amount').waitFor();
      expect(await page.getByTestId('pay-amount').textContent()).toBe('¥35.00');
      await screenshot(page, `topup-phone-paypage-${lang}`);
      await page.locator('input[name="token"]').fill(paysim.token);
      await page.getByRole('button', { name: 'Pay ¥35.00' }).click();
      await page.waitForURL((u) => u.pathname === '/console/topup' && u.searchParams.has('order'));
      await page.getByText(received).waitFor({ timeout: 30_000 });
      await page.getByText(added).waitFor();
      await screenshot(page, `topup-phone-credited-${lang}`);
      const { rows } = await stack.pool.query(
        `select status, pay_url is not null as mobile from topup_orders order by created_at desc limit 1`,
      );
      expect(rows[0]).toEqual({ status: 'credited', mobile: true });
      await context.close();
    },
    120_000,
  );

  it.each(['en', 'zh'] as const)(
    'at 1440 px (%s): the QR code stays',
    async (lang) => {
      const { page, context } = await customer('desktop', lang);
      await page.locator('.ant-input-number input').first().fill('35');
      await page.getByRole('button', { name: lang === 'en' ? 'Show the QR code' : '显示付款码' }).click();
      await page.getByTestId('topup-qr').waitFor();
      await screenshot(page, `topup-desktop-qr-${lang}`);
      const { rows } = await stack.pool.query(
        `select qr_code is not null as qr, pay_url is null as no_url from topup_orders order by created_at desc limit 1`,
      );
      expect(rows[0]).toEqual({ qr: true, no_url: true });
      await context.close();
    },
    120_000,
  );
});
