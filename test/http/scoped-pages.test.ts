/**
 * Scopes on every surface (CONTRACT-2 §19.4, CONTRACT-3 §25a): a token with scopes, or bound to an
 * organization, sees no more through the pages than through the JSON API. The walk takes every
 * page route from the router itself, so that a page added later without the check fails here.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { pageGet } from '../helpers/forms.js';

/** What shows nothing of an account, whoever asks. */
// Signing in through a provider starts and ends on public routes (linking is for a session: sso tests).
const PUBLIC_PAGES = [
  '/login',
  '/register',
  '/forgot',
  '/reset',
  '/confirm',
  '/confirm-email',
  '/invitations/accept',
  '/openapi.json',
  '/sso/:provider',
  '/sso/:provider/callback',
];
/** Who the credentials belong to: a token of any scope may ask (as `auth.currentUser`). */
const WHO_AM_I = ['/me'];

interface Layer {
  slash?: boolean;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/**
 * The GET paths of the routers mounted at the prefix itself, but the JSON API's (`/api/…`): the
 * pages (and `/me`). The routes load
 * with the first request under the prefix (src/http/router.ts), into a router of their own within
 * the auth router: the first router down the stack with more than ten layers.
 */
async function pageRoutes(app: Express): Promise<string[]> {
  await pageGet(app, '/login').expect(200);
  const routers = (stack: Layer[]): Layer[] =>
    stack.flatMap((layer) => (layer.handle.stack ? [layer, ...routers(layer.handle.stack)] : []));
  const authRoutes = routers((app as unknown as { router: { stack: Layer[] } }).router.stack).find(
    (layer) => layer.handle.stack!.length > 10,
  )!;
  return authRoutes.handle
    .stack!.filter((layer) => layer.slash && layer.handle.stack)
    .flatMap((layer) =>
      layer.handle
        .stack!.filter((inner) => inner.route?.methods['get'] && !inner.route.path.startsWith('/api/'))
        .map((inner) => inner.route!.path),
    );
}

describe('scopes on the pages', () => {
  let t: TestApp;
  let scoped: { id: string; token: string };
  let bound: { id: string; token: string };
  let other: { id: string; token: string };

  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (_app, auth) =>
      auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]),
    );
    const ada = await t.auth.users.create({ email: 'ada@example.com', password: 'Correct-Horse-Battery-9' });
    await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: ada.id });
    scoped = await t.auth.tokens.create('ada@example.com', { name: 'reports only', scopes: ['reports:read'] });
    bound = await t.auth.tokens.create('ada@example.com', { name: 'acme only', org: 'acme' });
    other = await t.auth.tokens.create('ada@example.com', { name: 'nightly backup' });
  });
  afterEach(() => t.auth.close());

  const page = (path: string, token: string) => pageGet(t.app, path).set('Authorization', `Bearer ${token}`);

  it('refuses a token with scopes every page of the account, as the JSON API does', async () => {
    const routes = await pageRoutes(t.app);
    expect(routes).to.include.members([
      '/tokens',
      '/tokens/:id/revoke',
      '/security-log',
      '/sessions',
      '/mfa',
      '/passkeys',
      '/password',
      '/orgs',
      '/orgs/:org',
    ]);
    for (const route of routes) {
      const response = await page(route.replace(':id', other.id), scoped.token);
      expect(response.text, route).not.to.contain('nightly backup');
      if (PUBLIC_PAGES.includes(route) || WHO_AM_I.includes(route)) continue;
      expect(response.status, route).to.equal(403);
      expect(response.headers['content-type'], route).to.match(/^text\/html/);
      // Seeing tokens, the log or organizations needs every scope; the account's own settings, a session.
      const needs = ['/tokens', '/tokens/:id/revoke', '/security-log', '/orgs', '/orgs/:org'].includes(route)
        ? 'Bearer realm="service-auth", error="insufficient_scope"'
        : undefined;
      expect(response.headers['www-authenticate'], route).to.equal(needs);
    }
  });

  it('refuses a token bound to an organization every page of the account but its organization’s', async () => {
    for (const route of await pageRoutes(t.app)) {
      if (PUBLIC_PAGES.includes(route) || WHO_AM_I.includes(route)) continue;
      const response = await page(route.replace(':id', other.id).replace(':org', 'acme'), bound.token);
      expect(response.text, route).not.to.contain('nightly backup');
      // Its organization's pages are where it acts ([organizations.md](../../docs/organizations.md)).
      if (route === '/orgs' || route === '/orgs/:org') {
        expect(response.status, route).to.equal(200);
        continue;
      }
      expect(response.status, route).to.equal(403);
      const needs = ['/tokens', '/tokens/:id/revoke', '/security-log'].includes(route)
        ? 'Bearer realm="service-auth", error="insufficient_scope"'
        : undefined;
      expect(response.headers['www-authenticate'], route).to.equal(needs);
    }
    const own = await page(`/tokens/${bound.id}/revoke`, bound.token).expect(200);
    expect(own.text).to.contain('Revoke the token “acme only”?');
  });

  it('lets a token with scopes confirm revoking itself, and a token with every scope see the list', async () => {
    const own = await page(`/tokens/${scoped.id}/revoke`, scoped.token).expect(200);
    expect(own.text).to.contain('Revoke the token “reports only”?').and.not.contain('nightly backup');
    const list = await page('/tokens', other.token).expect(200);
    expect(list.text).to.contain('reports only').and.contain('nightly backup');
    await page(`/tokens/${scoped.id}/revoke`, other.token).expect(200);
    await page('/security-log', other.token).expect(200);
  });

  it('answers the JSON security log only to a session or a token with every scope', async () => {
    const refused = await request(t.app)
      .get('/service-auth/api/security-log')
      .set('Authorization', `Bearer ${scoped.token}`)
      .expect(403);
    expect(refused.body.code).to.equal('insufficient_scope');
    expect(refused.headers['www-authenticate']).to.equal('Bearer realm="service-auth", error="insufficient_scope"');
    const allowed = await request(t.app)
      .get('/service-auth/api/security-log')
      .set('Authorization', `Bearer ${other.token}`)
      .expect(200);
    expect(allowed.body.events.map((event: { type: string }) => event.type)).to.include('token_created');
  });
});
