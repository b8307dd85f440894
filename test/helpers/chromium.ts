/**
 * Headless Chromium for the browser tests: Debian's chromium driven by playwright-core (no browser
 * download). A browser test runs where Chromium is installed and always under CI=true, where its
 * absence fails the test instead of skipping it; elsewhere it is skipped with a line saying why.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests of `name` run here; prints why when they are skipped. */
export function browserTestsRun(name: string): boolean {
  const run = existsSync(CHROMIUM) || process.env['CI'] === 'true';
  if (!run) {
    process.stdout.write(`${name}: skipped: ${CHROMIUM} is not installed (apt-get install -y chromium); under CI=true it runs and fails without it\n`);
  }
  return run;
}

/** Launches headless Chromium with no background traffic of its own. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-gpu'],
  });
}

export interface WatchedPage {
  readonly page: Page;
  /** Console errors and warnings (`error: ...`, `warning: ...`) and uncaught errors (`pageerror: ...`), in order. */
  readonly problems: string[];
  /** Every request the page made for something other than a file: URL. */
  readonly offFile: string[];
}

/** A new page of `browser` whose problems and non-file requests are collected. */
export async function watchedPage(browser: Browser, viewport: { width: number; height: number }): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const offFile: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) offFile.push(r.url());
  });
  return { page, problems, offFile };
}

/** Opens a generated HTML page (report or sweep) from disk and waits until its script has rendered it. */
export async function openRendered(page: Page, file: string): Promise<void> {
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-rendered="true"]', { timeout: 15_000 });
}
