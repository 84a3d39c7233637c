/**
 * Sign-in through an identity provider in Debian's Chromium (CONTRACT-3 §23): from the login page's
 * button to a real OpenID provider on 127.0.0.1 (test/helpers/oidc-provider.ts), its login form,
 * and back, signed in where `next` pointed; then the account page lists the provider.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { freePort } from '../helpers/ports.js';
import { describeInChromium, useChromium } from './chromium.js';

describeInChromium('sign-in through an identity provider in a browser', () => {
  let url = '';
  let provider: TestProvider;
  let t: TestApp;
  let server: Server;
  const chromium = useChromium(() => url);

  before(async function () {
    this.timeout(60_000);
    const port = await freePort();
    url = `http://localhost:${port}`;
    provider = await startTestProvider([
      { clientId: 'app', clientSecret: 'app-secret', redirectUris: [`${url}/service-auth/sso/acme/callback`] },
    ]);
    provider.accounts.set('ada-at-acme', {
      sub: 'ada-at-acme',
      email: 'ada@example.com',
      email_verified: true,
      name: 'Ada',
    });
    t = await createTestApp(
      {
        SERVICE_AUTH_PUBLIC_URL: url,
        SERVICE_AUTH_SSO_REGISTRATION: true,
        SERVICE_AUTH_SSO_PROVIDERS: 'acme',
        SERVICE_AUTH_SSO_ACME_NAME: 'Acme',
        SERVICE_AUTH_SSO_ACME_ISSUER: provider.issuer,
        SERVICE_AUTH_SSO_ACME_CLIENT_ID: 'app',
        SERVICE_AUTH_SSO_ACME_CLIENT_SECRET: 'app-secret',
      },
      (app, auth) =>
        app.get(
          '/projects',
          auth.loginRequired,
          (req, res) => void res.type('html').send(`<h1>Projects of ${req.user!.email}</h1>`),
        ),
    );
    server = t.app.listen(port, 'localhost');
  });
  after(async () => {
    server?.close();
    server?.closeAllConnections();
    await t?.auth.close();
    await provider?.close();
  });

  it('signs a person in from the login page through the provider, and lists it on the account page', async () => {
    const page = await chromium.open();
    await page.goto('/service-auth/login?next=%2Fprojects');
    await page.getByRole('link', { name: 'Sign in with Acme' }).click();
    // The provider's own login page, on its own origin.
    await page.getByLabel('Account').fill('ada-at-acme');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Projects of ada@example.com' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/projects');
    await page.goto('/service-auth/identities');
    await page.getByRole('button', { name: 'Unlink Acme' }).waitFor();
  });
});
