import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { PASSWORD } from '../helpers/app.js';
import { describeInChromium, useChromium, untilFocused } from './chromium.js';
import { useDemoServer } from './demo-server.js';

/** The scopes the demo defines, as its policy file has them. */
const DEMO_SCOPES = (
  JSON.parse(readFileSync(new URL('../../policies/scopes.json', import.meta.url), 'utf8')) as {
    scopes: Record<string, { description: string }>;
  }
).scopes;

describeInChromium('the tokens page in a browser', () => {
  const demo = useDemoServer();
  const chromium = useChromium(() => demo.url);

  /** A new user, logged in through the form, on the tokens page. */
  async function loggedInOnTokens(page: Page, email: string): Promise<void> {
    await demo.operator.auth.users.create({ email, password: PASSWORD });
    await page.goto('/service-auth/login?next=/service-auth/tokens');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/service-auth/tokens');
  }

  /** Creates a token through the form, ticking the demo's scopes named (none: every scope). */
  async function createToken(page: Page, name: string, scopes: string[] = []): Promise<string> {
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Expires in').fill('30');
    for (const scope of scopes) await page.getByRole('checkbox', { name: scope, exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: `Your new token “${name}”` }).waitFor();
    return (await page.locator('#new-token').textContent())!.trim();
  }

  /** A program using the token: Node's fetch, no cookies. */
  const whoami = (token: string) => fetch(`${demo.url}/api/whoami`, { headers: { Authorization: `Bearer ${token}` } });

  it('creates a token, copies it, uses it with fetch, and revokes it after confirming', async () => {
    const page = await chromium.open();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: demo.url });
    const csp: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) csp.push(message.text());
    });
    await loggedInOnTokens(page, 'ada@example.com');
    expect(await page.getByText('You have no API tokens yet.').isVisible()).to.equal(true);
    // The demo's scopes (policies/scopes.json), each a checkbox described by what it allows.
    const offered: { name: string; description: string }[] = [];
    for (const box of await page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox').all()) {
      const description = page.locator(`#${(await box.getAttribute('aria-describedby'))!}`);
      offered.push({ name: (await box.getAttribute('value'))!, description: (await description.textContent())! });
    }
    expect(offered).to.deep.equal(
      Object.entries(DEMO_SCOPES)
        .map(([name, { description }]) => ({ name, description }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    expect(offered.find((scope) => scope.name === 'tasks:read')).to.deep.equal({
      name: 'tasks:read',
      description: 'Read projects and their tasks',
    });

    const token = await createToken(page, 'deploy bot', ['reports:read', 'tasks:read']);
    expect(token).to.match(/^sat_[A-Za-z0-9]+_[A-Za-z0-9]{49}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(token);
    // The page's own style and script ran under its Content-Security-Policy, and nothing was refused.
    expect(
      await page.evaluate<string>('getComputedStyle(document.querySelector("button[type=submit]")).backgroundColor'),
    ).to.equal('rgb(31, 111, 67)');
    expect(csp).to.deep.equal([]);

    const used = await whoami(token);
    expect(used.status).to.equal(200);
    expect(await used.json()).to.deep.equal({ email: 'ada@example.com' });

    // Shown once: the list has it, the page no longer shows its value.
    await page.goto('/service-auth/tokens');
    const row = page.getByRole('row', { name: /deploy bot/ });
    expect(await row.getByRole('cell').nth(1).textContent()).to.equal('reports:read tasks:read');
    expect(await page.content()).not.to.contain(token);

    await row.getByRole('link', { name: 'Revoke the token deploy bot…' }).click();
    await page.getByText('Revoke the token “deploy bot”?').waitFor();
    expect((await whoami(token)).status, 'still valid while asking').to.equal(200);
    await page.getByRole('button', { name: 'Revoke the token' }).click();
    await page.waitForURL('**/service-auth/tokens?revoked=1');
    await page.getByRole('status').getByText('The token was revoked.').waitFor();
    expect(await page.getByRole('row', { name: /deploy bot/ }).count()).to.equal(0);
    expect((await whoami(token)).status).to.equal(401);
  });

  it('shows a refused field beside its input, with what was typed', async () => {
    const page = await chromium.open();
    await loggedInOnTokens(page, 'typo@example.com');
    await page.getByLabel('Name').fill('ci');
    await page.getByLabel('Expires in').fill('9999');
    await page.getByRole('button', { name: 'Create token' }).click();
    await untilFocused(page, 'expires_in_days');
    expect(await page.locator('#expires_in_days-error').textContent()).to.contain(
      'Enter a whole number of days from 1 to 365.',
    );
    expect(await page.getByLabel('Name').inputValue()).to.equal('ci');
  });

  it('works without JavaScript: the token is shown to copy by hand, and revoking still asks first', async () => {
    const page = await chromium.open({ javaScriptEnabled: false });
    await loggedInOnTokens(page, 'nojs@example.com');
    const token = await createToken(page, 'no script');
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).to.equal(false);
    expect((await whoami(token)).status).to.equal(200);

    await page.goto('/service-auth/tokens');
    await page.getByRole('link', { name: 'Revoke the token no script…' }).click();
    await page.getByRole('button', { name: 'Revoke the token' }).click();
    await page.getByText('The token was revoked.').waitFor();
    expect((await whoami(token)).status).to.equal(401);
  });

  it('is readable on a phone: the list stacks, nothing is wider than the screen', async () => {
    const page = await chromium.open({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await loggedInOnTokens(page, 'phone@example.com');
    await createToken(page, 'phone token', ['reports:read']);
    await page.goto('/service-auth/tokens');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).to.be.at.most(0);
    // Each cell is labelled on its own line, since the column headings are hidden.
    expect(await page.getByRole('cell', { name: 'reports:read' }).isVisible()).to.equal(true);
    expect(
      await page.evaluate<string>(
        'getComputedStyle(document.querySelector("td[data-label=Scopes]"), "::before").content',
      ),
    ).to.equal('"Scopes: "');
  });
});
