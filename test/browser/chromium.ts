/**
 * Debian's Chromium, driven by playwright-core (which never downloads a browser of its own).
 *
 * The browser suites run when there is a Chromium: the one SERVICE_AUTH_TEST_BROWSER names (as
 * `.ci/run` sets it, and then a missing browser fails the run), else /usr/bin/chromium if it is
 * installed. Without either, they are not registered and one line says so.
 */
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const required = process.env['SERVICE_AUTH_TEST_BROWSER'] || undefined;
export const chromiumPath = required ?? (existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined);

/** The flags the browser runs with, and no others (besides its profile and Playwright's pipe). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Where a failed test leaves a screenshot of each page it had open (ignored by git). */
export const FAILURE_SCREENSHOTS = fileURLToPath(new URL('../../test-results/browser/', import.meta.url));

export interface RunningChromium {
  browser: Browser;
  /** Its profile directory, removed by `close()`. */
  profile: string;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** Starts Chromium with a fresh, empty profile. */
export async function launchChromium(): Promise<RunningChromium> {
  if (!chromiumPath)
    throw new Error(`No Chromium: install it (apt-get install chromium) or set SERVICE_AUTH_TEST_BROWSER`);
  if (!existsSync(chromiumPath)) throw new Error(`SERVICE_AUTH_TEST_BROWSER is ${chromiumPath}, which does not exist`);
  const profile = await mkdtemp(join(tmpdir(), 'service-auth-chromium-'));
  try {
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      // Playwright would add flags of its own; ours are the whole list. The pipe is how it talks
      // to the browser.
      ignoreDefaultArgs: true,
      args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
      timeout: 30_000,
    });
    return {
      browser,
      profile,
      async close() {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}

// On the global object, like test/helpers/services.ts: the line is printed once per run even if
// this module is loaded more than once.
const announced: Set<string> = ((globalThis as Record<symbol, Set<string>>)[
  Symbol.for('service-auth.tests.skipped')
] ??= new Set());

/** Registers `suite` when there is a Chromium; otherwise says once that the browser suites are skipped. */
export function describeInChromium(title: string, suite: () => void): void {
  if (chromiumPath) {
    describe(`${title} [Chromium]`, suite);
    return;
  }
  if (!announced.has('Chromium')) {
    announced.add('Chromium');
    console.log(`  (Browser suites skipped: install ${DEBIAN_CHROMIUM} or set SERVICE_AUTH_TEST_BROWSER to run them)`);
  }
}

export interface BrowserFixture {
  /** A page in a fresh context (no cookies), closed after the test. */
  open(options?: BrowserContextOptions): Promise<Page>;
}

/**
 * The test process's one Chromium, started by the first suite that needs it and left running for
 * the next (each test has contexts of its own: no cookies, storage or permissions carry over).
 * Playwright closes it when the process exits; the profile goes with it.
 */
let processChromium: Promise<RunningChromium> | undefined;
function sharedChromium(): Promise<RunningChromium> {
  if (!processChromium) {
    processChromium = launchChromium();
    processChromium.then(
      (running) => process.once('exit', () => rmSync(running.profile, { recursive: true, force: true })),
      () => (processChromium = undefined), // the next suite tries again, and says why it failed
    );
  }
  return processChromium;
}

/**
 * For a suite: the process's Chromium, a fresh context per `open()`, and on failure a full-page
 * screenshot of every page the test opened, named after the test.
 */
export function useChromium(baseURL: () => string): BrowserFixture {
  let chromiumInstance: RunningChromium | undefined;
  let contexts: BrowserContext[] = [];

  before(async function () {
    this.timeout(60_000);
    chromiumInstance = await sharedChromium();
  });
  afterEach(async function () {
    const test = this.currentTest;
    if (test?.state === 'failed') {
      await mkdir(FAILURE_SCREENSHOTS, { recursive: true });
      const name = test
        .fullTitle()
        .replace(/[^A-Za-z0-9]+/g, '-')
        .slice(0, 120);
      const pages = contexts.flatMap((context) => context.pages());
      for (const [index, page] of pages.entries()) {
        const path = join(FAILURE_SCREENSHOTS, `${name}${pages.length > 1 ? `-${index + 1}` : ''}.png`);
        await page.screenshot({ path, fullPage: true }).then(
          () => console.log(`      screenshot of the failure: ${path}`),
          (error: Error) => console.log(`      no screenshot (${error.message})`),
        );
      }
    }
    await Promise.all(contexts.map((context) => context.close()));
    contexts = [];
  });

  return {
    async open(options = {}) {
      const context = await chromiumInstance!.browser.newContext({ baseURL: baseURL(), ...options });
      context.setDefaultTimeout(10_000);
      contexts.push(context);
      return context.newPage();
    },
  };
}

/**
 * Waits until the element with this id has the focus. Not `page.waitForFunction('…')`: when its
 * first check fails, Playwright polls by evaluating the string in the page, which the pages' CSP
 * (no 'unsafe-eval') refuses; `page.evaluate` of an expression is not subject to it.
 */
export async function untilFocused(page: Page, id: string, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if ((await page.evaluate<string | null>('document.activeElement && document.activeElement.id')) === id) return;
    if (Date.now() > deadline) throw new Error(`#${id} did not get the focus within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
