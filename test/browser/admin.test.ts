/**
 * The admin console in Debian's Chromium (CONTRACT-3 §25): an operator finds a user and disables
 * the account, and that user's next request is refused; a user without the permissions is shown
 * the 403 page; support acts as a user and is refused a password change meanwhile; the policy
 * explorer's "why" shows the condition a refusal failed on. axe-core
 * checks every console page the operator visits: nothing serious or critical.
 *
 * One server (this process, on a port) and one browser for the file. axe is put into the page
 * with `page.evaluate` of its source: the pages' Content-Security-Policy allows only their own
 * scripts (by hash), and an evaluation through the DevTools protocol is not subject to it.
 */
import { createServer, type Server } from 'node:http';
import axe from 'axe-core';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { describeInChromium, useChromium } from './chromium.js';

/** The axe violations of the page that are serious or critical, as `rule: target` lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  const results = await page.evaluate<{
    violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
  }>(
    `window.axe.run(document, { resultTypes: ['violations'], runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } })`,
  );
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`));
}

describeInChromium('the admin console in a browser', () => {
  let t: TestApp;
  let server: Server;
  let url = '';

  before(async () => {
    const port = await freePort();
    url = `http://localhost:${port}`;
    t = await createTestApp({ SERVICE_AUTH_PUBLIC_URL: url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app) =>
      app.get('/', (_req, res) =>
        res.type('html').send('<!doctype html><html lang="en"><title>Home</title><main><p>Home</p></main></html>'),
      ),
    );
    t.auth.defineRole('operator', [{ action: 'manage', subject: 'all' }]);
    t.auth.defineRole('member', [
      { action: 'read', subject: 'User', conditions: { id: '${user.id}' }, reason: 'Members read only themselves' },
    ]);
    // Support staff: find users in the console and act as those who are not support staff themselves.
    t.auth.defineRole('support', [
      { action: 'read', subject: 'User' },
      { action: 'impersonate', subject: 'User', conditions: { roles: { $nin: ['support'] } } },
    ]);
    await t.auth.users.create({ email: 'sue@example.com', password: PASSWORD, roles: ['support'] });
    await t.auth.users.create({ email: 'bo@example.com', password: PASSWORD });
    const olga = await t.auth.users.create({ email: 'olga@example.com', password: PASSWORD, roles: ['operator'] });
    await t.auth.users.create({ email: 'mia@example.com', password: PASSWORD, roles: ['member'] });
    await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: olga.id });
    server = createServer(t.app);
    await new Promise<void>((resolve) => server.listen(port, resolve));
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await t?.auth.close();
  });
  const chromium = useChromium(() => url);

  async function logIn(page: Page, email: string, next: string): Promise<void> {
    await page.goto(`/service-auth/login?next=${encodeURIComponent(next)}`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${next}`);
  }

  it('an operator disables a user, whose next request is refused', async () => {
    const mia = await chromium.open();
    await logIn(mia, 'mia@example.com', '/service-auth/sessions');
    const olga = await chromium.open();
    await logIn(olga, 'olga@example.com', '/service-auth/admin');
    await olga.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Users' }).click();
    await olga.getByRole('searchbox', { name: 'Search by email' }).fill('mia@');
    await olga.getByRole('button', { name: 'Search' }).click();
    await olga.getByRole('link', { name: 'mia@example.com' }).click();
    await olga.getByRole('heading', { name: 'User mia@example.com', level: 1 }).waitFor();
    await olga.getByRole('button', { name: 'Disable the account' }).click();
    await olga.getByRole('status').getByText('The account is disabled').waitFor();

    // Mia's next request: her session ended, so the page sends her to log in; logging in is refused.
    await mia.reload();
    await mia.waitForURL('**/service-auth/login?next=%2Fservice-auth%2Fsessions');
    await mia.getByLabel('Email').fill('mia@example.com');
    await mia.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await mia.getByRole('button', { name: 'Log in' }).click();
    expect(await mia.getByRole('alert').textContent()).to.match(/disabled/i);
    await t.auth.users.enable('mia@example.com');
  });

  it('a support user acts as a user from the console, is refused a password change meanwhile, and stops', async () => {
    const sue = await chromium.open();
    await logIn(sue, 'sue@example.com', '/service-auth/admin/users?email=bo%40');
    await sue.getByRole('link', { name: 'bo@example.com' }).click();
    await sue.getByRole('button', { name: 'Act as this user' }).click();
    await sue.waitForURL(`${url}/`);
    await sue.goto('/service-auth/password');
    await sue.getByText('You are acting as bo@example.com').waitFor();
    await sue.getByLabel('Current password').fill(PASSWORD);
    await sue.getByLabel('New password').fill('Another-Strong-Pass-1');
    await sue.getByRole('button', { name: 'Change password' }).click();
    await sue.getByRole('heading', { name: 'Not while acting as another user', level: 1 }).waitFor();
    await request(t.app).post('/service-auth/login').send({ email: 'bo@example.com', password: PASSWORD }).expect(200); // unchanged
    await sue.getByRole('button', { name: 'Stop' }).click();
    await sue.goto('/service-auth/password');
    expect(await sue.getByText('You are acting as').count()).to.equal(0);
  });

  it('every console page passes axe-core with nothing serious or critical', async function () {
    // Nine pages, each checked against every WCAG A/AA rule: seconds each on a busy machine.
    this.timeout(120_000);
    const olga = await chromium.open();
    await logIn(olga, 'olga@example.com', '/service-auth/admin');
    const mia = await t.auth.users.get('mia@example.com');
    const pages = {
      home: '/service-auth/admin',
      users: '/service-auth/admin/users?email=example',
      user: `/service-auth/admin/users/${mia.id}?done=enabled`,
      organizations: '/service-auth/admin/orgs',
      organization: '/service-auth/admin/orgs/acme',
      'audit log': '/service-auth/admin/audit',
      'policy explorer, with a why':
        '/service-auth/admin/policy?email=mia%40example.com&action=read&subject=User&fields=id%3A%3D1',
      'policy explorer, with a mistake': '/service-auth/admin/policy?email=mia%40example.com&action=raed&subject=User',
    };
    const violations: Record<string, string[]> = {};
    const check = async (name: string) => {
      const found = await seriousViolations(olga);
      if (found.length) violations[name] = found;
    };
    for (const [name, path] of Object.entries(pages)) {
      await olga.goto(path);
      await check(name);
    }
    await olga.goto('/service-auth/admin/audit');
    await olga.getByRole('button', { name: 'Verify the chain' }).click();
    await olga
      .getByRole('status')
      .getByText(/The chain is intact/)
      .waitFor();
    await check('audit log, verified');
    expect(violations).to.deep.equal({});
  });

  it('the policy explorer says why a user is refused, naming the condition; a member is refused the console', async () => {
    const olga = await chromium.open();
    await logIn(olga, 'olga@example.com', '/service-auth/admin/policy');
    await olga.getByLabel('User (email)').fill('mia@example.com');
    await olga.getByLabel('Action').fill('read');
    await olga.getByLabel('Subject type').fill('User');
    await olga.getByLabel('Field values (optional)').fill('id:=424242');
    await olga.getByRole('button', { name: 'Explain' }).click();
    const verdict = olga.locator('section.notice');
    await verdict.getByText('Refused: mia@example.com may not read this User.').waitFor();
    expect(await verdict.textContent())
      .to.contain('role “member”, rule 1')
      .and.contain('its condition failed (id $eq')
      .and.contain('the subject has 424242');

    const mia = await chromium.open();
    await logIn(mia, 'mia@example.com', '/');
    const refused = await mia.goto('/service-auth/admin');
    expect(refused!.status()).to.equal(403);
    expect(await mia.getByRole('heading', { level: 1 }).textContent()).to.match(/not allowed|forbidden/i);
  });
});
