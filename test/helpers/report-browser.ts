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
      // The renderer and the (software) GPU compositor as threads of the browser process, not processes of their own:
      // the same Blink renders and runs the page, but each page opened costs about half the CPU (20 blank pages,
      // measured: 20.7 s with processes, 11.5 s without; a report page costs what a blank one does, so the tests'
      // ~30 pages were half the file's CPU). Not for the @sparticuz/chromium build: it ships no GL library beside
      // the binary, and in one process it aborts (SIGTRAP) loading one.
      ...(choice.source === '@sparticuz/chromium' ? [] : ['--single-process']),
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
