/**
 * `npm run screenshots`: the pictures of the pages in the README, docs/pages.md and docs/admin.md, taken from the
 * demo in Debian's Chromium exactly as the browser suite drives it, at a phone's width. The demo
 * runs with SERVICE_AUTH_EMAIL_CONFIRMATION on, so that the confirmation pages can be shown.
 * Writes docs/screenshots/*.png.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { totpCode } from '../src/mfa/totp.js';
import { createTestApp, PASSWORD } from '../test/helpers/app.js';
import { freePort } from '../test/helpers/ports.js';
import { launchChromium } from '../test/browser/chromium.js';
import { startDemoServer } from '../test/browser/demo-server.js';
import { shootAdminConsole } from './admin-screenshots.js';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 700 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
/** A second device of Ada's, as the sessions page names it. */
const DESKTOP_FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

const demo = await startDemoServer({ SERVICE_AUTH_EMAIL_CONFIRMATION: 'true' });
const chromium = await launchChromium();
const written: string[] = [];
const shoot = async (page: Page, name: string) => {
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
  written.push(`${name}.png`);
};
try {
  await mkdir(OUT, { recursive: true });
  await demo.operator.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  const older = await demo.operator.auth.tokens.create('ada@example.com', { name: 'laptop CLI', expiresInDays: 90 });
  await fetch(`${demo.url}/api/whoami`, { headers: { Authorization: `Bearer ${older.token}` } });

  const page = await (await chromium.browser.newContext({ ...PHONE, baseURL: demo.url })).newPage();

  // The login page after a failed attempt: the error beside its field, the focus on it.
  await page.goto('/service-auth/login');
  await logIn(page, 'ada@example.com', 'Not-the-password-1');
  await focusOn(page, 'password');
  await shoot(page, 'login');

  // The tokens page just after creating one: shown once, with its copy button, above the list.
  await logIn(page, 'ada@example.com', PASSWORD);
  await page.waitForURL(`${demo.url}/`);
  await page.goto('/service-auth/tokens');
  await page.getByLabel('Name').fill('deploy bot');
  await page.getByLabel('Expires in').fill('30');
  await page.getByRole('checkbox', { name: 'reports:read', exact: true }).check();
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByRole('button', { name: 'Copy' }).waitFor();
  await shoot(page, 'tokens');

  // The sessions page: this phone, and a desktop browser logged in too.
  const desktop = await (
    await chromium.browser.newContext({ baseURL: demo.url, userAgent: DESKTOP_FIREFOX })
  ).newPage();
  await desktop.goto('/service-auth/login');
  await logIn(desktop, 'ada@example.com', PASSWORD);
  await desktop.waitForURL(`${demo.url}/`);
  await page.goto('/service-auth/sessions');
  await page.getByRole('button', { name: 'End every other session' }).waitFor();
  await shoot(page, 'sessions');

  // Changing the password, refused: the current password was not right.
  await page.goto('/service-auth/password');
  await page.getByLabel('Current password').fill('Not-the-password-1');
  await page.getByLabel('New password').fill('Brand-New-Password-42');
  await page.getByRole('button', { name: 'Change password' }).click();
  await focusOn(page, 'current_password');
  await shoot(page, 'password');

  // Changing the email address: the link is on its way to the new one.
  await page.goto('/service-auth/email');
  await page.getByLabel('New email address').fill('ada.lovelace@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByRole('status').waitFor();
  await shoot(page, 'email');

  // Deleting the account: the warning and the password.
  await page.goto('/service-auth/delete-account');
  await shoot(page, 'delete-account');

  // Two-step login: the set-up's QR code, the recovery codes once, the login's second step.
  await page.goto('/service-auth/mfa');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await page.locator('figure.qr svg').waitFor();
  await shoot(page, 'mfa-setup');
  const key = (await page.locator('code.secret').textContent())!;
  await page.getByLabel('Code from the app').fill(totpCode(key, Date.now()));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
  await shoot(page, 'mfa-codes');
  const second = await (await chromium.browser.newContext({ ...PHONE, baseURL: demo.url })).newPage();
  await second.goto('/service-auth/login');
  await logIn(second, 'ada@example.com', PASSWORD);
  await second.getByRole('heading', { name: 'Enter your code' }).waitFor();
  await shoot(second, 'login-mfa');

  // Passkeys: one added with a virtual authenticator (as the browser suite does).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.goto('/service-auth/passkeys');
  await page.getByLabel('Name of the new passkey').fill('Phone');
  await page.getByLabel('Your password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.waitForURL('**/service-auth/passkeys?added=1');
  await shoot(page, 'passkeys');

  // The security log: what happened to the account, newest first.
  await page.goto('/service-auth/security-log');
  await shoot(page, 'security-log');

  // A new account, not yet confirmed: the login says so; the mailed link's page has the button.
  const newcomer = await (await chromium.browser.newContext({ ...PHONE, baseURL: demo.url })).newPage();
  await newcomer.goto('/service-auth/register');
  await newcomer.getByLabel('Email').fill('nova@example.com');
  await newcomer.getByLabel('Password').fill(PASSWORD);
  await newcomer.getByRole('button', { name: 'Create account' }).click();
  await newcomer.getByRole('status').waitFor();
  const link = await confirmationLink('nova@example.com');
  await newcomer.goto('/service-auth/login');
  await logIn(newcomer, 'nova@example.com', PASSWORD);
  await newcomer.getByRole('button', { name: 'Mail me a new link' }).waitFor();
  await shoot(newcomer, 'login-unconfirmed');
  await newcomer.goto(link);
  await newcomer.getByRole('button', { name: 'Confirm my address' }).waitFor();
  await shoot(newcomer, 'confirm');

  await shootSsoLogin();
  // The admin console, at a desktop's width.
  await shootAdminConsole(chromium.browser, demo, shoot);

  console.log(`Wrote ${written.map((name) => `${OUT}${name}`).join(', ')}`);
} finally {
  await chromium.close();
  await demo.stop();
}

/**
 * The login page with a button per identity provider (docs/sso.md): an app of its own in this
 * process, with two providers configured; nothing asks them anything until someone clicks.
 */
async function shootSsoLogin(): Promise<void> {
  const port = await freePort();
  const providers = {
    SERVICE_AUTH_SSO_PROVIDERS: 'acme,github',
    SERVICE_AUTH_SSO_ACME_NAME: 'Acme SSO',
    SERVICE_AUTH_SSO_GITHUB_NAME: 'GitHub',
  };
  const keys = Object.fromEntries(
    ['ACME', 'GITHUB'].flatMap((id) => [
      [`SERVICE_AUTH_SSO_${id}_ISSUER`, `https://${id.toLowerCase()}.example`],
      [`SERVICE_AUTH_SSO_${id}_CLIENT_ID`, 'demo'],
      [`SERVICE_AUTH_SSO_${id}_CLIENT_SECRET`, 'unused'],
    ]),
  );
  const sso = await createTestApp({ SERVICE_AUTH_PUBLIC_URL: `http://localhost:${port}`, ...providers, ...keys });
  const server = sso.app.listen(port, 'localhost');
  try {
    const page = await (await chromium.browser.newContext({ ...PHONE, baseURL: `http://localhost:${port}` })).newPage();
    await page.goto('/service-auth/login');
    await page.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    await shoot(page, 'login-sso');
  } finally {
    server.close();
    await sso.auth.close();
  }
}

async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

async function focusOn(page: Page, id: string): Promise<void> {
  await page.waitForFunction(`document.activeElement && document.activeElement.id === ${JSON.stringify(id)}`);
}

/** The link of the confirmation mail to `to`, mailed after the registration's answer. */
async function confirmationLink(to: string): Promise<string> {
  const pattern = /https?:\/\/\S+\/service-auth\/confirm\?token=[A-Za-z0-9_-]+/;
  for (
    const deadline = Date.now() + 10_000;
    Date.now() < deadline;
    await new Promise((resolve) => setTimeout(resolve, 50))
  ) {
    const mail = (await demo.mails()).find((m) => m.to === to && pattern.test(m.text));
    if (mail) return pattern.exec(mail.text)![0];
  }
  throw new Error(`no confirmation link mailed to ${to}`);
}
