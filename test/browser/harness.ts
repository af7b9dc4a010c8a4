/**
 * Browser journeys against the demo store: the system Chromium driven by playwright-core (never
 * a downloaded browser), a demo store on port 0 with its SQLite files in a temp directory, and
 * a page that records every console error and CSP violation so a journey can assert there were
 * none. Without Chromium the journeys are skipped with a loud notice.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, vi } from 'vitest';
import { startDemoStore, type RunningDemoStore } from '../../examples/demo-store/listen.js';
import type { DemoStoreOptions } from '../../examples/demo-store/app.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);
export const RESULTS_DIR = join(process.cwd(), 'test-results', 'browser');

// A journey drives a real browser through several pages and processes; on a busy shared machine
// one page can take seconds, so each journey gets two minutes rather than the suite's 30 s.
vi.setConfig({ testTimeout: 120_000 });

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

if (!HAS_CHROMIUM) {
  const line = '!'.repeat(78);
  console.warn(`\n${line}\n!! BROWSER JOURNEYS SKIPPED: no Chromium at ${CHROMIUM_PATH}.\n!! Install the system package (apt-get install chromium) or set CHROMIUM_PATH.\n${line}\n`);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export interface StoreUnderTest extends RunningDemoStore {
  dir: string;
}

export async function startStore(options: StoreOptions = {}): Promise<StoreUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'demo-browser-'));
  const running = await startDemoStore({
    port: 0,
    sandboxPort: 0,
    dataDir: dir,
    // The sandbox's notification retries run a thousand times faster.
    notifyTimeScale: 0.001,
    sweeper: false,
    env: {},
    ...options,
  });
  return {
    ...running,
    dir,
    async close() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type StoreOptions = Partial<Omit<DemoStoreOptions, 'publicUrl'>>;

export interface JourneyEnv<K extends string> {
  browser: Browser;
  stores: Record<K, StoreUnderTest>;
}

/**
 * One Chromium and the named demo stores for the enclosing describe block: started before its
 * tests, closed after them in reverse order. The fields are filled once the hooks have run.
 */
export function useJourneyEnv<K extends string>(storeOptions: Record<K, StoreOptions>): JourneyEnv<K> {
  const env = { stores: {} } as JourneyEnv<K>;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    env.browser = await launchBrowser();
    cleanups.push(() => env.browser.close());
    for (const name of Object.keys(storeOptions) as K[]) {
      const store = await startStore(storeOptions[name]);
      cleanups.push(() => store.close());
      env.stores[name] = store;
    }
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return env;
}

/** A problem the page reported: a console error, an uncaught exception or a CSP violation. */
export interface PageProblem {
  kind: 'console' | 'pageerror' | 'csp';
  text: string;
  url: string;
}

export interface Shopper {
  context: BrowserContext;
  page: Page;
  problems: PageProblem[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** A fresh browser profile (its own cookies) with problem recording on every page it opens. */
export async function newShopper(browser: Browser, viewport = { width: 1100, height: 900 }): Promise<Shopper> {
  const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'Europe/Amsterdam' });
  const problems: PageProblem[] = [];
  await context.exposeBinding('__reportCspViolation', (source, text: string) => {
    problems.push({ kind: 'csp', text, url: source.page.url() });
  });
  // Runs before any page script, in every frame; not subject to the page's CSP.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __reportCspViolation: (text: string) => void }).__reportCspViolation;
      report(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`);
    });
  });
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push({ kind: 'console', text: msg.text(), url: page.url() });
  });
  page.on('pageerror', (err) => {
    problems.push({ kind: 'pageerror', text: err.message, url: page.url() });
  });
  return {
    context,
    page,
    problems,
    async screenshot(name) {
      mkdirSync(RESULTS_DIR, { recursive: true });
      const path = join(RESULTS_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    close: () => context.close(),
  };
}
