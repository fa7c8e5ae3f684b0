import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run); the tests download no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = () => existsSync(CHROMIUM);

/** Screenshots of every page at both widths, kept out of git (.test-results is ignored). */
export const SCREENSHOTS = path.join(__dirname, '..', '..', '..', '.test-results', 'screenshots');

export const WIDTHS = { phone: { width: 375, height: 812 }, desktop: { width: 1440, height: 900 } } as const;

/** Headless Chromium with a fresh profile and no background traffic (the machine has no network). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // H.264 clips play without a user gesture in tests
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

/** Every uncaught page error, console error and console warning of a context's pages, to assert none happened. */
export function collectErrors(context: BrowserContext): string[] {
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (err) => errors.push(`pageerror ${page.url()}: ${err.message}`));
    page.on('console', (msg) => {
      // warnings too: a library's warning in a production build is a defect the user's console shows
      if (msg.type() !== 'error' && msg.type() !== 'warning') return;
      const text = msg.text();
      // a failed request is shown on the page in words; the browser also logs it
      if (/Failed to load resource: the server responded with a status of (4\d\d)/.test(text)) return;
      errors.push(`console ${page.url()}: ${text}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return errors;
}

/** Saves a full-page screenshot as <name>-<width>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const file = path.join(SCREENSHOTS, `${name}-${width}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * What a page sent that must never hold a key: its requests' Authorization headers, and the text
 * of its console API answers (to look for a key's secret in).
 */
export function watchSecrets(page: Page): { headers: string[]; answers: string[] } {
  const seen = { headers: [] as string[], answers: [] as string[] };
  page.on('request', (r) => {
    const auth = r.headers().authorization;
    if (auth) seen.headers.push(`${r.url()}: ${auth}`);
  });
  page.on('response', async (r) => {
    if (new URL(r.url()).pathname.startsWith('/console/api/'))
      seen.answers.push(await r.text().catch(() => ''));
  });
  return seen;
}

/**
 * The player `testId` shows (within `showMs`) and loads its video's metadata without a media error:
 * a video that plays, not a black box.
 */
export async function expectPlayable(page: Page, testId: string, showMs = 30_000): Promise<void> {
  const video = page.getByTestId(testId);
  await video.waitFor({ timeout: showMs });
  await page.waitForFunction(
    (id) => {
      const v = document.querySelector<HTMLVideoElement>(`[data-testid="${id}"]`);
      return v !== null && (v.readyState >= 1 || v.error !== null);
    },
    testId,
    { timeout: 20_000 },
  );
  const state = await video.evaluate((v: HTMLVideoElement) => ({
    readyState: v.readyState,
    error: v.error?.code ?? null,
    duration: v.duration,
  }));
  expect(state.error).toBeNull();
  expect(state.readyState).toBeGreaterThanOrEqual(1);
  expect(state.duration).toBeGreaterThan(0);
}
