/** The corrections of CONTRACT-2 section 19, one describe per item. */
import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import request from 'supertest';
import type {
  AccountPageLocals,
  PageLocalsByName,
  ProblemPageLocals,
  RevokePageLocals,
  TokensPageLocals,
} from '../../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { formPost, HTML, pageGet } from '../helpers/forms.js';

const CHALLENGE = 'Bearer realm="service-auth"';

const login = async (t: TestApp, email: string) =>
  sessionCookieFrom(await request(t.app).post('/service-auth/login').send({ email, password: PASSWORD }).expect(200))!;

describe('CONTRACT-2 section 19 corrections', () => {
  describe('item 2: auth.currentUser(req) counts what a guard would refuse as nobody', () => {
    let t: TestApp;
    let cookie: string;
    before(async () => {
      t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
        const who = async (req: Parameters<typeof auth.currentUser>[0], res: { json(body: unknown): void }) =>
          res.json({ user: await auth.currentUser(req) });
        app.get('/optional', who);
        app.post('/optional', who);
      });
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      cookie = await login(t, 'ada@example.com');
    });
    after(() => t.auth.close());

    const post = () => request(t.app).post('/optional').set('Cookie', cookie);

    it('returns null for a session cookie on an unsafe request from another site', async () => {
      expect((await post().set('Sec-Fetch-Site', 'cross-site').expect(200)).body.user).to.equal(null);
      expect((await post().set('Origin', 'https://evil.example').expect(200)).body.user).to.equal(null);
    });

    it('returns the user for the same cookie on a same-origin POST', async () => {
      expect((await post().set('Sec-Fetch-Site', 'same-origin').expect(200)).body.user.email).to.equal(
        'ada@example.com',
      );
    });

    it('returns null for a revoked token', async () => {
      const { id, token } = await t.auth.tokens.create('ada@example.com', { name: 'ci' });
      const get = () => request(t.app).get('/optional').set('Authorization', `Bearer ${token}`).expect(200);
      expect((await get()).body.user.email).to.equal('ada@example.com');
      await t.auth.tokens.revoke(id);
      expect((await get()).body.user).to.equal(null);
    });
  });

  describe('item 5: every 401 says how to authenticate (WWW-Authenticate)', () => {
    let t: TestApp;
    let cookie: string;
    before(async () => {
      t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
        app.get('/login-only', auth.loginRequired, (_req, res) => res.json({ ok: true }));
        app.get('/token-only', auth.tokenRequired, (_req, res) => res.json({ ok: true }));
      });
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      cookie = await login(t, 'ada@example.com');
    });
    after(() => t.auth.close());

    it('challenges with Bearer realm="service-auth" when credentials are missing or wrong', async () => {
      const responses = [
        await request(t.app).get('/service-auth/me'),
        await request(t.app).get('/login-only'),
        await request(t.app).get('/token-only').set('Cookie', cookie),
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'ada@example.com', password: 'Wrong-Password-1' }),
      ];
      expect(responses.map((r) => [r.status, r.body.code])).to.deep.equal([
        [401, 'unauthenticated'],
        [401, 'unauthenticated'],
        [401, 'unauthenticated'],
        [401, 'invalid_credentials'],
      ]);
      for (const response of responses) expect(response.headers['www-authenticate'], response.text).to.equal(CHALLENGE);
    });

    it('adds error="invalid_token" for a refused token', async () => {
      for (const path of ['/service-auth/me', '/login-only', '/token-only']) {
        const response = await request(t.app).get(path).set('Authorization', 'Bearer sat_nope_nope').expect(401);
        expect(response.body.code).to.equal('invalid_token');
        expect(response.headers['www-authenticate'], path).to.equal(`${CHALLENGE}, error="invalid_token"`);
      }
    });

    it('challenges on the 401 page a browser gets for a failed login too', async () => {
      const response = await formPost(t.app, '/login', {
        email: 'ada@example.com',
        password: 'Wrong-Password-1',
      }).expect(401);
      expect(response.headers['content-type']).to.match(/^text\/html/);
      expect(response.headers['www-authenticate']).to.equal(CHALLENGE);
    });
  });

  describe('item 8: a 429 describes the limit that refused', () => {
    it('answers the third failed login for one account with the failure limit’s RateLimit fields, not the per-client limit’s', async () => {
      const t = await createTestApp({
        SERVICE_AUTH_RATE_LIMIT_LOGIN: '100 per minute',
        SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '2 per minute',
      });
      try {
        await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const fail = () =>
          request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: 'Wrong-Password-1' });
        await fail().expect(401);
        await fail().expect(401);
        const refused = await fail().expect(429);
        expect(refused.body.code).to.equal('rate_limited');
        expect(refused.headers['ratelimit-limit']).to.equal('2');
        expect(refused.headers['ratelimit-remaining']).to.equal('0');
        expect(Number(refused.headers['ratelimit-reset'])).to.be.within(1, 60);
        expect(refused.headers['retry-after']).to.equal(refused.headers['ratelimit-reset']);
      } finally {
        await t.auth.close();
      }
    });
  });

  describe('item 9: every documented local is defined on every render', () => {
    /** The locals each page is documented to receive; the compiler checks them against the exported types. */
    const DOCUMENTED = {
      login: [
        'prefix',
        'texts',
        'notice',
        'errors',
        'email',
        'next',
        'token',
        'tokenUsable',
        'passwordHint',
      ] satisfies (keyof AccountPageLocals)[],
      register: [
        'prefix',
        'texts',
        'notice',
        'errors',
        'email',
        'next',
        'token',
        'tokenUsable',
        'passwordHint',
      ] satisfies (keyof AccountPageLocals)[],
      forgot: [
        'prefix',
        'texts',
        'notice',
        'errors',
        'email',
        'next',
        'token',
        'tokenUsable',
        'passwordHint',
      ] satisfies (keyof AccountPageLocals)[],
      reset: [
        'prefix',
        'texts',
        'notice',
        'errors',
        'email',
        'next',
        'token',
        'tokenUsable',
        'passwordHint',
      ] satisfies (keyof AccountPageLocals)[],
      tokens: [
        'prefix',
        'texts',
        'email',
        'tokens',
        'created',
        'notice',
        'errors',
        'values',
        'maxExpiryDays',
        'defaultExpiryDays',
        'orgs',
      ] satisfies (keyof TokensPageLocals)[],
      revoke: ['prefix', 'texts', 'token'] satisfies (keyof RevokePageLocals)[],
      problem: ['prefix', 'texts', 'code', 'title', 'text', 'link'] satisfies (keyof ProblemPageLocals)[],
      // The account lifecycle's pages (part 2) have theirs checked in test/http/page-templates.test.ts.
    } satisfies { [N in keyof PageLocalsByName]?: (keyof PageLocalsByName[N])[] };

    let t: TestApp;
    let views: string;
    const renders: { page: string; locals: Record<string, unknown> }[] = [];

    before(async () => {
      views = await temporaryDirectory();
      await mkdir(join(views, 'service-auth'));
      for (const page of Object.keys(DOCUMENTED)) await writeFile(join(views, 'service-auth', `${page}.html`), page);
      t = await createTestApp({ views, 'view engine': 'html', SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
        // Records what each render is given instead of rendering.
        app.engine('html', (file, locals, callback) => {
          renders.push({ page: basename(file, '.html'), locals: locals as Record<string, unknown> });
          callback(null, `<p>${basename(file, '.html')}</p>`);
        });
        app.get('/admin', auth.rolesRequired('admin'), (_req, res) => res.json({ ok: true }));
      });
    });
    after(async () => {
      await t.auth.close();
      await rm(views, { recursive: true, force: true });
    });

    it('gives every page each of its documented locals, null when it has no value, never undefined', async () => {
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const cookie = await login(t, 'ada@example.com');
      const { id } = await t.auth.tokens.create('ada@example.com', { name: 'deploy' });
      await pageGet(t.app, '/login').expect(200);
      await pageGet(t.app, '/login?next=/x&reset=done').expect(200);
      await pageGet(t.app, '/register').expect(200);
      await pageGet(t.app, '/forgot').expect(200);
      await pageGet(t.app, '/reset').expect(200);
      await pageGet(t.app, '/reset?token=not-a-token').expect(200);
      await formPost(t.app, '/login', { email: 'ada@example.com', password: 'Wrong-Password-1', next: '/x' }).expect(
        401,
      );
      await formPost(t.app, '/register', { email: 'nope', password: PASSWORD }).expect(422);
      await formPost(t.app, '/register', { email: 'new@example.com', password: 'short' }).expect(422);
      await formPost(t.app, '/forgot', { email: '' }).expect(400);
      await formPost(t.app, '/forgot', { email: 'ada@example.com' }).expect(202);
      await formPost(t.app, '/reset', { token: 'not-a-token', password: PASSWORD }).expect(400);
      await formPost(t.app, '/reset', { password: PASSWORD }).expect(400);
      await pageGet(t.app, '/tokens').set('Cookie', cookie).expect(200);
      await pageGet(t.app, '/tokens?revoked=1').set('Cookie', cookie).expect(200);
      await formPost(t.app, '/api/tokens', { name: 'ci' }).set('Cookie', cookie).expect(201);
      await formPost(t.app, '/api/tokens', { name: '', expires_in_days: 'soon' }).set('Cookie', cookie).expect(400);
      await pageGet(t.app, `/tokens/${id}/revoke`).set('Cookie', cookie).expect(200);
      await pageGet(t.app, '/tokens/unknown/revoke').set('Cookie', cookie).expect(404);
      await formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD })
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(403);
      await pageGet(t.app, '/nope').expect(404);
      await request(t.app).get('/admin').set('Accept', HTML).set('Cookie', cookie).expect(403);

      // Every request above rendered its page through the application's engine.
      expect(renders.map((r) => r.page).join(' ')).to.equal(
        'login login register forgot reset reset login register register forgot forgot reset reset tokens tokens tokens tokens revoke tokens problem problem problem',
      );
      for (const { page, locals } of renders) {
        for (const key of DOCUMENTED[page as keyof typeof DOCUMENTED]) {
          expect(locals, `${page}: ${key}`).to.have.property(key);
          expect(locals[key], `${page}: ${key}`).not.to.equal(undefined);
        }
      }
    });
  });

  describe('item 10: the user in the response reflects what the event handlers changed', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    });
    after(() => t.auth.close());

    it('POST /register answers with the role a user_registered handler gave', async () => {
      const unsubscribe = t.auth.on('user_registered', async (user) => {
        await t.auth.users.addRole(user.id, 'member');
      });
      try {
        const response = await request(t.app)
          .post('/service-auth/register')
          .send({ email: 'new@example.com', password: PASSWORD })
          .expect(201);
        expect(response.body.user.roles).to.contain('member');
      } finally {
        unsubscribe();
      }
    });

    it('POST /login answers with the role a user_login handler gave', async () => {
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const unsubscribe = t.auth.on('user_login', async (user) => {
        await t.auth.users.addRole(user.id, 'member');
      });
      try {
        const response = await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'ada@example.com', password: PASSWORD })
          .expect(200);
        expect(response.body.user.roles).to.contain('member');
      } finally {
        unsubscribe();
      }
    });
  });
});
