/// <reference lib="dom" />

import { hashPassword } from '@mediagate/shared/accounts';
import { waitFor } from '@mediagate/shared/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { collectErrors, hasChromium, launchChromium, screenshot, WIDTHS } from './console/browser';
import { type PaySimProcess, placeTopUp, startPaySimProcess } from './payment-sim';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

// The customer's ledger, top-ups and webhooks and the operators' accounts and customer page in
// Chromium against the real processes and the payment simulator, at 375 and 1440 px, in English
// and Chinese: the ledgers, the usage records and the accounts list fit a phone (nothing wider than the screen, every
// column header on it), a ledger's task and top-up order are links to their pages, an order left
// waiting can be cancelled from its row, and the webhooks page of a new account says how to get
// callbacks. Screenshots go to .test-results/screenshots/.
const ADMIN = { email: 'usability-ops@example.test', password: 'operator-password-1' };
const PASSWORD = 'Customer-pass-42';
const LANGS = ['en', 'zh'] as const;

const describeBrowser = hasChromium() ? describe : describe.skip;

let stack: Stack;
let paysim: PaySimProcess;
let browser: Browser;
const errors: string[] = [];
const customer = {
  email: `usability-${Date.now()}@example.test`,
  accountId: '',
  task: '',
  paid: '',
  open: '',
};

/** A signed-in browser page of `width` in `lang`, opened at `next`. */
async function signedIn(
  who: { email: string; password: string },
  width: keyof typeof WIDTHS,
  lang: 'en' | 'zh',
  next: string,
): Promise<Page> {
  const context = await browser.newContext({ viewport: WIDTHS[width] });
  errors.push(...collectErrors(context));
  await context.addInitScript((l) => window.localStorage.setItem('mediagate.lang', l), lang);
  const page = await context.newPage();
  await page.goto(`${stack.apiUrl}/login?next=${encodeURIComponent(next)}`);
  await page.locator('input[type="email"], input#email, input[name="email"]').first().fill(who.email);
  await page.locator('input[type="password"]').first().fill(who.password);
  await page.locator('button[type="submit"]').first().click();
  await page.waitForURL((u) => u.pathname === next.split('?')[0]);
  return page;
}

/** How far the page is wider than the screen (0: it scrolls vertically only). */
const overflow = (page: Page) =>
  page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));

/** The header cells of `table` that end past the screen's right edge (cut off on a phone). */
async function headersOffScreen(page: Page, table: Locator): Promise<string[]> {
  const width = page.viewportSize()?.width ?? 0;
  const off: string[] = [];
  for (const th of await table.locator('thead th').all()) {
    const box = await th.boundingBox();
    if (box && box.width > 0 && box.x + box.width > width + 1) off.push((await th.innerText()).trim());
  }
  return off;
}

/** Checks a page fits its screen with `table`'s every column on it, and saves its screenshot. */
async function fits(page: Page, table: Locator, name: string) {
  await table.locator('tbody tr.ant-table-row').first().waitFor();
  await page.waitForLoadState('networkidle');
  const width = page.viewportSize()?.width;
  expect({ name, width, overflow: await overflow(page), cut: await headersOffScreen(page, table) }).toEqual({
    name,
    width,
    overflow: 0,
    cut: [],
  });
  await screenshot(page, name);
}

describeBrowser('the console on a phone and on a desktop: ledgers, top-ups, webhooks, accounts', () => {
  beforeAll(async () => {
    paysim = await startPaySimProcess();
    stack = await startStack({
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ...paysim.merchantEnv },
    });
    browser = await launchChromium();
    // a customer with a video task charged, a QR top-up paid and another left waiting
    const created = stack.cli(['account:create', '--email', customer.email, '--balance-usd', '20']);
    expect(created.status).toBe(0);
    const key = created.stdout.trim();
    const { rows } = await stack.pool.query<{ id: string }>(
      'update accounts set password_hash = $1 where email = $2 returning id',
      [await hashPassword(PASSWORD), customer.email],
    );
    customer.accountId = rows[0]!.id;
    const task = await stack.api('POST', '/v1/videos', key, VIDEO_REQUEST);
    expect(task.status).toBe(200);
    customer.task = task.body.id;
    customer.paid = await placeTopUp(stack.apiUrl, { email: customer.email, password: PASSWORD });
    await paysim.control('/pay', { vendor: 'alipay', out_trade_no: customer.paid });
    await waitFor(
      async () =>
        (await stack.pool.query('select status from topup_orders where id = $1', [customer.paid])).rows[0]
          ?.status === 'credited',
      { what: `top-up ${customer.paid} credited` },
    );
    customer.open = await placeTopUp(stack.apiUrl, { email: customer.email, password: PASSWORD });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await paysim?.stop();
  });

  const who = () => ({ email: customer.email, password: PASSWORD });

  it.each(LANGS)(
    '(%s) the ledger, the top-ups and the webhooks page fit a phone and a desktop',
    async (lang) => {
      for (const width of ['phone', 'desktop'] as const) {
        const page = await signedIn(who(), width, lang, '/console/billing');
        const ledger = page.locator('.ant-table').filter({ has: page.getByTestId('ledger-ref') });
        await ledger.getByText(customer.task).waitFor({ timeout: 30_000 });
        await fits(page, ledger, `usability-billing-${lang}`);

        await page.goto(`${stack.apiUrl}/console/billing?tab=usage`);
        const usage = page.locator('.ant-table').filter({ has: page.getByText(customer.task) });
        await usage.waitFor({ timeout: 30_000 });
        await fits(page, usage, `usability-usage-${lang}`);
        // scrolling inside the card counts too: the usage table is no wider than its card on a phone
        if (width === 'phone')
          expect(
            await usage
              .locator('.ant-table-content, .ant-table-body')
              .first()
              .evaluate((el) => el.scrollWidth - el.clientWidth),
          ).toBeLessThanOrEqual(0);

        await page.goto(`${stack.apiUrl}/console/topup`);
        const history = page
          .locator('.ant-card')
          .filter({ has: page.getByText(lang === 'en' ? 'Recent top-ups' : '最近充值', { exact: true }) });
        const waiting = history
          .locator('tr')
          .filter({ hasText: lang === 'en' ? 'Waiting for payment' : '等待付款' });
        await waiting.getByRole('button', { name: lang === 'en' ? 'Cancel' : /^取\s?消$/ }).waitFor();
        await waiting.getByRole('button', { name: lang === 'en' ? 'Continue paying' : '继续付款' }).waitFor();
        await waiting.scrollIntoViewIfNeeded();
        await fits(page, history.locator('.ant-table'), `usability-topup-${lang}`);

        await page.goto(`${stack.apiUrl}/console/webhooks`);
        const empty = page.getByTestId('endpoints-empty');
        await empty.waitFor();
        expect(await empty.innerText()).toContain('callback_url');
        await page.waitForLoadState('networkidle');
        expect(await overflow(page)).toBe(0);
        await screenshot(page, `usability-webhooks-${lang}`);
        await page.context().close();
      }
    },
    180_000,
  );

  it("on a phone, the ledger's references open the task and the order, and a waiting order is cancelled from its row", async () => {
    const page = await signedIn(who(), 'phone', 'en', '/console/billing');
    await page.getByRole('link', { name: customer.task }).click();
    await page.waitForURL((u) => u.pathname === `/console/videos/${customer.task}`);
    await page.getByRole('heading', { name: customer.task }).or(page.locator('h1')).first().waitFor();
    await page.goBack();
    await page
      .getByRole('link', { name: `alipay:${customer.paid}` })
      .first()
      .click();
    await page.waitForURL(
      (u) => u.pathname === '/console/topup' && u.searchParams.get('order') === customer.paid,
    );
    await page.getByText('Payment received').waitFor();
    await page.getByText('$7.00 has been added to your balance.').waitFor();
    await screenshot(page, 'usability-topup-from-ledger');

    await page.getByRole('button', { name: 'Top up again' }).click();
    const waiting = page.locator('tr').filter({ hasText: 'Waiting for payment' });
    await waiting.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByText('The top-up was cancelled.').waitFor();
    await page.locator('tr').filter({ hasText: 'Cancelled' }).first().waitFor();
    expect(await waiting.count()).toBe(0);
    expect(
      (await stack.pool.query('select status from topup_orders where id = $1', [customer.open])).rows[0]
        .status,
    ).toBe('cancelled');
    await screenshot(page, 'usability-topup-cancelled');
    await page.context().close();
  }, 120_000);

  it.each(LANGS)(
    "(%s) the operators' accounts list and customer page fit a phone and a desktop",
    async (lang) => {
      for (const width of ['phone', 'desktop'] as const) {
        const page = await signedIn(ADMIN, width, lang, '/admin/accounts');
        const accounts = page
          .locator('.ant-table')
          .filter({ has: page.getByRole('link', { name: customer.email }) });
        await fits(page, accounts, `usability-admin-accounts-${lang}`);

        await page.getByRole('link', { name: customer.email }).click();
        await page.waitForURL((u) => u.pathname === `/admin/accounts/${customer.accountId}`);
        const ledger = page.locator('.ant-table').filter({ has: page.getByTestId('ledger-ref') });
        await ledger.getByText(customer.task).waitFor({ timeout: 30_000 });
        await ledger.scrollIntoViewIfNeeded();
        await fits(page, ledger, `usability-admin-ledger-${lang}`);
        await page.getByRole('tab', { name: lang === 'en' ? 'Top-ups' : '充值记录' }).click();
        const topUps = page.locator('.ant-table').filter({ hasText: customer.paid });
        await fits(page, topUps, `usability-admin-topups-${lang}`);
        await page.goto(`${stack.apiUrl}/admin/accounts/${customer.accountId}?tab=keys`);
        const keys = page.locator('.ant-table').filter({ hasText: 'default' });
        await fits(page, keys, `usability-admin-keys-${lang}`);
        expect(
          await keys
            .locator('.ant-table-content, .ant-table-body')
            .first()
            .evaluate((el) => el.scrollWidth - el.clientWidth),
        ).toBeLessThanOrEqual(0);
        await page.context().close();
      }
    },
    180_000,
  );

  it("on a phone, the operator's ledger opens the task's page and the order in the top-ups tab", async () => {
    const page = await signedIn(ADMIN, 'phone', 'en', `/admin/accounts/${customer.accountId}`);
    await page
      .getByRole('link', { name: `alipay:${customer.paid}` })
      .first()
      .click();
    await page.waitForURL((u) => u.searchParams.get('order') === customer.paid);
    await page.getByRole('tab', { name: 'Top-ups', selected: true }).waitFor();
    const marked = page.locator('tr.mg-row-highlight');
    await marked.waitFor();
    expect(await marked.innerText()).toContain(customer.paid);
    await marked.scrollIntoViewIfNeeded();
    await screenshot(page, 'usability-admin-order-from-ledger');
    await page.getByRole('tab', { name: 'Ledger' }).click();
    await page.getByRole('link', { name: customer.task }).click();
    await page.waitForURL((u) => u.pathname === `/admin/tasks/${customer.task}`);
    await page.locator('h1').filter({ hasText: customer.task }).waitFor();
    await page.context().close();
    expect(errors).toEqual([]);
  }, 120_000);
});
