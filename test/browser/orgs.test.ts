/**
 * Organizations in Debian's Chromium: an owner creates one and invites an
 * address; the invitee, who has no account, follows the mailed link, registers and confirms with
 * that address, comes back to the link, accepts, and sees the organization, as a member who is not
 * shown the invite form.
 *
 * The app runs in this process (the demo does not define organization roles of its own), with
 * the roles the HTTP suites use (test/orgs/org-roles.ts) and email confirmation on.
 */
import { createServer, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createTestApp, outboxMails, PASSWORD, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { defineDemoOrgRoles } from '../orgs/org-roles.js';
import { describeInChromium, useChromium } from './chromium.js';

describeInChromium('organizations in a browser', () => {
  let t: TestApp;
  let server: Server;
  let outbox: string;
  let url = '';

  before(async () => {
    outbox = await temporaryDirectory();
    const port = await freePort();
    url = `http://localhost:${port}`;
    t = await createTestApp(
      {
        SERVICE_AUTH_PUBLIC_URL: url,
        SERVICE_AUTH_MAIL_OUTBOX: outbox,
        SERVICE_AUTH_EMAIL_CONFIRMATION: true,
        SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      },
      (app) => app.get('/', (_req, res) => res.type('html').send('<!doctype html><title>Home</title><p>Home</p>')),
    );
    defineDemoOrgRoles(t.auth);
    server = createServer(t.app);
    await new Promise<void>((resolve) => server.listen(port, resolve));
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await t?.auth.close();
    await rm(outbox, { recursive: true, force: true });
  });
  const chromium = useChromium(() => url);

  /** The link to `page` in the latest mail to `to`, once it has arrived. */
  async function mailedLink(to: string, page: string): Promise<string> {
    const pattern = new RegExp(`https?://\\S+/service-auth/${page}\\?token=[A-Za-z0-9_-]+`);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const links = (await outboxMails(outbox, 0))
        .filter((mail) => mail.to === to && pattern.test(mail.text))
        .map((mail) => pattern.exec(mail.text)![0]);
      if (links.length) return links[links.length - 1]!;
      if (Date.now() > deadline) throw new Error(`no ${page} link mailed to ${to}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function logIn(page: Page, email: string): Promise<void> {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  it('creates an organization, invites an address, and the invitee registers, confirms, accepts and sees it', async () => {
    await t.auth.users.create({ email: 'olga@example.com', password: PASSWORD });
    const owner = await chromium.open();
    await owner.goto('/service-auth/login?next=%2Fservice-auth%2Forgs');
    await logIn(owner, 'olga@example.com');
    await owner.waitForURL('**/service-auth/orgs');
    await owner.getByText('You are not a member of any organization yet.').waitFor();
    await owner.getByLabel('Name').fill('Rocket Club');
    await owner.getByRole('button', { name: 'Create organization' }).click();
    await owner.waitForURL('**/service-auth/orgs/rocket-club');
    await owner.getByRole('heading', { name: 'Rocket Club', level: 1 }).waitFor();
    expect(await owner.getByRole('row', { name: /olga@example\.com/ }).textContent()).to.contain('owner');

    await owner.getByLabel('Email').fill('zoe@example.com');
    await owner.getByRole('group', { name: 'Roles', exact: true }).getByLabel('member', { exact: true }).check();
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.waitForURL('**/service-auth/orgs/rocket-club?done=invited');
    await owner.getByRole('status').getByText('The invitation was mailed.').waitFor();
    await owner.getByRole('button', { name: 'Revoke the invitation of zoe@example.com' }).waitFor();

    // Zoe has no account: the link says to register with the invited address and come back.
    const link = await mailedLink('zoe@example.com', 'invitations/accept');
    const invitee = await chromium.open();
    await invitee.goto(link);
    await invitee.getByText('You are invited to join Rocket Club as member.').waitFor();
    await invitee.getByRole('link', { name: 'Create an account' }).click();
    await invitee.waitForURL('**/service-auth/register?next=*');
    await invitee.getByLabel('Email').fill('zoe@example.com');
    await invitee.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await invitee.getByRole('button', { name: 'Create account' }).click();
    await invitee.getByText('Check your mail').waitFor();
    await invitee.goto(await mailedLink('zoe@example.com', 'confirm'));
    await invitee.getByRole('button', { name: 'Confirm my address' }).click();
    await invitee.getByText('The address zoe@example.com is confirmed.').waitFor();
    await invitee.getByRole('link', { name: 'Log in' }).click();
    await logIn(invitee, 'zoe@example.com');
    await invitee.waitForURL(`${url}/`);

    await invitee.goto(link);
    await invitee.getByRole('button', { name: 'Accept the invitation' }).click();
    await invitee.waitForURL('**/service-auth/orgs/rocket-club?done=joined');
    await invitee.getByRole('status').getByText('You joined the organization.').waitFor();
    expect(await invitee.getByRole('row', { name: /zoe@example\.com/ }).textContent()).to.contain('member');
    // A member: no invite form, no role boxes, nobody to remove; but leaving.
    expect(await invitee.getByRole('heading', { name: 'Invite someone' }).count()).to.equal(0);
    expect(await invitee.getByRole('checkbox').count()).to.equal(0);
    expect(await invitee.getByRole('button', { name: /^Remove/ }).count()).to.equal(0);
    await invitee.getByRole('button', { name: 'Leave the organization' }).waitFor();
    await invitee.goto('/service-auth/orgs');
    expect(await invitee.getByRole('row', { name: /Rocket Club/ }).textContent()).to.contain('member');

    // The owner sees Zoe as a member, and the invitation gone.
    await owner.reload();
    await owner.getByRole('row', { name: /zoe@example\.com/ }).waitFor();
    await owner.getByText('No invitations are pending.').waitFor();
  });
});
