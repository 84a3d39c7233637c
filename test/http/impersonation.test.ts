/**
 * Acting as another user (docs/impersonation.md), over HTTP against the real app on in-memory
 * SQLite: starting and stopping, the time limit (on the service's clock, moved rather than waited
 * out), who may act as whom, what is refused meanwhile, the audit records and the pages' banner.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { AuditRecord } from '../../src/audit/records.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { refusedWhileImpersonating } from '../../src/http/requests/impersonation-limits.js';
import type { AuthUser } from '../../src/users/auth-user.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';
import { PROBLEM } from '../helpers/problems.js';

const TTL_SECONDS = 600;

describe('impersonation', () => {
  let t: TestApp;
  let support: AuthUser;
  let bob: AuthUser;
  let root: AuthUser;
  let carol: AuthUser;
  const records: AuditRecord[] = [];

  before(async () => {
    t = await createTestApp(
      { SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_IMPERSONATION_TTL: TTL_SECONDS },
      (_app, auth) => {
        // Support may act as anyone but other support staff: the rule's conditions see the target.
        auth.defineRole('support', [
          { action: 'impersonate', subject: 'User', conditions: { roles: { $nin: ['support'] } } },
        ]);
        auth.defineRole('operator', [{ action: 'manage', subject: 'all' }]);
        auth.on('audit', (record) => void records.push(record));
        // Never reached: linking is refused before the provider is asked anything.
        auth.addIdentityProvider({ id: 'corp', issuer: 'http://127.0.0.1:9', clientId: 'app', clientSecret: 'secret' });
      },
    );
    const { users } = t.auth;
    support = await users.addRole(await users.create({ email: 'support@example.com', password: PASSWORD }), 'support');
    bob = await users.create({ email: 'bob@example.com', password: PASSWORD });
    root = await users.create({ email: 'root@example.com', password: PASSWORD, isAdmin: true });
    carol = await users.create({ email: 'carol@example.com', password: PASSWORD });
  });

  afterEach(() => {
    t.parts.impersonation.now = () => Date.now();
  });

  after(() => t.auth.close());

  /** A logged-in browser's cookie, without a password's cost (logging in is tested elsewhere). */
  const login = async (email: string): Promise<string> => {
    const user = (await t.auth.users.findByEmail(email))!;
    return `service_auth_session=${(await t.parts.sessions.create(user.id)).id}`;
  };
  const me = (cookie: string) => request(t.app).get('/service-auth/me').set('Cookie', cookie);
  const start = (cookie: string, userId: number) =>
    request(t.app).post('/service-auth/api/impersonation').set('Cookie', cookie).send({ user_id: userId });
  const sessionIds = async (cookie: string): Promise<string[]> =>
    (
      (await request(t.app).get('/service-auth/api/sessions').set('Cookie', cookie).expect(200)).body.sessions as {
        id: string;
        current: boolean;
      }[]
    )
      .filter((s) => s.current)
      .map((s) => s.id);

  /** Support logged in and acting as bob: both cookies. */
  const actingAsBob = async (): Promise<{ own: string; acting: string }> => {
    const own = await login('support@example.com');
    const acting = sessionCookieFrom(await start(own, bob.id).expect(201))!;
    return { own, acting };
  };

  describe('starting and stopping', () => {
    it('starts: 201 { user, impersonator }, a new session as the target, and the old cookie no longer works', async () => {
      const own = await login('support@example.com');
      const [ownSession] = await sessionIds(own);
      const response = await start(own, bob.id).expect(201);
      expect(response.body.user).to.include({ id: bob.id, email: 'bob@example.com' });
      expect(response.body.impersonator).to.include({ id: support.id, email: 'support@example.com' });
      const acting = sessionCookieFrom(response)!;
      expect(acting).to.not.equal(own);
      expect((await me(acting).expect(200)).body.user.email).to.equal('bob@example.com');
      // The impersonator's own session is set aside under a secret nobody holds.
      await me(own).expect(401);

      const stopped = await request(t.app).delete('/service-auth/api/impersonation').set('Cookie', acting).expect(200);
      expect(stopped.body.user).to.include({ id: support.id });
      const back = sessionCookieFrom(stopped)!;
      expect(back).to.not.equal(own).and.not.equal(acting);
      expect((await me(back).expect(200)).body.user.email).to.equal('support@example.com');
      // The same session as before, under a new secret: neither earlier cookie works.
      expect(await sessionIds(back)).to.deep.equal([ownSession]);
      await me(acting).expect(401);
      await me(own).expect(401);
    });

    it('DELETE without an impersonation is 404 not_found', async () => {
      const own = await login('support@example.com');
      const response = await request(t.app)
        .delete('/service-auth/api/impersonation')
        .set('Cookie', own)
        .expect(404)
        .expect('Content-Type', PROBLEM);
      expect(response.body.code).to.equal('not_found');
    });

    it('ends on its own after SERVICE_AUTH_IMPERSONATION_TTL: the next request is the impersonator’s own again', async () => {
      const { acting } = await actingAsBob();
      const startedAt = Date.now();
      t.parts.impersonation.now = () => startedAt + (TTL_SECONDS - 5) * 1000;
      expect((await me(acting).expect(200)).body.user.email).to.equal('bob@example.com');
      t.parts.impersonation.now = () => startedAt + TTL_SECONDS * 1000 + 1000;
      const after = await me(acting).expect(200);
      expect(after.body.user.email).to.equal('support@example.com');
      const back = sessionCookieFrom(after)!;
      expect(back).to.not.equal(acting);
      expect((await me(back).expect(200)).body.user.email).to.equal('support@example.com');
      await me(acting).expect(401);
      const ended = records.filter((r) => r.type === 'impersonation_ended' && r.detail['ended'] === 'expired');
      expect(ended.at(-1)).to.deep.include({ userId: bob.id });
      expect(ended.at(-1)!.detail).to.include({ impersonator: support.id });
    });

    it('ends with the impersonator’s own session (ended from another device): no session at all', async () => {
      const own = await login('support@example.com');
      const [ownSession] = await sessionIds(own);
      const acting = sessionCookieFrom(await start(own, bob.id).expect(201))!;
      await me(acting).expect(200);
      const elsewhere = await login('support@example.com');
      await request(t.app).delete(`/service-auth/api/sessions/${ownSession}`).set('Cookie', elsewhere).expect(204);
      // Within the change feed's interval, as every ended session.
      const deadline = Date.now() + 5000;
      while ((await me(acting)).status !== 401) expect(Date.now()).to.be.below(deadline);
    });

    it('logging out while acting as someone logs the impersonator out too', async () => {
      const { acting } = await actingAsBob();
      await request(t.app).post('/service-auth/logout').set('Cookie', acting).expect(204);
      await me(acting).expect(401);
      const logout = records.filter((r) => r.type === 'logout').at(-1)!;
      expect(logout.detail).to.include({ impersonator: support.id });
    });
  });

  describe('who may act as whom', () => {
    it('a global admin (is_admin) is never a target, even for manage all: 403 forbidden', async () => {
      const operator = await t.auth.users.addRole(
        await t.auth.users.create({ email: 'operator@example.com', password: PASSWORD }),
        'operator',
      );
      const cookie = await login(operator.email);
      expect((await start(cookie, root.id).expect(403)).body.code).to.equal('forbidden');
      // manage all allows everyone else.
      await start(cookie, carol.id).expect(201);
    });

    it('without the ability: 403 forbidden, the same for an id nobody has (no enumeration)', async () => {
      const cookie = await login('carol@example.com');
      expect((await start(cookie, bob.id).expect(403)).body.code).to.equal('forbidden');
      expect((await start(cookie, 999_999).expect(403)).body.code).to.equal('forbidden');
    });

    it('the rule’s conditions see the target: support may not act as support', async () => {
      const other = await t.auth.users.addRole(
        await t.auth.users.create({ email: 'support2@example.com', password: PASSWORD }),
        'support',
      );
      const cookie = await login('support@example.com');
      expect((await start(cookie, other.id).expect(403)).body.code).to.equal('forbidden');
      expect((await start(cookie, 999_999).expect(404)).body.code).to.equal('not_found');
    });

    it('a token never impersonates: 403 session_required', async () => {
      const { token } = await t.auth.tokens.create(support.id, { name: 'script' });
      const response = await request(t.app)
        .post('/service-auth/api/impersonation')
        .set('Authorization', `Bearer ${token}`)
        .send({ user_id: bob.id })
        .expect(403);
      expect(response.body.code).to.equal('session_required');
    });

    it('a malformed user_id is 400 bad_request naming the field', async () => {
      const cookie = await login('support@example.com');
      const response = await request(t.app)
        .post('/service-auth/api/impersonation')
        .set('Cookie', cookie)
        .send({ user_id: 'bob' })
        .expect(400);
      expect(response.body.errors[0]).to.include({ field: 'user_id' });
    });
  });

  describe('what is refused while acting as someone', () => {
    const API: [string, string, object?][] = [
      ['POST', '/password', { current_password: PASSWORD, password: 'Another-Strong-Pass-1' }],
      ['POST', '/email', { password: PASSWORD, email: 'new@example.com' }],
      ['DELETE', '/me', { password: PASSWORD }],
      ['POST', '/api/mfa/totp'],
      ['POST', '/api/mfa/totp/confirm', { code: '123456' }],
      ['DELETE', '/api/mfa/totp', { password: PASSWORD }],
      ['POST', '/api/passkeys/options', { password: PASSWORD }],
      ['POST', '/api/passkeys', {}],
      ['DELETE', '/api/passkeys/some-passkey'],
      ['DELETE', '/api/sessions'],
      ['DELETE', '/api/sessions/AAAAAAAAAAAAAAAA'],
      ['POST', '/api/tokens', { name: 'mine now' }],
      ['DELETE', '/api/tokens/abcdef'],
      ['POST', '/api/tokens/abcdef/revoke'],
      ['POST', '/api/impersonation', { user_id: 1 }],
      ['DELETE', '/api/identities/1'],
      // Case and a trailing slash change nothing, for routing or for this.
      ['POST', '/API/Tokens/', { name: 'mine now' }],
    ];
    const FORMS: [string, Record<string, string>][] = [
      ['/password', { current_password: PASSWORD, password: 'Another-Strong-Pass-1' }],
      ['/email', { password: PASSWORD, email: 'new@example.com' }],
      ['/delete-account', { password: PASSWORD }],
      ['/mfa/totp', {}],
      ['/mfa/totp/confirm', { code: '123456' }],
      ['/mfa/totp/remove', { password: PASSWORD }],
      ['/passkeys/some-passkey/remove', {}],
      ['/sessions/end-others', {}],
      ['/sessions/AAAAAAAAAAAAAAAA/end', {}],
      ['/api/tokens', { name: 'mine now' }],
      ['/api/tokens/abcdef/revoke', {}],
    ];
    let acting: string;

    before(async () => {
      ({ acting } = await actingAsBob());
    });

    for (const [method, path, body] of API) {
      it(`${method} ${path}: 403 impersonation_forbidden`, async () => {
        const call = request(t.app)
          [method.toLowerCase() as 'post' | 'delete'](`/service-auth${path}`)
          .set('Cookie', acting);
        const response = await (body ? call.send(body) : call).expect(403).expect('Content-Type', PROBLEM);
        expect(response.body.code).to.equal('impersonation_forbidden');
      });
    }

    for (const [path, body] of FORMS) {
      it(`the form posting to ${path}: a refusal page, with the banner`, async () => {
        const response = await formPost(t.app, path, body)
          .set('Cookie', acting)
          .expect(403)
          .expect('Content-Type', /text\/html/);
        expect(response.text).to.contain('Not while acting as another user');
        expect(response.text).to.contain('You are acting as bob@example.com');
      });
    }

    // Which credential a request carries is resolved once (authentication/credentials.ts): an
    // Authorization header that is not a bearer token is not ours, so the session cookie decides, and
    // the impersonation's limits hold; a malformed bearer header is refused everywhere (401).
    const HEADER_SHAPES: [string, string | string[] | null, number, string][] = [
      ['no Authorization header', null, 403, 'impersonation_forbidden'],
      ['Basic', 'Basic eDp5', 403, 'impersonation_forbidden'],
      ['Token', 'Token x', 403, 'impersonation_forbidden'],
      ['Digest', 'Digest username="x"', 403, 'impersonation_forbidden'],
      ['a bare word', 'x', 403, 'impersonation_forbidden'],
      ['Bearer with nothing', 'Bearer', 401, 'invalid_token'],
      ['Bearer with spaces only', 'Bearer   ', 401, 'invalid_token'],
      ['lower-case bearer, not a token', 'bearer x', 401, 'invalid_token'],
      // Node keeps the first of repeated Authorization headers, and so does every check.
      ['two headers, Basic first', ['Basic eDp5', 'Bearer x'], 403, 'impersonation_forbidden'],
      ['two headers, Bearer first', ['Bearer x', 'Basic eDp5'], 401, 'invalid_token'],
    ];
    const LINK_START: [string, string, object?] = ['GET', '/sso/corp?link=1'];
    for (const [shape, header, status, code] of HEADER_SHAPES) {
      it(`with ${shape}: every refused endpoint answers ${status} ${code}`, async () => {
        for (const [method, path, body] of [...API, LINK_START]) {
          let call = request(t.app)
            [method.toLowerCase() as 'get' | 'post' | 'delete'](`/service-auth${path}`)
            .set('Cookie', acting)
            .set('Sec-Fetch-Site', 'same-origin');
          if (header !== null) call = call.set('Authorization', header as string);
          const response = await (body ? call.send(body) : call);
          expect([response.status, response.body.code], `${method} ${path}`).to.deep.equal([status, code]);
        }
        for (const [path, body] of FORMS) {
          let call = formPost(t.app, path, body).set('Cookie', acting);
          if (header !== null) call = call.set('Authorization', header as string);
          // With a bearer header it is a program's post, not a browser's form: the JSON route of that
          // path refuses it (401), or there is none (404, page-only paths).
          expect(status === 401 ? [401, 404] : [status], `the form posting to ${path}`).to.include((await call).status);
        }
      });
    }

    it('linking a sign-in provider to bob (GET /sso/:provider?link=1): 403 impersonation_forbidden, the provider never asked', async () => {
      const response = await request(t.app)
        .get('/service-auth/sso/corp?link=1')
        .set('Cookie', acting)
        .expect(403)
        .expect('Content-Type', PROBLEM);
      expect(response.body.code).to.equal('impersonation_forbidden');
    });

    it('nothing was changed: bob still logs in with his password, has no token, no second factor, no identity, his sessions', async () => {
      const own = await login('bob@example.com');
      expect(
        (await request(t.app).get('/service-auth/api/tokens').set('Cookie', own).expect(200)).body.tokens,
      ).to.deep.equal([]);
      expect(
        (await request(t.app).get('/service-auth/api/identities').set('Cookie', own).expect(200)).body.identities,
      ).to.deep.equal([]);
      expect((await t.auth.users.findById(bob.id))!.toJSON()).to.include({ mfa_enabled: false });
      expect((await me(acting).expect(200)).body.user.email).to.equal('bob@example.com');
    });

    it('reading stays allowed: the sessions page, the tokens list', async () => {
      await pageGet(t.app, '/sessions').set('Cookie', acting).expect(200);
      await request(t.app).get('/service-auth/api/tokens').set('Cookie', acting).expect(200);
    });
  });

  it('the OpenAPI document lists impersonation_forbidden on exactly the operations the middleware refuses', () => {
    const document = openApiDocument(t.auth.config);
    const listed: string[] = [];
    const refused: string[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        const forbidden =
          (operation as { responses?: Record<string, { description?: string }> }).responses?.['403']?.description ?? '';
        if (forbidden.includes('`impersonation_forbidden`')) listed.push(`${method.toUpperCase()} ${path}`);
        if (refusedWhileImpersonating(method, path, { link: '1' })) refused.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(refused.length).to.be.above(15);
    // The console's button: its service refuses a second impersonation itself.
    const refusedByTheRoute = ['POST /admin/users/{id}/impersonate'];
    expect(listed.sort()).to.deep.equal([...refused, ...refusedByTheRoute].sort());
  });

  describe('the audit log', () => {
    it('records the start and the stop, and names the impersonator in every record meanwhile', async () => {
      const { acting } = await actingAsBob();
      const startedRecord = records.filter((r) => r.type === 'impersonation_started').at(-1)!;
      expect(startedRecord).to.deep.include({ userId: bob.id, outcome: 'success' });
      expect(startedRecord.detail).to.include({ impersonator: support.id, actor: 'http' });
      // Something bob may do, done by support in his name: its record says who really did it.
      await request(t.app).post('/service-auth/api/orgs').set('Cookie', acting).send({ name: 'Acting Co' }).expect(201);
      const created = records.filter((r) => r.type === 'org_created').at(-1)!;
      expect(created.userId).to.equal(bob.id);
      expect(created.detail).to.include({ impersonator: support.id });
      const back = sessionCookieFrom(
        await request(t.app).delete('/service-auth/api/impersonation').set('Cookie', acting).expect(200),
      )!;
      const ended = records.filter((r) => r.type === 'impersonation_ended').at(-1)!;
      expect(ended.detail).to.include({ impersonator: support.id, ended: 'stopped' });
      // Afterwards, support's own records name nobody else.
      await request(t.app).post('/service-auth/api/orgs').set('Cookie', back).send({ name: 'Own Co' }).expect(201);
      expect(records.filter((r) => r.type === 'org_created').at(-1)!.detail).to.not.have.property('impersonator');
    });
  });

  describe('the pages', () => {
    it('every page shows the banner with a stop form; the form stops it and goes home', async () => {
      const { acting } = await actingAsBob();
      for (const page of ['/sessions', '/tokens', '/security-log', '/login']) {
        const html = (await pageGet(t.app, page).set('Cookie', acting).expect(200)).text;
        expect(html, page).to.match(
          /<aside class="impersonation" aria-label="Acting as another user"><form method="post" action="\/service-auth\/impersonation\/stop"><p>You are acting as bob@example.com — <button type="submit">Stop<\/button>/,
        );
      }
      const stopped = await formPost(t.app, '/impersonation/stop', {})
        .set('Cookie', acting)
        .expect(303)
        .expect('Location', '/');
      const back = sessionCookieFrom(stopped)!;
      const html = (await pageGet(t.app, '/sessions').set('Cookie', back).expect(200)).text;
      expect(html).to.contain('support@example.com').and.not.contain('You are acting as');
    });

    it('the stop form is refused from another site (csrf_rejected), and the impersonation goes on', async () => {
      const { acting } = await actingAsBob();
      await formPost(t.app, '/impersonation/stop', {})
        .set('Cookie', acting)
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(403);
      expect((await me(acting).expect(200)).body.user.email).to.equal('bob@example.com');
    });
  });
});
