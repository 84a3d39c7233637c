import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('/api/tokens and the token guards', () => {
  let t: TestApp;
  let ada: string;
  let bob: string;

  beforeEach(async () => {
    t = await createTestApp(
      {
        SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
        SERVICE_AUTH_MAX_TOKENS_PER_USER: 3,
        SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS: 30,
        SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS: 7,
      },
      (app, auth) => {
        auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
        app.get('/api/whoami', auth.tokenRequired, (req, res) =>
          res.json({ email: req.user!.email, method: req.authMethod, token: req.token }),
        );
        app.get('/alias', auth.token_required, (_req, res) => res.json({ ok: true }));
        app.get('/api/reports', auth.tokenRequired, auth.requireScopes('reports:read'), (_req, res) =>
          res.json({ ok: true }),
        );
        app.get('/mixed/reports', auth.requireScopes('reports:read', 'reports:write'), (_req, res) =>
          res.json({ ok: true }),
        );
        app.get('/admin', auth.rolesRequired('admin'), (req, res) => res.json({ method: req.authMethod }));
      },
    );
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['admin'] });
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    ada = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
    )!;
    bob = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: 'bob@example.com', password: PASSWORD }),
    )!;
  });
  afterEach(() => t.auth.close());

  const create = (cookie: string, body: Record<string, unknown>) =>
    request(t.app).post('/service-auth/api/tokens').set('Cookie', cookie).send(body);
  const bearer = (path: string, token: string) => request(t.app).get(path).set('Authorization', `Bearer ${token}`);

  describe('POST /api/tokens', () => {
    it('answers 201 with the raw token once, Cache-Control: no-store, and the default expiry', async () => {
      const before = Date.now();
      const response = await create(ada, { name: 'deploy bot' }).expect(201);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(Object.keys(response.body).sort()).to.deep.equal([
        'created_at',
        'expires_at',
        'id',
        'name',
        'org',
        'scopes',
        'token',
      ]);
      expect(response.body.org, 'bound to no organization').to.equal(null);
      expect(response.body).to.include({ name: 'deploy bot' });
      expect(response.body.scopes).to.deep.equal([]);
      expect(response.body.token).to.match(new RegExp(`^sat_${response.body.id}_[A-Za-z0-9]{49}$`));
      const days = (Date.parse(response.body.expires_at) - before) / 86_400_000;
      expect(days).to.be.within(6.99, 7.01);
      // Never again: not in the listing, not in the log.
      const listing = await request(t.app).get('/service-auth/api/tokens').set('Cookie', ada).expect(200);
      expect(JSON.stringify(listing.body)).not.to.contain(response.body.token.split('_')[2]);
      expect(t.log.text()).not.to.contain(response.body.token.split('_')[2]);
    });

    it('accepts expires_in_days from 1 to the maximum, and scopes', async () => {
      const response = await create(ada, {
        name: 'ci',
        expires_in_days: 30,
        scopes: ['reports:read', 'deploy.prod'],
      }).expect(201);
      expect(response.body.scopes).to.deep.equal(['reports:read', 'deploy.prod']);
      expect((Date.parse(response.body.expires_at) - Date.parse(response.body.created_at)) / 86_400_000).to.equal(30);
      await create(ada, { name: 'short', expires_in_days: 1 }).expect(201);
    });

    it('lists every invalid field as 400 bad_request, creating nothing', async () => {
      const cases: [Record<string, unknown>, string[]][] = [
        [{}, ['name']],
        [{ name: '' }, ['name']],
        [{ name: 'x'.repeat(101) }, ['name']],
        [{ name: 'evil\u001b[31mred' }, ['name']],
        [{ name: 'ok', expires_in_days: 0 }, ['expires_in_days']],
        [{ name: 'ok', expires_in_days: 31 }, ['expires_in_days']],
        [{ name: 'ok', expires_in_days: 1.5 }, ['expires_in_days']],
        [{ name: 'ok', expires_in_days: 'soon' }, ['expires_in_days']],
        [{ name: 'ok', scopes: 'reports:read' }, ['scopes']],
        [{ name: 'ok', scopes: ['Reports'] }, ['scopes']],
        [{ name: 'ok', scopes: ['x'.repeat(65)] }, ['scopes']],
        [{ name: 5, expires_in_days: -1, scopes: [1] }, ['name', 'expires_in_days', 'scopes']],
      ];
      for (const [body, fields] of cases) {
        const response = await create(ada, body).expect(400);
        expect(response.body.code).to.equal('bad_request');
        expect(
          response.body.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body),
        ).to.deep.equal(fields);
      }
      expect((await request(t.app).get('/service-auth/api/tokens').set('Cookie', ada)).body.tokens).to.deep.equal([]);
    });

    it('needs a session: 403 session_required with a token, 401 without credentials', async () => {
      const { token } = (await create(ada, { name: 'first' }).expect(201)).body;
      const response = await request(t.app)
        .post('/service-auth/api/tokens')
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'minted' })
        .expect(403);
      expect(response.body.code).to.equal('session_required');
      await request(t.app).post('/service-auth/api/tokens').send({ name: 'anonymous' }).expect(401);
    });

    it('refuses a cookie-authenticated creation from another site', async () => {
      const response = await create(ada, { name: 'csrf' }).set('Sec-Fetch-Site', 'cross-site').expect(403);
      expect(response.body.code).to.equal('csrf_rejected');
    });

    it('stops at SERVICE_AUTH_MAX_TOKENS_PER_USER active tokens with 409 token_limit; revoked ones do not count', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await create(ada, { name: `t${i}` }).expect(201)).body.id);
      const response = await create(ada, { name: 'one too many' }).expect(409);
      expect(response.body.code).to.equal('token_limit');
      await create(bob, { name: 'bob is separate' }).expect(201);
      await request(t.app).delete(`/service-auth/api/tokens/${ids[0]}`).set('Cookie', ada).expect(204);
      await create(ada, { name: 'room again' }).expect(201);
    });
  });

  describe('GET /api/tokens', () => {
    it("lists the caller's own tokens, never a hash or a raw value, by session or by token", async () => {
      const mine = (await create(ada, { name: 'mine', scopes: ['a:b'] }).expect(201)).body;
      await create(bob, { name: 'theirs' }).expect(201);
      const response = await request(t.app).get('/service-auth/api/tokens').set('Cookie', ada).expect(200);
      expect(response.body.tokens).to.have.length(1);
      expect(response.body.tokens[0]).to.deep.equal({
        id: mine.id,
        name: 'mine',
        scopes: ['a:b'],
        org: null,
        created_at: mine.created_at,
        last_used_at: null,
        expires_at: mine.expires_at,
        legacy: false,
      });
      const unscoped = (await create(ada, { name: 'every scope' }).expect(201)).body;
      const byToken = await bearer('/service-auth/api/tokens', unscoped.token).expect(200);
      expect(byToken.body.tokens.map((token: { id: string }) => token.id)).to.deep.equal([mine.id, unscoped.id]);
    });

    it('needs a token that carries every scope: a scoped token is 403 insufficient_scope', async () => {
      const scoped = (await create(ada, { name: 'scoped', scopes: ['reports:read'] }).expect(201)).body;
      const response = await bearer('/service-auth/api/tokens', scoped.token).expect(403);
      expect(response.body.code).to.equal('insufficient_scope');
      expect(response.headers['www-authenticate']).to.equal('Bearer realm="service-auth", error="insufficient_scope"');
    });
  });

  describe('DELETE /api/tokens/<id>', () => {
    it("revokes the caller's token: 204, then the token is refused", async () => {
      const { id, token } = (await create(ada, { name: 'doomed' }).expect(201)).body;
      await bearer('/api/whoami', token).expect(200);
      await request(t.app).delete(`/service-auth/api/tokens/${id}`).set('Cookie', ada).expect(204);
      const refused = await bearer('/api/whoami', token).expect(401);
      expect(refused.body.code).to.equal('invalid_token');
      expect((await request(t.app).get('/service-auth/api/tokens').set('Cookie', ada)).body.tokens).to.deep.equal([]);
    });

    it("answers 404 for another user's token and for an unknown id, alike, and changes nothing", async () => {
      const { id, token } = (await create(ada, { name: 'ada only' }).expect(201)).body;
      const foreign = await request(t.app).delete(`/service-auth/api/tokens/${id}`).set('Cookie', bob).expect(404);
      const unknown = await request(t.app)
        .delete('/service-auth/api/tokens/doesnotexist')
        .set('Cookie', bob)
        .expect(404);
      expect(foreign.body.code).to.equal('not_found');
      expect(unknown.body.code).to.equal('not_found');
      await bearer('/api/whoami', token).expect(200);
    });

    it('works with a token as the credential too', async () => {
      const first = (await create(ada, { name: 'a' }).expect(201)).body;
      const second = (await create(ada, { name: 'b' }).expect(201)).body;
      await request(t.app)
        .delete(`/service-auth/api/tokens/${second.id}`)
        .set('Authorization', `Bearer ${first.token}`)
        .expect(204);
    });
  });

  describe('tokenRequired', () => {
    it('lets a token through with req.user, req.token and req.authMethod', async () => {
      const { id, token } = (await create(ada, { name: 'whoami', scopes: ['x:y'] }).expect(201)).body;
      const response = await bearer('/api/whoami', token).expect(200);
      expect(response.body).to.deep.equal({
        email: 'ada@example.com',
        method: 'token',
        token: { id, scopes: ['x:y'], org: null },
      });
      await bearer('/alias', token).expect(200);
    });

    it('refuses a session cookie alone with 401 unauthenticated, even from a browser (no redirect)', async () => {
      const response = await request(t.app).get('/api/whoami').set('Cookie', ada).expect(401);
      expect(response.body.code).to.equal('unauthenticated');
      expect(response.headers['www-authenticate']).to.equal('Bearer realm="service-auth"');
      await request(t.app).get('/api/whoami').set('Cookie', ada).set('Accept', HTML).expect(401);
    });

    it('never reads a token from the query string', async () => {
      const { token } = (await create(ada, { name: 'query' }).expect(201)).body;
      await request(t.app).get(`/api/whoami?access_token=${token}&token=${token}`).expect(401);
    });

    it('refuses an invalid bearer token even when a valid session cookie comes along', async () => {
      const response = await request(t.app)
        .get('/admin')
        .set('Cookie', ada)
        .set('Authorization', 'Bearer sat_bogus_bogus')
        .expect(401);
      expect(response.body.code).to.equal('invalid_token');
    });

    it('is not fooled by another scheme: Basic credentials are not a token', async () => {
      await request(t.app).get('/api/whoami').set('Authorization', 'Basic YWRhOnNlY3JldA==').expect(401);
    });
  });

  describe('bearer tokens on the other guards and endpoints', () => {
    it('are accepted by rolesRequired and GET /me', async () => {
      const { token } = (await create(ada, { name: 'admin' }).expect(201)).body;
      expect((await bearer('/admin', token).expect(200)).body).to.deep.equal({ method: 'token' });
      expect((await bearer('/service-auth/me', token).expect(200)).body.user.email).to.equal('ada@example.com');
    });

    it('are exempt from the same-site check', async () => {
      const { token } = (await create(ada, { name: 'a' }).expect(201)).body;
      const other = (await create(ada, { name: 'b' }).expect(201)).body;
      await request(t.app)
        .delete(`/service-auth/api/tokens/${other.id}`)
        .set('Authorization', `Bearer ${token}`)
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(204);
    });

    it('POST /logout with a token is 400, saying to revoke it, and the token stays valid (a 204 would say it was gone)', async () => {
      const { token, id } = (await create(ada, { name: 'logout' }).expect(201)).body;
      const refused = await request(t.app)
        .post('/service-auth/logout')
        .set('Authorization', `Bearer ${token}`)
        .expect(400);
      expect(refused.body.code).to.equal('bad_request');
      expect(refused.body.detail).to.match(/revoked: DELETE \/api\/tokens\/\{id\}/);
      // With a session cookie alongside, the token still decides: the session is not ended either.
      await request(t.app)
        .post('/service-auth/logout')
        .set('Authorization', `Bearer ${token}`)
        .set('Cookie', ada)
        .expect(400);
      await request(t.app).get('/service-auth/me').set('Cookie', ada).expect(200);
      await bearer('/api/whoami', token).expect(200);
      await request(t.app).delete(`/service-auth/api/tokens/${id}`).set('Authorization', `Bearer ${token}`).expect(204);
    });

    it('a scoped token may revoke itself, and no other token: 403 insufficient_scope', async () => {
      const scoped = (await create(ada, { name: 'scoped', scopes: ['reports:read'] }).expect(201)).body;
      const other = (await create(ada, { name: 'other' }).expect(201)).body;
      const refused = await request(t.app)
        .delete(`/service-auth/api/tokens/${other.id}`)
        .set('Authorization', `Bearer ${scoped.token}`)
        .expect(403);
      expect(refused.body.code).to.equal('insufficient_scope');
      await bearer('/api/whoami', other.token).expect(200);
      await request(t.app)
        .delete(`/service-auth/api/tokens/${scoped.id}`)
        .set('Authorization', `Bearer ${scoped.token}`)
        .expect(204);
      await bearer('/api/whoami', scoped.token).expect(401);
      // A token that carries every scope may revoke the user's others.
      await request(t.app)
        .delete(`/service-auth/api/tokens/${other.id}`)
        .set('Authorization', `Bearer ${other.token}`)
        .expect(204);
    });
  });

  describe('requireScopes', () => {
    it('needs every listed scope on the token: 403 insufficient_scope otherwise', async () => {
      const narrow = (await create(ada, { name: 'narrow', scopes: ['reports:write'] }).expect(201)).body.token;
      const right = (await create(ada, { name: 'right', scopes: ['reports:read'] }).expect(201)).body.token;
      const response = await bearer('/api/reports', narrow).expect(403);
      expect(response.body.code).to.equal('insufficient_scope');
      expect(response.headers['www-authenticate']).to.equal(
        'Bearer realm="service-auth", error="insufficient_scope", scope="reports:read"',
      );
      await bearer('/api/reports', right).expect(200);
      await bearer('/mixed/reports', right).expect(403);
    });

    it('lets a token made without scopes through (it carries all), and does not limit sessions', async () => {
      const all = (await create(ada, { name: 'all' }).expect(201)).body.token;
      await bearer('/api/reports', all).expect(200);
      await request(t.app).get('/mixed/reports').set('Cookie', ada).expect(200);
    });
  });

  describe('password reset', () => {
    it("revokes the user's tokens at once", async () => {
      const { token } = (await create(ada, { name: 'before reset' }).expect(201)).body;
      await bearer('/api/whoami', token).expect(200);
      await t.auth.resetPassword('ada@example.com', 'Brand-New-Password-42');
      await bearer('/api/whoami', token).expect(401);
    });
  });
});
