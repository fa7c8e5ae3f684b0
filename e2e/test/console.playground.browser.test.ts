/// <reference lib="dom" />

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createAccount, hashPassword } from '@mediagate/shared/accounts';
import { usdToMicro } from '@mediagate/shared/billing';
import { createDatabase, type Database } from '@mediagate/shared/db';
import { waitFor } from '@mediagate/shared/testing';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  collectErrors,
  expectPlayable,
  hasChromium,
  launchChromium,
  screenshot,
  WIDTHS,
  watchSecrets,
} from './console/browser';
import { type Stack, startStack } from './stack';

// The console's playground in a real browser against the real API, workers and simulators: an
// image from a prompt, an edit of an uploaded file, and a video from an uploaded image, each billed
// as the account's playground key; the uploaded image is served at its URL byte for byte; no key
// reaches the page. Screenshots at 375 and 1440 px, in English and Chinese.
const USER = { email: `playground-${Date.now()}@example.test`, password: 'Playground-pass-42' };

const describeBrowser = hasChromium() ? describe : describe.skip;

let stack: Stack;
let database: Database;
let browser: Browser;
let context: BrowserContext;
const errors: string[] = [];
let accountId = '';
let png: Buffer;
const files = path.join(__dirname, '..', '.test-results', 'playground');

/** A context signed in as the customer (the session cookie set by the login answer). */
async function signedIn(viewport: { width: number; height: number }, lang: 'en' | 'zh' = 'en') {
  const c = await browser.newContext({
    viewport,
    isMobile: viewport.width < 500,
    hasTouch: viewport.width < 500,
  });
  errors.push(...collectErrors(c));
  await c.addInitScript((l) => window.localStorage.setItem('mediagate.lang', l), lang);
  const login = await c.request.post(`${stack.apiUrl}/console/api/login`, { data: USER });
  expect(login.status()).toBe(200);
  return c;
}

const balance = async () =>
  Number(
    (await stack.pool.query('select balance_micro_usd from accounts where id = $1', [accountId])).rows[0]
      .balance_micro_usd,
  );

/** The amount on the "Generate for $x" button, in micro-USD. */
async function priceOnButton(page: Page): Promise<number> {
  const label = (await page.getByRole('button', { name: /^Generate for \$/ }).textContent()) ?? '';
  const usd = /\$([\d.,]+)/.exec(label)?.[1];
  if (!usd) throw new Error(`no price on the button: ${label}`);
  return usdToMicro(Number(usd.replace(/,/g, '')));
}

/** Waits until `locator` matches exactly `n` elements. */
const waitForCount = (locator: Locator, n: number) =>
  waitFor(async () => (await locator.count()) === n, { what: `${n} of ${locator}`, timeoutMs: 15_000 });

/** Waits until every result image has loaded, and returns their sources. */
async function loadedImages(page: Page, count: number): Promise<string[]> {
  await page.waitForFunction(
    (n) => {
      const imgs = Array.from(document.querySelectorAll<HTMLImageElement>('img[alt^="Generated image"]'));
      return imgs.length === n && imgs.every((i) => i.complete && i.naturalWidth > 0);
    },
    count,
    { timeout: 30_000 },
  );
  return page
    .locator('img[alt^="Generated image"]')
    .evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src));
}

describeBrowser('the playground in a browser', () => {
  beforeAll(async () => {
    stack = await startStack({ env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8,::1' } });
    database = createDatabase(stack.env.DATABASE_URL!, { max: 1 });
    ({ accountId } = await createAccount(database.db, {
      email: USER.email,
      initialCreditMicroUsd: usdToMicro(20),
      passwordHash: await hashPassword(USER.password),
    }));
    const res = await fetch(`${stack.simUrl}/media/images/fixture-640x480.png`);
    png = Buffer.from(await res.arrayBuffer());
    mkdirSync(files, { recursive: true });
    writeFileSync(path.join(files, 'fox.png'), png);
    writeFileSync(path.join(files, 'harbour.png'), png);
    browser = await launchChromium();
    context = await signedIn(WIDTHS.desktop);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await database?.close();
    await stack?.stop();
  });

  it('generates images from a prompt at n × the price, shown and downloadable, with the request as code', async () => {
    const page = await context.newPage();
    const secrets = watchSecrets(page);
    await page.goto(`${stack.apiUrl}/console/playground`);
    await page.getByRole('heading', { name: 'Playground' }).waitFor();
    await page.locator('.ant-segmented').first().getByText('Images', { exact: true }).click();
    await page.getByLabel('Number of images').fill('2');
    await page.getByLabel('Prompt').fill('two paper lanterns over a harbour at night');
    await page.getByText(/^2 images at \$/).waitFor();
    const price = await priceOnButton(page);
    const before = await balance();
    await screenshot(page, 'playground-images-ready');
    await page.getByRole('button', { name: /^Generate for \$/ }).click();
    const srcs = await loadedImages(page, 2);
    // Download downloads (the simulator hosts the images on another origin, as a vendor does): the
    // very bytes the vendor hosts, as a file named after the call
    const buttons = page.getByTestId('playground-image-download');
    expect(await buttons.count()).toBe(2);
    for (const [i, src] of srcs.entries()) {
      const [download] = await Promise.all([page.waitForEvent('download'), buttons.nth(i).click()]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`^image-\\d+-${i + 1}\\.png$`));
      const saved = readFileSync((await download.path())!);
      expect(saved.equals(Buffer.from(await (await fetch(src)).arrayBuffer()))).toBe(true);
    }
    expect(page.url()).toBe(`${stack.apiUrl}/console/playground`);
    expect(context.pages()).toHaveLength(1);
    expect(before - (await balance())).toBe(price);
    const node = await page.getByTestId('snippet-playground-curl').textContent();
    expect(node).toContain('/v1/images/generations');
    expect(node).toContain('"n":2');
    await screenshot(page, 'playground-images-done');
    expect(secrets.headers).toEqual([]);
    expect(secrets.answers.join('\n')).not.toMatch(/sk-[A-Za-z0-9_-]{20,}/);
    await page.close();
  }, 120_000);

  it('edits an uploaded file, billed as one edit', async () => {
    const page = await context.newPage();
    await page.goto(`${stack.apiUrl}/console/playground`);
    await page.locator('.ant-segmented').first().getByText('Images', { exact: true }).click();
    await page.getByLabel('Model').click();
    await page.getByTitle(/^qwen-image-edit · /).click();
    await page.getByText('Image to edit', { exact: true }).waitFor();
    await page.locator('input[type=file]').setInputFiles(path.join(files, 'fox.png'));
    await page.getByText('Chosen: fox.png').waitFor();
    await page.getByLabel('Prompt').fill('give the lanterns a warm red glow');
    await screenshot(page, 'playground-edit-ready');
    const price = await priceOnButton(page);
    expect(price).toBe(45_000);
    const before = await balance();
    await page.getByRole('button', { name: /^Generate for \$/ }).click();
    await loadedImages(page, 1);
    expect(before - (await balance())).toBe(price);
    expect(await page.getByTestId('snippet-playground-curl').textContent()).toContain("-F 'image=@fox.png'");
    await screenshot(page, 'playground-edit-done');
    await page.close();
  }, 120_000);

  it('makes a video from an uploaded image, served at its URL byte for byte, and plays it', async () => {
    const page = await context.newPage();
    const secrets = watchSecrets(page);
    await page.goto(`${stack.apiUrl}/console/playground`);
    await page.getByRole('button', { name: 'Choose an image' }).waitFor();
    const uploaded = page.waitForResponse(
      (r) => r.request().method() === 'POST' && r.url().endsWith('/console/api/playground/uploads'),
    );
    await page.locator('input[type=file]').setInputFiles(path.join(files, 'harbour.png'));
    const upload = (await (await uploaded).json()) as { url: string };
    await page.getByTestId('playground-uploaded').waitFor();
    // what the vendor would fetch: the very bytes, without a session or a key
    const served = await fetch(upload.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    await page.getByLabel('Prompt').fill('the lanterns drift up into the clouds');
    const price = await priceOnButton(page);
    const before = await balance();
    await screenshot(page, 'playground-video-ready');
    await page.getByRole('button', { name: /^Generate for \$/ }).click();
    await expectPlayable(page, 'playground-player', 90_000);
    expect(before - (await balance())).toBe(price);
    // the task was made with the uploaded image's URL
    const { rows } = await stack.pool.query(
      "select metadata->'input'->>'img_url' as img from tasks where account_id = $1 order by created_at desc limit 1",
      [accountId],
    );
    expect(rows[0].img).toBe(upload.url);
    expect(await page.getByTestId('snippet-playground-curl').textContent()).toContain(upload.url);
    await screenshot(page, 'playground-video-played');
    await page.setViewportSize(WIDTHS.phone);
    await screenshot(page, 'playground-video-played');
    expect(secrets.headers).toEqual([]);
    expect(secrets.answers.join('\n')).not.toMatch(/sk-[A-Za-z0-9_-]{20,}/);
    await page.close();
  }, 180_000);

  it('lists the uploaded images: one used again for a video without uploading it again, one deleted after a confirmation', async () => {
    // a second upload, through the page's own route on the session
    const second = await context.request.post(`${stack.apiUrl}/console/api/playground/uploads`, {
      multipart: { file: { name: 'harbour.png', mimeType: 'image/png', buffer: png } },
    });
    expect(second.status()).toBe(200);
    const { url: secondUrl } = (await second.json()) as { url: string };
    const page = await context.newPage();
    await page.goto(`${stack.apiUrl}/console/playground`);
    const items = page.getByTestId('playground-upload');
    await waitForCount(items, 2);
    // newest first, each with its preview loaded and its size
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('[data-testid="playground-upload"] img')).every(
        (i) => i.complete && i.naturalWidth > 0,
      ),
    );
    expect(await items.first().locator('img').getAttribute('src')).toBe(secondUrl);
    expect(await items.first().textContent()).toMatch(/\d+(\.\d)? KB · kept until /);
    await screenshot(page, 'playground-uploads');
    // used again: the form takes its URL, nothing is uploaded
    let uploads = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/console/api/playground/uploads')) uploads++;
    });
    await items
      .first()
      .getByRole('button', { name: /^Use in the form/ })
      .click();
    await page.getByText('Using an image you uploaded earlier.').waitFor();
    await page.getByLabel('Prompt').fill('the harbour at dawn, boats leaving');
    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && r.url().endsWith('/console/api/playground/videos'),
    );
    await page.getByRole('button', { name: /^Generate for \$/ }).click();
    const task = (await (await created).json()) as { id: string };
    const { rows } = await stack.pool.query(
      "select metadata->'input'->>'img_url' as img from tasks where id = $1",
      [task.id],
    );
    expect(rows[0].img).toBe(secondUrl);
    expect(uploads).toBe(0);
    // the older one deleted after a confirmation: gone from the list, its URL answers 404
    const olderUrl = await items.nth(1).locator('img').getAttribute('src');
    await items
      .nth(1)
      .getByRole('button', { name: /^Delete/ })
      .click();
    await page.getByText('Delete this uploaded image?').waitFor();
    await screenshot(page, 'playground-upload-delete');
    expect(await items.count()).toBe(2);
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'Delete' }).click();
    await waitForCount(items, 1);
    expect((await fetch(olderUrl!)).status).toBe(404);
    expect((await fetch(secondUrl)).status).toBe(200);
    await page.setViewportSize(WIDTHS.phone);
    await screenshot(page, 'playground-uploads');
    await page.close();
  }, 180_000);

  it('lays the page out at 375 and 1440 px, in English and Chinese, without page errors', async () => {
    for (const lang of ['en', 'zh'] as const) {
      for (const viewport of [WIDTHS.phone, WIDTHS.desktop]) {
        const c = await signedIn(viewport, lang);
        const page = await c.newPage();
        await page.goto(`${stack.apiUrl}/console/playground`);
        await page.locator('h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        await screenshot(page, `playground-video-${lang}`);
        await page
          .locator('.ant-segmented')
          .first()
          .getByText(lang === 'en' ? 'Images' : '图片', { exact: true })
          .click();
        await page.getByLabel(lang === 'en' ? 'Number of images' : '图片数量').fill('3');
        await screenshot(page, `playground-images-${lang}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect({ lang, width: viewport.width, overflow: Math.max(0, overflow) }).toEqual({
          lang,
          width: viewport.width,
          overflow: 0,
        });
        await c.close();
      }
    }
    expect(errors).toEqual([]);
  }, 180_000);
});
