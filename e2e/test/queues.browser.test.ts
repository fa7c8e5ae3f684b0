import type { Browser } from 'playwright-core';
import { collectErrors, hasChromium, launchChromium, WIDTHS } from './console/browser';
import { type Stack, startStack } from './stack';

/**
 * The queue dashboard (bull-board at /admin/queues) in Debian's Chromium, as an operator opens it:
 * every queue listed, the links back to the console, and nothing blocked by the Content-Security-Policy or failing to load.
 */
const ADMIN = { email: 'queues-ops@example.test', password: 'operator-password-1' };
let stack: Stack;
let browser: Browser;

const maybe = hasChromium() ? describe : describe.skip;

beforeAll(async () => {
  if (!hasChromium()) return;
  stack = await startStack({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

maybe('the queue dashboard in a browser', () => {
  it('lists every queue, carries the links back to the console, and loads without blocked resources', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const errors = collectErrors(context);
    const failed: string[] = [];
    context.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    context.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.url()}: ${r.status()}`);
    });
    const login = await context.request.post(`${stack.apiUrl}/console/api/login`, { data: ADMIN });
    expect(login.status()).toBe(200);
    const page = await context.newPage();
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { reportViolation: (v: string) => void }).reportViolation(
          `${e.violatedDirective} ${e.blockedURI}`,
        ),
      );
    });
    await page.goto(`${stack.apiUrl}/admin/queues`);
    for (const name of ['video-tasks', 'callbacks', 'media-copy'])
      await page.getByText(name).first().waitFor();
    await page.waitForLoadState('networkidle');
    // the links back to the console are in the page's configuration (bull-board's menu shows them)
    expect(await page.content()).toContain('/admin/queue-status');
    expect(violations).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
