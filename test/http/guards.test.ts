import { expect } from 'chai';
import type { Express, Request, RequestHandler } from 'express';
import request from 'supertest';
import type { ServiceAuth } from '../../src/index.js';
import { partsOf } from '../../src/instance-registry.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function routes(app: Express, auth: ServiceAuth): void {
  auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
  auth.defineRole('analyst', [{ action: 'read', subject: 'Report', conditions: { team: 'north' } }]);
  auth.defineRole('author', [{ action: 'update', subject: 'Post', conditions: { authorId: '${user.id}' } }]);
  auth.defineRole('empty', []);
  auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);
  auth.definePolicy('sees', (_user, context) => {
    seen.push(context);
    return true;
  });
  auth.definePolicy('throws', () => {
    throw new Error('policy bug');
  });
  const describeRequest = (req: Request) => ({
    user: req.user,
    method: req.authMethod,
    canReadNorth: req.ability!.can('read', 'Report'),
  });
  app.get('/login-only', auth.loginRequired, (req, res) => res.json(describeRequest(req)));
  app.post('/login-only', auth.loginRequired, (_req, res) => res.json({ changed: true }));
  app.get('/all', auth.rolesRequired('admin', 'analyst'), (_req, res) => res.json({ ok: true }));
  app.get('/any', auth.rolesAccepted('admin', 'analyst'), (_req, res) => res.json({ ok: true }));
  app.get('/alias', auth.roles_required('analyst'), (_req, res) => res.json({ ok: true }));
  app.get(
    '/empty-role',
    auth.rolesRequired('empty'),
    auth.require({ action: 'read', subject: 'Anything' }),
    (_req, res) => res.json({ ok: true }),
  );
  app.get('/users/:user_id', auth.require({ policy: 'is_self' }), (_req, res) => res.json({ ok: true }));
  app.get('/context/:a/:b/:c/:d', auth.require({ policy: 'sees' }), (_req, res) => res.json({ ok: true }));
  app.get('/throws', auth.require({ policy: 'throws' }), (_req, res) => res.json({ ok: true }));
  app.get('/undefined-policy', auth.require({ policy: 'nobody_defined_this' }), (_req, res) => res.json({ ok: true }));
  app.get('/reports/:team', auth.require({ action: 'read', subject: 'Report' }), (req, res) =>
    res.json({ team: req.params['team'] }),
  );
  app.get('/posts/:authorId', auth.require({ action: 'update', subject: 'Post' }), (_req, res) =>
    res.json({ ok: true }),
  );
  app.get('/optional', async (req, res) => res.json({ user: await auth.currentUser(req) }));
  // Two guards on one route: the second takes the credentials the first found, unless the request
  // logged out between them (as the package's logout does, through the same resolver).
  app.get('/two-guards/:team', auth.loginRequired, auth.require({ action: 'read', subject: 'Report' }), (req, res) =>
    res.json({ email: req.user!.email }),
  );
  const logOut: RequestHandler = (req, res, next) =>
    void partsOf(auth)
      .signIn.end(req, res)
      .then(() => next(), next);
  app.get('/logout-between', auth.loginRequired, logOut, auth.loginRequired, (_req, res) => res.json({ ok: true }));
}
const seen: Record<string, unknown>[] = [];

describe('route guards', () => {
  let t: TestApp;
  const cookies: Record<string, string> = {};

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, routes);
    const users = [
      { email: 'plain@example.com', roles: [] },
      { email: 'admin@example.com', roles: ['admin'] },
      { email: 'analyst@example.com', roles: ['analyst'] },
      { email: 'both@example.com', roles: ['admin', 'analyst'] },
      { email: 'author@example.com', roles: ['author'] },
      { email: 'empty@example.com', roles: ['empty'] },
    ];
    for (const user of users) {
      await t.auth.users.create({ email: user.email, password: PASSWORD, roles: user.roles });
      const response = await request(t.app)
        .post('/service-auth/login')
        .send({ email: user.email, password: PASSWORD })
        .expect(200);
      cookies[user.email.split('@')[0]!] = sessionCookieFrom(response)!;
    }
  });
  after(() => t.auth.close());

  const get = (path: string, who?: string) => {
    const call = request(t.app).get(path);
    if (who) call.set('Cookie', cookies[who]!);
    return call;
  };

  describe('without credentials', () => {
    it('answers an API client 401 unauthenticated as problem details', async () => {
      for (const path of ['/login-only', '/all', '/users/1', '/reports/north']) {
        const response = await get(path).expect(401);
        expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
        expect(response.body.code).to.equal('unauthenticated');
      }
    });

    it('redirects a browser navigation to the login page with a same-site next', async () => {
      const response = await get('/reports/north?from=home').set('Accept', HTML).expect(303);
      expect(response.headers['location']).to.equal('/service-auth/login?next=%2Freports%2Fnorth%3Ffrom%3Dhome');
    });

    it('never makes the next parameter point at another site', async () => {
      const guarded = await createTestApp({}, (app, auth) => {
        app.use(auth.loginRequired);
      });
      try {
        const response = await request(guarded.app).get('//evil.example/x').set('Accept', HTML).expect(303);
        expect(response.headers['location']).to.equal('/service-auth/login');
      } finally {
        await guarded.auth.close();
      }
    });

    it('does not redirect an unsafe method, even from a browser', async () => {
      await request(t.app).post('/login-only').set('Accept', HTML).expect(401);
    });
  });

  describe('roles', () => {
    it('rolesRequired needs every role', async () => {
      await get('/all', 'both').expect(200);
      for (const who of ['admin', 'analyst', 'plain']) {
        const response = await get('/all', who).expect(403);
        expect(response.body.code).to.equal('forbidden');
      }
    });

    it('rolesAccepted needs any one of them', async () => {
      for (const who of ['admin', 'analyst', 'both']) await get('/any', who).expect(200);
      await get('/any', 'plain').expect(403);
    });

    it('the roles_required alias behaves as rolesRequired', async () => {
      await get('/alias', 'analyst').expect(200);
      await get('/alias', 'admin').expect(403);
    });

    it('a role with no rules grants nothing (deny by default)', async () => {
      await get('/empty-role', 'empty').expect(403);
    });
  });

  describe('policies', () => {
    it('passes the URL parameters as context, canonical integers as numbers: 7 matches, 007 does not', async () => {
      const author = await t.auth.users.findByEmail('author@example.com');
      await get(`/users/${author!.id}`, 'author').expect(200);
      await get(`/users/00${author!.id}`, 'author').expect(403);
      await get(`/users/${author!.id + 1}`, 'author').expect(403);
    });

    it('converts only canonical safe integers', async () => {
      seen.length = 0;
      await get('/context/42/007/abc/9007199254740993', 'plain').expect(200);
      expect(seen[0]).to.deep.equal({ a: 42, b: '007', c: 'abc', d: '9007199254740993' });
    });

    it('denies when the policy throws, and logs the reason', async () => {
      await get('/throws', 'admin').expect(403);
      expect(t.log.text()).to.contain('policy "throws" denied user').and.contain('policy bug');
    });

    it('denies a policy nobody defined, and logs the reason', async () => {
      await get('/undefined-policy', 'admin').expect(403);
      expect(t.log.text()).to.contain('policy "nobody_defined_this" denied user');
    });
  });

  describe('abilities', () => {
    it('require({ action, subject }) checks the ability with the URL context as the subject', async () => {
      await get('/reports/north', 'analyst').expect(200, { team: 'north' });
      await get('/reports/south', 'analyst').expect(403);
      await get('/reports/south', 'admin').expect(200);
      await get('/reports/north', 'plain').expect(403);
    });

    it('interpolates the user into role conditions', async () => {
      const author = await t.auth.users.findByEmail('author@example.com');
      await get(`/posts/${author!.id}`, 'author').expect(200);
      await get(`/posts/${author!.id + 100}`, 'author').expect(403);
    });
  });

  describe('the request after a guard', () => {
    it('carries req.user, req.authMethod and req.ability', async () => {
      const response = await get('/login-only', 'analyst').expect(200);
      expect(response.body.user).to.include({ email: 'analyst@example.com', is_admin: false });
      expect(response.body.user.roles).to.deep.equal(['analyst']);
      expect(response.body.method).to.equal('session');
      expect(response.body.canReadNorth).to.equal(true);
    });

    it('auth.currentUser(req) resolves the user where login is optional, and null for bad credentials', async () => {
      expect((await get('/optional').expect(200)).body.user).to.equal(null);
      expect((await get('/optional', 'plain').expect(200)).body.user.email).to.equal('plain@example.com');
      expect((await get('/optional').set('Authorization', 'Bearer sat_not_a_token').expect(200)).body.user).to.equal(
        null,
      );
      expect((await get('/optional').set('Authorization', 'Bearer').expect(200)).body.user).to.equal(null);
    });

    it("a later guard decides on the first guard's credentials, and looks again after a logout between them", async () => {
      expect((await get('/two-guards/north', 'analyst').expect(200)).body.email).to.equal('analyst@example.com');
      await get('/two-guards/north', 'plain').expect(403);
      const login = await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'plain@example.com', password: PASSWORD })
        .expect(200);
      const cookie = sessionCookieFrom(login)!;
      expect((await request(t.app).get('/logout-between').set('Cookie', cookie).expect(401)).body.code).to.equal(
        'unauthenticated',
      );
      await request(t.app).get('/login-only').set('Cookie', cookie).expect(401);
    });

    it('refuses a cookie-authenticated unsafe request from another site (CSRF)', async () => {
      const response = await request(t.app)
        .post('/login-only')
        .set('Cookie', cookies['plain']!)
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(403);
      expect(response.body.code).to.equal('csrf_rejected');
      await request(t.app)
        .post('/login-only')
        .set('Cookie', cookies['plain']!)
        .set('Sec-Fetch-Site', 'same-origin')
        .expect(200);
    });
  });

  describe('GET /api/abilities', () => {
    it("returns the user's serialisable rules, interpolated, without the policy functions", async () => {
      const author = await t.auth.users.findByEmail('author@example.com');
      const response = await get('/service-auth/api/abilities', 'author').expect(200);
      expect(response.body).to.deep.equal({
        rules: [{ action: 'update', subject: 'Post', conditions: { authorId: author!.id } }],
      });
    });

    it('packs them with CASL packRules on request', async () => {
      const response = await get('/service-auth/api/abilities?packed=true', 'analyst').expect(200);
      expect(response.body).to.deep.equal({ rules: [['read', 'Report', { team: 'north' }]] });
    });

    it('needs credentials', async () => {
      await get('/service-auth/api/abilities').expect(401);
    });
  });

  it('rejects guard definitions that make no sense when the route is declared', () => {
    expect(() => t.auth.require({} as never)).to.throw(TypeError, /policy/);
    expect(() => t.auth.rolesRequired()).to.throw(TypeError, /at least one role/);
  });
});
