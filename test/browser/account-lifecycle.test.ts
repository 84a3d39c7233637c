import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { PASSWORD } from '../helpers/app.js';
import { describeInChromium, useChromium, untilFocused } from './chromium.js';
import { useDemoServer, type DemoServer } from './demo-server.js';

const NEW_PASSWORD = 'Brand-New-Password-42';

/** The link to `page` (`confirm`, `confirm-email`) in the latest mail to `to`, once it has arrived. */
async function mailedLink(demo: Pick<DemoServer, 'mails'>, to: string, page: string, count = 1): Promise<string> {
  const pattern = new RegExp(`https?://\\S+/service-auth/${page}\\?token=[A-Za-z0-9_-]+`);
  // Mail sent after the answer (a registration's) may take a moment: wait for it, up to a deadline.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const links = (await demo.mails())
      .filter((mail) => mail.to === to && pattern.test(mail.text))
      .map((mail) => pattern.exec(mail.text)![0]);
    if (links.length >= count) return links[links.length - 1]!;
    if (Date.now() > deadline) throw new Error(`no ${page} link mailed to ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

describeInChromium('the account lifecycle pages in a browser', () => {
  const demo = useDemoServer();
  const chromium = useChromium(() => demo.url);

  /** A browser (a context of its own) logged in as `email`, on `path`. */
  async function loggedIn(email: string, path: string, options = {}): Promise<Page> {
    const page = await chromium.open(options);
    await page.goto(`/service-auth/login?next=${encodeURIComponent(path)}`);
    await logIn(page, email, PASSWORD);
    await page.waitForURL(`**${path}`);
    return page;
  }

  it('changes the password: the old one stops working, and another browser is logged out', async () => {
    await demo.operator.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const laptop = await loggedIn('ada@example.com', '/service-auth/password');
    const phone = await loggedIn('ada@example.com', '/service-auth/tokens');

    await laptop.getByLabel('Current password').fill(PASSWORD);
    await laptop.getByLabel('New password').fill(NEW_PASSWORD);
    await laptop.getByRole('button', { name: 'Change password' }).click();
    await laptop.waitForURL('**/service-auth/sessions?password=changed');
    await laptop
      .getByRole('status')
      .getByText('Your password has been changed. Every other session was ended.')
      .waitFor();
    expect(await laptop.getByRole('row').count()).to.equal(2); // the headings, and this device
    await laptop.getByRole('row', { name: /this device/ }).waitFor();

    await phone.reload();
    await phone.waitForURL('**/service-auth/login?next=%2Fservice-auth%2Ftokens');

    const other = await chromium.open();
    await other.goto('/service-auth/login');
    await logIn(other, 'ada@example.com', PASSWORD);
    await other.locator('#password-error').getByText('The email or password is not right.').waitFor();
    await logIn(other, 'ada@example.com', NEW_PASSWORD);
    await other.waitForURL(`${demo.url}/`);
    await other.getByText('Logged in as ada@example.com').waitFor();
  });

  it('shows a wrong current password beside its field, with the focus there', async () => {
    await demo.operator.auth.users.create({ email: 'typo@example.com', password: PASSWORD });
    const page = await loggedIn('typo@example.com', '/service-auth/password');
    await page.getByLabel('Current password').fill('Not-My-Password-1');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await untilFocused(page, 'current_password');
    expect(await page.locator('#current_password-error').textContent()).to.contain(
      'This is not your current password.',
    );
    expect(await page.getByLabel('New password').inputValue()).to.equal('');
  });

  it('lists two sessions; ending the other one logs that browser out; logging out here goes to the login page', async () => {
    await demo.operator.auth.users.create({ email: 'lin@example.com', password: PASSWORD });
    const laptop = await loggedIn('lin@example.com', '/service-auth/sessions');
    const phone = await loggedIn('lin@example.com', '/service-auth/tokens');

    await laptop.reload();
    expect(await laptop.getByRole('row').count()).to.equal(3);
    const here = laptop.getByRole('row', { name: /this device/ });
    expect(await here.getByRole('cell').first().textContent()).to.equal('Chrome on Linux (this device)');
    await laptop.getByRole('button', { name: /^End the session of Chrome on Linux started / }).click();
    await laptop.waitForURL('**/service-auth/sessions?ended=one');
    await laptop.getByRole('status').getByText('The session was ended: that device is logged out.').waitFor();
    expect(await laptop.getByRole('row').count()).to.equal(2);
    expect(await laptop.getByRole('button', { name: 'End every other session' }).count()).to.equal(0);

    await phone.reload();
    await phone.waitForURL('**/service-auth/login?next=%2Fservice-auth%2Ftokens');

    await laptop.getByRole('button', { name: 'End this session (log out)' }).click();
    await laptop.waitForURL('**/service-auth/login');
    await laptop.goto('/');
    await laptop.getByText('Nobody is logged in.').waitFor();
  });

  it('ends every other session with one button, without JavaScript', async () => {
    await demo.operator.auth.users.create({ email: 'many@example.com', password: PASSWORD });
    const others = [
      await loggedIn('many@example.com', '/service-auth/tokens'),
      await loggedIn('many@example.com', '/service-auth/tokens'),
    ];
    const laptop = await loggedIn('many@example.com', '/service-auth/sessions', { javaScriptEnabled: false });
    expect(await laptop.getByRole('row').count()).to.equal(4);
    await laptop.getByRole('button', { name: 'End every other session' }).click();
    await laptop.waitForURL('**/service-auth/sessions?ended=others');
    await laptop.getByText('Every other session was ended: only this device is logged in.').waitFor();
    for (const other of others) {
      await other.reload();
      await other.waitForURL('**/service-auth/login?next=%2Fservice-auth%2Ftokens');
    }
  });

  it('changes the email address through the link mailed to the new one', async () => {
    await demo.operator.auth.users.create({ email: 'old@example.com', password: PASSWORD });
    const page = await loggedIn('old@example.com', '/service-auth/sessions');
    await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Email address' }).click();
    await page.waitForURL('**/service-auth/email');
    await page.getByText('Your account’s address is old@example.com.').waitFor();
    await page.getByLabel('New email address').fill('new@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page
      .getByRole('status')
      .getByText('A link to confirm the change is on its way to new@example.com.')
      .waitFor();

    await page.goto(await mailedLink(demo, 'new@example.com', 'confirm-email'));
    await page.getByRole('heading', { name: 'Confirm your new email address' }).waitFor();
    await page.getByRole('button', { name: 'Confirm the new address' }).click();
    await page.getByRole('status').getByText('Your account’s email address is now new@example.com.').waitFor();
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.getByText('Logged in as new@example.com').waitFor();

    const other = await chromium.open();
    await other.goto('/service-auth/login');
    await logIn(other, 'new@example.com', PASSWORD);
    await other.waitForURL(`${demo.url}/`);
  });

  it('deletes the account: logged out, the login refused, and the address may register again', async () => {
    await demo.operator.auth.users.create({ email: 'gone@example.com', password: PASSWORD });
    const page = await loggedIn('gone@example.com', '/service-auth/delete-account');
    await page.getByText('This deletes the account gone@example.com at once').waitFor();
    await page.getByLabel('Password').fill('Not-My-Password-1');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.locator('#password-error').getByText('This is not your current password.').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByText('Nobody is logged in.').waitFor();

    await page.goto('/service-auth/login');
    await logIn(page, 'gone@example.com', PASSWORD);
    await page.locator('#password-error').getByText('The email or password is not right.').waitFor();

    await page.goto('/service-auth/register');
    await page.getByLabel('Email').fill('gone@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByText('Logged in as gone@example.com').waitFor();
  });

  it('is readable on a phone: the sessions list stacks, nothing is wider than the screen', async () => {
    await demo.operator.auth.users.create({ email: 'phone@example.com', password: PASSWORD });
    await loggedIn('phone@example.com', '/service-auth/tokens');
    const page = await loggedIn('phone@example.com', '/service-auth/sessions', {
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
    });
    for (const path of [
      '/service-auth/sessions',
      '/service-auth/password',
      '/service-auth/email',
      '/service-auth/delete-account',
    ]) {
      await page.goto(path);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
        path,
      ).to.be.at.most(0);
    }
  });
});

describeInChromium('confirming the address in a browser (SERVICE_AUTH_EMAIL_CONFIRMATION on)', () => {
  const demo = useDemoServer({ SERVICE_AUTH_EMAIL_CONFIRMATION: 'true' });
  const chromium = useChromium(() => demo.url);

  it('registers, is asked to confirm, asks for a new link, follows it, confirms with the button, and logs in', async () => {
    const page = await chromium.open();
    await page.goto('/service-auth/register');
    await page.getByLabel('Email').fill('nova@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').getByText('Check your mail: a link to confirm the address is on its way.').waitFor();
    await mailedLink(demo, 'nova@example.com', 'confirm');

    // Not yet confirmed: the login says so, and offers a new link to the typed address.
    await page.goto('/service-auth/login');
    await logIn(page, 'nova@example.com', PASSWORD);
    await page.getByRole('alert').getByText('Confirm your email address first').waitFor();
    await page.getByRole('button', { name: 'Mail me a new link' }).click();
    await page.getByRole('status').getByText('a new link is on its way').waitFor();

    const link = await mailedLink(demo, 'nova@example.com', 'confirm', 2);
    expect(link.startsWith(`${demo.url}/service-auth/confirm?token=`)).to.equal(true);
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page
      .getByRole('status')
      .getByText('The address nova@example.com is confirmed. You can log in now.')
      .waitFor();
    await page.getByRole('link', { name: 'Log in' }).click();
    await logIn(page, 'nova@example.com', PASSWORD);
    await page.waitForURL(`${demo.url}/`);
    await page.getByText('Logged in as nova@example.com').waitFor();

    // The link is used up: opening it again says so, and offers to send another.
    await page.goto(link);
    await page.getByRole('alert').getByText('This confirmation link is unknown, expired or already used.').waitFor();
    await page.getByRole('button', { name: 'Send a new link' }).waitFor();
  });
});
