/**
 * `npm run screenshots`: the README's pictures of the login and tokens pages, taken from the demo
 * in Debian's Chromium exactly as the browser suite drives it, at a phone's width.
 * Writes docs/screenshots/login.png and docs/screenshots/tokens.png.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { PASSWORD } from '../test/helpers/app.js';
import { launchChromium } from '../test/browser/chromium.js';
import { startDemoServer } from '../test/browser/demo-server.js';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 700 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

const demo = await startDemoServer();
const chromium = await launchChromium();
try {
  await mkdir(OUT, { recursive: true });
  await demo.operator.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  const older = await demo.operator.auth.tokens.create('ada@example.com', { name: 'laptop CLI', expiresInDays: 90 });
  await fetch(`${demo.url}/api/whoami`, { headers: { Authorization: `Bearer ${older.token}` } });

  const page = await (await chromium.browser.newContext({ ...PHONE, baseURL: demo.url })).newPage();

  // The login page after a failed attempt: the error beside its field, the focus on it.
  await page.goto('/service-auth/login');
  await logIn(page, 'Not-the-password-1');
  await page.waitForFunction('document.activeElement && document.activeElement.id === "password"');
  await page.screenshot({ path: `${OUT}login.png`, fullPage: true });

  // The tokens page just after creating one: shown once, with its copy button, above the list.
  await logIn(page, PASSWORD);
  await page.goto('/service-auth/tokens');
  await page.getByLabel('Name').fill('deploy bot');
  await page.getByLabel('Expires in').fill('30');
  await page.getByLabel('Scopes').fill('reports:read');
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByRole('button', { name: 'Copy' }).waitFor();
  await page.screenshot({ path: `${OUT}tokens.png`, fullPage: true });
  console.log(`Wrote ${OUT}login.png and ${OUT}tokens.png`);
} finally {
  await chromium.close();
  await demo.stop();
}

async function logIn(page: Page, password: string): Promise<void> {
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}
