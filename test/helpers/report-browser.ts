import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { findChromium, type ChromiumChoice } from './chromium';

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium (see helpers/chromium.ts for which) with a fresh profile, no background traffic of its own. */
export async function launchBrowser(choice: ChromiumChoice = findChromium()): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'stepchain-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: choice.executablePath,
    env: { ...process.env, ...choice.env } as Record<string, string>,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface OpenedReport {
  page: Page;
  /** Every request other than the page's own file:// load (must stay empty). */
  requests: string[];
  /** Page errors and console errors (a CSP violation shows up here). */
  problems: string[];
}

/** Opens a report file and waits until its in-page verification has finished. */
export async function openReport(b: Browser, file: string): Promise<OpenedReport> {
  const url = pathToFileURL(file).href;
  const page = await b.context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  await page.route('**/*', (route) => {
    if (route.request().url() === url) return route.continue();
    requests.push(route.request().url());
    return route.abort();
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  await page.goto(url);
  await page.waitForSelector('html[data-verify-state="done"]', { timeout: 120_000 });
  return { page, requests, problems };
}

/** The root element's data-* attributes. */
export async function rootData(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => ({ ...document.documentElement.dataset }) as Record<string, string>);
}
