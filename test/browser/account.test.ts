import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { PASSWORD } from '../helpers/app.js';
import { describeInChromium, useChromium, untilFocused } from './chromium.js';
import { useDemoServer } from './demo-server.js';

describeInChromium('account pages in a browser', () => {
  const demo = useDemoServer();
  const chromium = useChromium(() => demo.url);

  const focusedId = (page: Page) => page.evaluate<string>('document.activeElement && document.activeElement.id');
  const logIn = async (page: Page, email: string, password: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  };

  it('registers from the home page, is logged in there, and logs out with its button', async () => {
    const page = await chromium.open();
    await page.goto('/');
    await page.getByText('Nobody is logged in.').waitFor();
    await page.getByRole('link', { name: 'Create an account' }).first().click();
    await page.waitForURL('**/service-auth/register');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.waitForURL(`${demo.url}/`);
    expect(await page.locator('main > p').first().textContent()).to.equal(
      'Logged in as grace@example.com; roles: member.',
    );
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('Nobody is logged in.').waitFor();
  });

  it('lists every failed password rule beside the password and puts the focus there', async () => {
    const page = await chromium.open();
    await page.goto('/service-auth/register');
    await page.getByLabel('Email').fill('weak@example.com');
    await page.getByLabel('Password').fill('weakpass');
    await page.getByRole('button', { name: 'Create account' }).click();

    await untilFocused(page, 'password');
    const rules = await page.locator('#password-error li').allTextContents();
    expect(rules).to.deep.equal([
      'at least 12 characters',
      'an uppercase letter (A-Z)',
      'a digit (0-9)',
      'a special character (anything but A-Z, a-z and 0-9)',
    ]);
    // Screen readers hear the error, then the rules, when they reach the field.
    expect(await page.getByLabel('Password').getAttribute('aria-describedby')).to.equal('password-error password-hint');
    expect(await page.getByLabel('Email').inputValue()).to.equal('weak@example.com');
    expect(await page.getByLabel('Password').inputValue()).to.equal('');
  });

  it('fails a login: the message beside the password, the email kept, the focus on the password', async () => {
    await demo.operator.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const page = await chromium.open();
    await page.goto('/service-auth/login');
    await logIn(page, 'ada@example.com', 'Not-The-Password-1');

    await untilFocused(page, 'password');
    expect(await page.locator('#password-error').textContent()).to.contain('The email or password is not right.');
    expect(await page.getByRole('alert').textContent()).to.contain('There is a problem');
    expect(await page.getByLabel('Email').inputValue()).to.equal('ada@example.com');
    expect(await focusedId(page)).to.equal('password');
  });

  it('logs in and goes on to the page that asked for it (next)', async () => {
    await demo.operator.auth.users.create({ email: 'lin@example.com', password: PASSWORD });
    const page = await chromium.open();
    await page.goto('/service-auth/tokens');
    await page.waitForURL('**/service-auth/login?next=%2Fservice-auth%2Ftokens');
    await logIn(page, 'lin@example.com', PASSWORD);
    await page.waitForURL('**/service-auth/tokens');
    expect(await page.locator('h1').textContent()).to.equal('API tokens');
  });

  it('requests a reset, follows the mailed link, sets a new password and logs in with it', async () => {
    await demo.operator.auth.users.create({ email: 'reset@example.com', password: PASSWORD });
    const page = await chromium.open();
    await page.goto('/service-auth/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill('reset@example.com');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').getByText('a link to reset its password is on its way').waitFor();

    const mail = (await demo.mails()).find((m) => m.to === 'reset@example.com')!;
    const link = /https?:\/\/\S+\/reset\?token=[A-Za-z0-9_-]+/.exec(mail.text)![0];
    expect(link.startsWith(`${demo.url}/service-auth/reset?token=`)).to.equal(true);
    await page.goto(link);
    await page.getByLabel('New password').fill('Brand-New-Password-42');
    await page.getByRole('button', { name: 'Set password' }).click();

    await page.waitForURL('**/service-auth/login?reset=done');
    await page.getByText('Your password has been changed.').waitFor();
    await logIn(page, 'reset@example.com', 'Brand-New-Password-42');
    await page.waitForURL(`${demo.url}/`);
    await page.getByText('Logged in as reset@example.com').waitFor();

    // The link is used up: following it again says so, and offers a new one.
    await page.goto(link);
    await page.getByText('This reset link is unknown, expired or already used.').waitFor();
    expect(await page.getByRole('link', { name: 'Ask for a new link' }).getAttribute('href')).to.equal(
      '/service-auth/forgot',
    );
  });

  it('is readable on a phone: nothing wider than the screen', async () => {
    const page = await chromium.open({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    for (const path of ['/service-auth/login', '/service-auth/register', '/service-auth/forgot', '/']) {
      await page.goto(path);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow, path).to.be.at.most(0);
    }
  });
});
