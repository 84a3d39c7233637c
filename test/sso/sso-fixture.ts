/**
 * One application and one real OpenID provider (test/helpers/oidc-provider.ts) for a test file:
 * the app knows the provider twice by keys (`acme`, and `acme-mfa` trusting its second factor),
 * with registration through providers on, and drives a browser's trip with supertest agents.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { startTestProvider, throughProvider, type TestProvider } from '../helpers/oidc-provider.js';

export const PUBLIC_URL = 'http://app.test';
export const PREFIX = '/service-auth';

export interface SsoFixture {
  t: TestApp;
  provider: TestProvider;
  close(): Promise<void>;
}

export async function ssoFixture(settings: Record<string, unknown> = {}): Promise<SsoFixture> {
  const callback = (id: string) => `${PUBLIC_URL}${PREFIX}/sso/${id}/callback`;
  const provider = await startTestProvider([
    { clientId: 'app', clientSecret: 'app-secret', redirectUris: [callback('acme'), callback('plain')] },
    { clientId: 'app-mfa', clientSecret: 'app-mfa-secret', redirectUris: [callback('acme-mfa')] },
  ]);
  const t = await createTestApp({
    SERVICE_AUTH_PUBLIC_URL: PUBLIC_URL,
    SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
    SERVICE_AUTH_DEFAULT_ROLES: 'member',
    SERVICE_AUTH_SSO_PROVIDERS: 'acme,acme-mfa',
    SERVICE_AUTH_SSO_REGISTRATION: true,
    SERVICE_AUTH_SSO_ACME_ISSUER: provider.issuer,
    SERVICE_AUTH_SSO_ACME_CLIENT_ID: 'app',
    SERVICE_AUTH_SSO_ACME_CLIENT_SECRET: 'app-secret',
    SERVICE_AUTH_SSO_ACME_NAME: 'Acme',
    SERVICE_AUTH_SSO_ACME_MFA_ISSUER: provider.issuer,
    SERVICE_AUTH_SSO_ACME_MFA_CLIENT_ID: 'app-mfa',
    SERVICE_AUTH_SSO_ACME_MFA_CLIENT_SECRET: 'app-mfa-secret',
    SERVICE_AUTH_SSO_ACME_MFA_TRUST_PROVIDER_MFA: true,
    ...settings,
  });
  return {
    t,
    provider,
    async close() {
      await t.auth.close();
      await provider.close();
    },
  };
}

/** A browser: its cookies for the app (a supertest agent), its trip through the provider by hand. */
export class Browser {
  readonly agent: ReturnType<typeof request.agent>;

  constructor(private readonly fixture: SsoFixture) {
    this.agent = request.agent(fixture.t.app);
  }

  /** `GET /sso/:provider` (with `query`): the provider's authorization URL it redirects to. */
  async start(providerId = 'acme', query = ''): Promise<string> {
    // As a browser sends it from our own pages (the login page's buttons, the account page's links).
    const started = await this.agent
      .get(`${PREFIX}/sso/${providerId}${query}`)
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(303);
    return started.headers['location'] as string;
  }

  /** The provider's redirect back to the app, after the person signs in there. */
  async atProvider(authorizationUrl: string, rewrite?: (url: URL) => void): Promise<URL> {
    const back = await throughProvider(this.fixture.provider, authorizationUrl, rewrite);
    expect(back.origin).to.equal(PUBLIC_URL);
    return back;
  }

  /** Our callback, as a program (JSON) or a browser (`html`). */
  callback(url: URL, accept: 'json' | 'html' = 'json'): request.Test {
    return this.agent
      .get(url.pathname + url.search)
      .set('Accept', accept === 'json' ? 'application/json' : 'text/html');
  }

  /** The whole trip: start, provider, callback. */
  async signIn(
    providerId = 'acme',
    options: { query?: string; accept?: 'json' | 'html'; rewrite?: (url: URL) => void } = {},
  ): Promise<request.Response> {
    const back = await this.atProvider(await this.start(providerId, options.query), options.rewrite);
    return this.callback(back, options.accept);
  }

  /** Who `/me` says is signed in on this browser (null: nobody). */
  async me(): Promise<string | null> {
    const me = await this.agent.get(`${PREFIX}/me`).set('Accept', 'application/json');
    return me.status === 200 ? (me.body.user?.email ?? me.body.email) : null;
  }
}

export { sessionCookieFrom };
