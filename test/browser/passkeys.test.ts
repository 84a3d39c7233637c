/**
 * Passkeys in Debian's Chromium (CONTRACT-2 §15.2), with a virtual authenticator over CDP
 * (`WebAuthn.addVirtualAuthenticator`): registered from the `/passkeys` page, then used to sign
 * in from the login page without a password; removed again.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { totpCode } from '../../src/mfa/totp.js';
import { PASSWORD } from '../helpers/app.js';
import { describeInChromium, useChromium } from './chromium.js';
import { useDemoServer } from './demo-server.js';

/** A platform authenticator that holds discoverable credentials and verifies its user at once. */
async function addAuthenticator(page: Page): Promise<void> {
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
}

describeInChromium('passkeys in a browser', () => {
  const demo = useDemoServer();
  const chromium = useChromium(() => demo.url);

  it('registers a passkey from /passkeys, signs in with it without a password, and removes it', async () => {
    await demo.operator.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const page = await chromium.open();
    await addAuthenticator(page);
    await page.goto('/service-auth/login?next=%2Fservice-auth%2Fpasskeys');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.waitForURL('**/service-auth/passkeys');
    await page.getByText('No passkeys yet.').waitFor();

    await page.getByLabel('Name of the new passkey').fill('Laptop');
    // The session alone is not enough: the password, as it is now.
    await page.getByLabel('Your password').fill('Wrong-Guess-Battery-6');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('That password is not right. Enter your password as it is now.').waitFor();
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL('**/service-auth/passkeys?added=1');
    await page.getByRole('cell', { name: 'Laptop', exact: true }).waitFor();

    // Logged out (the cookie gone), then in again with the passkey alone.
    await page.context().clearCookies();
    await page.goto('/service-auth/login?next=%2Fservice-auth%2Fsecurity-log');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL('**/service-auth/security-log');
    await page.getByRole('cell', { name: 'Logged in' }).first().waitFor();

    await page.goto('/service-auth/passkeys');
    await page.getByRole('button', { name: 'Remove the passkey Laptop' }).click();
    await page.waitForURL('**/service-auth/passkeys?removed=1');
    await page.getByText('No passkeys yet.').waitFor();

    // The authenticator still holds the credential; the site no longer knows it.
    await page.context().clearCookies();
    await page.goto('/service-auth/login');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('Signing in with a passkey did not work. Try again, or use your password.').waitFor();
    expect(page.url()).to.match(/\/service-auth\/login$/);
  });

  it('serves as the second step of a password login, in place of an authenticator code', async () => {
    const bob = await demo.operator.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    const setup = await demo.operator.parts.secondFactors.beginTotp(bob);
    await demo.operator.parts.secondFactors.confirmTotp(bob.id, totpCode(setup.secret, Date.now()));
    const page = await chromium.open();
    await addAuthenticator(page);
    // The password, then a code, once, to register a passkey.
    await page.goto('/service-auth/login?next=%2Fservice-auth%2Fpasskeys');
    await page.getByLabel('Email').fill('bob@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    expect(await page.locator('button[data-passkey]').count(), 'no passkey yet: no button, shown or hidden').to.equal(
      0,
    );
    await page.getByLabel('Code', { exact: true }).fill(totpCode(setup.secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.waitForURL('**/service-auth/passkeys');
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL('**/service-auth/passkeys?added=1');

    await page.context().clearCookies();
    await page.goto('/service-auth/login?next=%2Fservice-auth%2Fsessions');
    await page.getByLabel('Email').fill('bob@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByRole('button', { name: 'Use a passkey instead' }).click();
    await page.waitForURL('**/service-auth/sessions');
    const [record] = await demo.operator.auth.audit.query({ email: 'bob@example.com', type: 'login', limit: 1 });
    expect(record!.detail['second_factor']).to.equal('passkey');
  });
});
