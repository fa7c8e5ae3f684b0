/// <reference lib="dom" />

import { createDatabase, type Database } from '@mediagate/shared/db';
import type { Browser, BrowserContext } from 'playwright-core';
import { collectErrors, hasChromium, launchChromium, screenshot, WIDTHS } from './console/browser';
import { type PaySimProcess, paidTopUp, startPaySimProcess } from './payment-sim';
import { type Stack, startStack } from './stack';

// An operator refunds a customer's QR top-up from the customer's page in a real browser (Debian's
// Chromium) against the real API and the payment simulator: the Refunds dialog of the top-ups
// tab, the amount and reason, the confirmation, the refund's state, and the customer's ledger row.
// Screenshots at 375 and 1440 px go to .test-results/screenshots/.
const ADMIN = { email: 'refunds-ops@example.test', password: 'operator-password-1' };

const describeBrowser = hasChromium() ? describe : describe.skip;

let stack: Stack;
let paysim: PaySimProcess;
let database: Database;
let browser: Browser;
let admin: BrowserContext;
let errors: string[] = [];

describeBrowser('refunds in the operator console', () => {
  beforeAll(async () => {
    paysim = await startPaySimProcess();
    stack = await startStack({
      env: {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        ...paysim.merchantEnv,
      },
    });
    database = createDatabase(stack.env.DATABASE_URL!, { max: 2 });
    browser = await launchChromium();
    admin = await browser.newContext({ viewport: WIDTHS.desktop });
    errors = collectErrors(admin);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await database?.close();
    await stack?.stop();
    await paysim?.stop();
  });

  it('refunds part of a paid Alipay top-up: the dialog shows it refunded and the ledger its row', async () => {
    // a customer pays 35 CNY through Alipay (the simulator's notification credits 7 USD)
    const email = `refund-customer-${Date.now()}@example.test`;
    const { accountId, topUp } = await paidTopUp({ database, apiUrl: stack.apiUrl, paysim }, email);

    const page = await admin.newPage();
    await page.goto(`${stack.apiUrl}/login?next=${encodeURIComponent(`/admin/accounts/${accountId}`)}`);
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === `/admin/accounts/${accountId}`);
    await page.getByRole('tab', { name: 'Top-ups' }).click();
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: `Refunds of ${topUp}` });
    await dialog.getByText(`Refunds of ${topUp}`).waitFor();
    await dialog.getByLabel(/Amount to refund/).fill('17.5');
    await dialog.getByLabel('Reason').fill('customer asked');
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    // asks first, naming the amount and the provider
    const confirm = page.locator('.ant-modal-confirm');
    await confirm
      .locator('.ant-modal-confirm-title')
      .filter({ hasText: 'Refund ¥17.50 to the payer through Alipay?' })
      .waitFor();
    await screenshot(page, 'admin-refund-confirm');
    await confirm.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog.getByText('Refunded', { exact: true }).first().waitFor();
    await dialog.getByText('¥17.50 left').waitFor();
    await screenshot(page, 'admin-refund-dialog');
    await page.setViewportSize(WIDTHS.phone);
    await screenshot(page, 'admin-refund-dialog');
    await page.setViewportSize(WIDTHS.desktop);
    await page.keyboard.press('Escape');
    await page.getByText('¥17.50 refunded').waitFor();
    await page.getByRole('tab', { name: 'Ledger' }).click();
    await page
      .getByText(/-\$3\.50/)
      .first()
      .waitFor();
    await screenshot(page, 'admin-refund-ledger');
    await page.setViewportSize(WIDTHS.phone);
    await screenshot(page, 'admin-refund-ledger');
    // in Chinese: the dialog's words and the amount left after the first refund
    await page.setViewportSize(WIDTHS.desktop);
    await page.getByText('中文').click();
    await page.getByRole('tab', { name: '充值记录' }).click();
    await page.getByRole('button', { name: /^退\s?款$/ }).click();
    const zh = page.getByRole('dialog').filter({ hasText: `${topUp} 的退款` });
    await zh.getByText('退款金额（人民币，剩余 ¥17.50）').waitFor();
    expect(await zh.getByRole('spinbutton').inputValue()).toBe('17.50');
    await screenshot(page, 'admin-refund-dialog-zh');
    expect(
      (await stack.pool.query('select balance_micro_usd::int as b from accounts where id = $1', [accountId]))
        .rows[0].b,
    ).toBe(3_500_000);
    expect(errors).toEqual([]);
  }, 120_000);
});
