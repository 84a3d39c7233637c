import { expect } from 'chai';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { DriverException } from '@mikro-orm/core';
import express from 'express';
import request from 'supertest';
import { AuthError, ServiceAuth } from '../../src/index.js';
import { captureLogger, createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { formPost, HTML, pageGet } from '../helpers/forms.js';
import { expectNoInternals, PROBLEM } from '../helpers/problems.js';

describe('the error path', () => {
  describe("a body the application's own express.json() read first", () => {
    async function appWithParser(
      parser: express.RequestHandler,
      use: (app: express.Express) => Promise<void>,
    ): Promise<void> {
      const app = express();
      app.use(parser);
      app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
      app.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', false);
      const auth = new ServiceAuth(app);
      auth.logger = captureLogger();
      try {
        await auth.ready;
        await use(app);
      } finally {
        await auth.close();
      }
    }
    const post = (app: express.Express, body: string) =>
      request(app).post('/service-auth/login').set('Content-Type', 'application/json').send(body);

    it('answers its refusal under the prefix as a problem with its own status and limit, never Express’s HTML page', async () => {
      await appWithParser(express.json(), async (app) => {
        const malformed = await post(app, '{"email":').expect(400);
        // Its own limit (100 KiB, express.json's default), not ours.
        const large = await post(app, `{"email":"${'x'.repeat(200 * 1024)}"}`).expect(413);
        expect(large.body).to.include({
          status: 413,
          code: 'payload_too_large',
          detail: 'The request body is larger than 100 KiB',
        });
        expect(malformed.body).to.include({ status: 400, code: 'bad_request' });
        for (const response of [malformed, large]) {
          expect(response.headers['content-type']).to.match(PROBLEM);
          expect(response.text).not.to.contain('<!DOCTYPE');
          expectNoInternals(response.text);
        }
      });
    });

    it("does not refuse for its size a body the application's parser accepted", async () => {
      await appWithParser(express.json({ limit: '1mb' }), async (app) => {
        // Read and checked as a login: a wrong password, not a body too large.
        const response = await post(
          app,
          JSON.stringify({ email: 'ada@example.com', password: 'x'.repeat(200 * 1024) }),
        ).expect(401);
        expect(response.body.code).to.equal('invalid_credentials');
      });
    });
  });

  describe('requests an API client sends', () => {
    let t: TestApp;
    let cookie: string;
    before(async () => {
      t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
        app.get('/users/:user_id/profile', auth.require({ policy: 'x' }), (_req, res) => res.json({ ok: true }));
      });
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      cookie = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'ada@example.com', password: PASSWORD })
          .expect(200),
      )!;
    });
    after(() => t.auth.close());

    it('answers a compressed body that does not decompress with 400, not 500', async () => {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const response = await request(t.app)
          .post('/service-auth/login')
          .set('Content-Encoding', encoding)
          .set('Content-Type', 'application/json')
          .send('notgzip');
        expect(response.status, encoding).to.equal(400);
        expect(response.headers['content-type']).to.match(PROBLEM);
        expect(response.body.code).to.equal('bad_request');
      }
      expect(t.log.entries.filter((e) => e.level === 'error')).to.deep.equal([]);
    });

    it('still reads a well-formed compressed JSON body', async () => {
      const compressions = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
      for (const [encoding, compress] of Object.entries(compressions)) {
        // Sent as the compressed bytes: superagent would otherwise serialise a Buffer as JSON.
        const send = (body: unknown) =>
          request(t.app)
            .post('/service-auth/login')
            .set('Content-Encoding', encoding)
            .set('Content-Type', 'application/json')
            .serialize((bytes: Buffer) => bytes as unknown as string)
            .send(compress(Buffer.from(JSON.stringify(body))));
        const ok = await send({ email: 'ada@example.com', password: PASSWORD });
        expect(ok.status, encoding).to.equal(200);
        expect(ok.body.user.email).to.equal('ada@example.com');
        const missing = await send({}).expect(400);
        expect(missing.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['email', 'password']);
        expect((await send({ email: 'ada@example.com', password: 'Wrong-Password-1' }).expect(401)).body.code).to.equal(
          'invalid_credentials',
        );
      }
    });

    it('answers a malformed %-escape in a path with a 400 problem, under the prefix and on the application’s own routes', async () => {
      const responses = [
        await request(t.app).get('/service-auth/api/tokens/%ZZ').set('Cookie', cookie),
        await request(t.app)
          .delete('/service-auth/api/tokens/%ZZ')
          .set('Cookie', cookie)
          .set('Sec-Fetch-Site', 'same-origin'),
        await request(t.app).get('/users/%ZZ/profile').set('Cookie', cookie),
      ];
      for (const response of responses) {
        expect(response.status, response.text).to.equal(400);
        expect(response.headers['content-type']).to.match(PROBLEM);
        expect(response.body).to.include({ status: 400, code: 'bad_request' });
        expectNoInternals(response.text);
      }
    });

    it("answers an unknown path under the prefix with a 404 not_found problem, not Express's HTML page", async () => {
      for (const call of [
        request(t.app).get('/service-auth/nope'),
        request(t.app).post('/service-auth/api/nothing').send({}),
      ]) {
        const response = await call.expect(404);
        expect(response.headers['content-type']).to.match(PROBLEM);
        expect(response.body).to.include({ status: 404, code: 'not_found' });
      }
    });

    it('shows a browser navigating to an unknown path under the prefix a page, with status 404', async () => {
      const response = await pageGet(t.app, '/nope').expect(404);
      expect(response.headers['content-type']).to.match(/^text\/html/);
      expect(response.text)
        .to.match(/^<!DOCTYPE html>/i)
        .and.not.contain('Cannot GET');
    });

    it('marks every response of the router X-Content-Type-Options: nosniff: pages, JSON, problems and redirects', async () => {
      const responses = [
        await pageGet(t.app, '/login').expect(200),
        await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200),
        await request(t.app).get('/service-auth/me').expect(401),
        await request(t.app).get('/service-auth/nope').expect(404),
        await pageGet(t.app, '/tokens').expect(303),
        await formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD }).expect(303),
        await request(t.app).get('/service-auth/api/tokens').set('Cookie', cookie).expect(200),
      ];
      for (const response of responses)
        expect(response.headers['x-content-type-options'], `${response.status} ${response.text}`).to.equal('nosniff');
    });

    it('keeps /me and the /api responses out of caches: Cache-Control: no-store', async () => {
      const responses = [
        await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200),
        await request(t.app).get('/service-auth/me').expect(401),
        await request(t.app).get('/service-auth/api/tokens').set('Cookie', cookie).expect(200),
        await request(t.app).get('/service-auth/api/abilities').set('Cookie', cookie).expect(200),
        await request(t.app).get('/service-auth/api/tokens').expect(401),
        await request(t.app).post('/service-auth/api/nothing').expect(404),
      ];
      for (const response of responses)
        expect(response.headers['cache-control'], `${response.status} ${response.text}`).to.equal('no-store');
    });
  });

  describe("a browser refused on an application's own route (§19 item 11)", () => {
    let t: TestApp;
    let cookie: string;
    before(async () => {
      t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
        app.get('/admin', auth.rolesRequired('admin'), (_req, res) => res.json({ ok: true }));
        app.get('/limited', () => {
          throw new AuthError('rate_limited', 'Too many reports; try again in 30 seconds', undefined, {
            'Retry-After': '30',
          });
        });
        app.get('/database', () => {
          throw new DriverException(
            Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
          );
        });
        app.get('/login-only', auth.loginRequired, (_req, res) => res.json({ ok: true }));
        app.get('/token-only', auth.tokenRequired, (_req, res) => res.json({ ok: true }));
      });
      await t.auth.users.create({ email: 'plain@example.com', password: PASSWORD });
      cookie = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: 'plain@example.com', password: PASSWORD })
          .expect(200),
      )!;
    });
    after(() => t.auth.close());

    const refusals = [
      { path: '/admin', status: 403, code: 'forbidden' },
      { path: '/limited', status: 429, code: 'rate_limited' },
      { path: '/database', status: 503, code: 'unavailable' },
    ];

    it("gets an HTML page with the API's status: 403, 429 (keeping Retry-After) and 503", async () => {
      for (const { path, status } of refusals) {
        const response = await request(t.app).get(path).set('Accept', HTML).set('Cookie', cookie);
        expect(response.status, path).to.equal(status);
        expect(response.headers['content-type'], path).to.match(/^text\/html/);
        expect(response.text).to.match(/^<!DOCTYPE html>/i);
        if (status === 429) expect(response.headers['retry-after']).to.equal('30');
      }
    });

    it('while an API client asking the same gets problem details', async () => {
      for (const { path, status, code } of refusals) {
        for (const accept of [undefined, 'application/json']) {
          const call = request(t.app).get(path).set('Cookie', cookie);
          if (accept) call.set('Accept', accept);
          const response = await call;
          expect(response.status, `${path} ${accept}`).to.equal(status);
          expect(response.headers['content-type']).to.match(PROBLEM);
          expect(response.body).to.include({ status, code });
          if (status === 429) expect(response.headers['retry-after']).to.equal('30');
        }
      }
    });

    it('sends a navigation without a session to a loginRequired route to the login page, and back after', async () => {
      const response = await request(t.app).get('/login-only').set('Accept', HTML).expect(303);
      expect(response.headers['location']).to.equal(`/service-auth/login?next=${encodeURIComponent('/login-only')}`);
    });

    it('shows a navigation without a session to a tokenRequired route a 401 page, not a redirect', async () => {
      const response = await request(t.app).get('/token-only').set('Accept', HTML).expect(401);
      expect(response.headers['location']).to.equal(undefined);
      expect(response.headers['content-type']).to.match(/^text\/html/);
    });
  });
});
