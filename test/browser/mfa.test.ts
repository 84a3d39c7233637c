/**
 * Two-step login in Debian's Chromium (CONTRACT-2 §15.1): setting up an authenticator app from the
 * `/mfa` page, then logging in with a code from it, and with a recovery code.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { totpCode } from '../../src/mfa/totp.js';
import { PASSWORD } from '../helpers/app.js';
import { describeInChromium, useChromium } from './chromium.js';
import { useDemoServer } from './demo-server.js';

async function logIn(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
}

describeInChromium('two-step login in a browser', () => {
  const demo = useDemoServer();
  const chromium = useChromium(() => demo.url);

  it('sets up an authenticator app, then logs in with a code and with a recovery code', async () => {
    await demo.operator.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const laptop = await chromium.open();
    await laptop.goto('/service-auth/login?next=%2Fservice-auth%2Fmfa');
    await logIn(laptop, 'ada@example.com');
    await laptop.waitForURL('**/service-auth/mfa');
    await laptop.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await laptop.locator('figure.qr svg').waitFor();
    const key = (await laptop.locator('code.secret').textContent())!;
    await laptop.getByLabel('Code from the app').fill(totpCode(key, Date.now()));
    await laptop.getByRole('button', { name: 'Turn on' }).click();
    await laptop.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    const codes = await laptop.locator('ul.codes code').allTextContents();
    expect(codes).to.have.length(10);
    await laptop.getByRole('link', { name: 'I have saved them' }).click();
    await laptop.getByText('10 recovery codes left').waitFor();

    // Another browser: the password, then a code from the app (the next one: the set-up used this one).
    const phone = await chromium.open();
    await phone.goto('/service-auth/login?next=%2Fservice-auth%2Fsessions');
    await logIn(phone, 'ada@example.com');
    await phone.getByRole('heading', { name: 'Enter your code' }).waitFor();
    await phone.getByLabel('Code', { exact: true }).fill(totpCode(key, Date.now() + 30_000));
    await phone.getByRole('button', { name: 'Log in', exact: true }).click();
    await phone.waitForURL('**/service-auth/sessions');

    // A third: a recovery code, from the folded part of the step.
    const borrowed = await chromium.open();
    await borrowed.goto('/service-auth/login?next=%2Fservice-auth%2Fsecurity-log');
    await logIn(borrowed, 'ada@example.com');
    await borrowed.getByText('Lost your phone? Use a recovery code').click();
    await borrowed.getByLabel('Recovery code').fill(codes[0]!);
    await borrowed.getByRole('button', { name: 'Log in with the recovery code' }).click();
    await borrowed.waitForURL('**/service-auth/security-log');
    await borrowed.getByRole('cell', { name: 'Used a recovery code' }).waitFor();
    await borrowed.getByRole('cell', { name: 'Set up an authenticator app' }).waitFor();
  });
});
