/**
 * When PostgreSQL is out of reach, requests that need it get 503 `unavailable` with Retry-After
 * (not a 500, never a stack trace), routes that do not need it keep working, the log says why,
 * and service resumes by itself once the database is reachable again.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { holdFeedClock, type FeedClock } from '../helpers/feed-clock.js';
import { formPost } from '../helpers/forms.js';
import { createPostgresDatabase, postgresUrl, whenService } from '../helpers/services.js';
import { untilStatus } from './client.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

whenService('PostgreSQL', postgresUrl, 'SERVICE_AUTH_TEST_DATABASE_URL', () =>
  describe('an instance whose PostgreSQL becomes unreachable [PostgreSQL behind a relay]', function () {
    this.timeout(30_000);
    let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
    let proxy: TcpProxy;
    let t: TestApp;
    let cookie: string;
    let token: string;
    let clock: FeedClock;

    before(async () => {
      database = await createPostgresDatabase();
      const direct = new URL(database.url);
      proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const relayed = new URL(database.url);
      relayed.port = String(proxy.port);
      t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: relayed.toString() }, (app, auth) => {
        app.get('/plain', (_req, res) => void res.json({ ok: true }));
        app.get('/whoami', auth.tokenRequired, (req, res) => void res.json({ email: req.user!.email }));
      });
      const registered = await request(t.app)
        .post('/service-auth/register')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(201);
      cookie = sessionCookieFrom(registered)!;
      token = (
        await request(t.app).post('/service-auth/api/tokens').set('Cookie', cookie).send({ name: 'ci' }).expect(201)
      ).body.token;
      await request(t.app).get('/whoami').set('Authorization', `Bearer ${token}`).expect(200);
      clock = holdFeedClock(t);
    });
    after(async () => {
      await t?.auth.close().catch(() => undefined);
      await proxy?.close();
      await database?.drop();
    });

    it('answers 503 unavailable with Retry-After where a row is needed, and keeps serving the rest', async () => {
      await proxy.cut();
      // Rows held may still be used while the change feed is fresh; past FEED_INTERVAL_MS the feed
      // must be read again, and cannot be.
      clock.passInterval();

      for (const response of [
        await request(t.app).get('/service-auth/me').set('Cookie', cookie),
        await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
        await request(t.app).get('/whoami').set('Authorization', `Bearer ${token}`),
      ]) {
        expect(response.status, response.text).to.equal(503);
        expect(response.headers['content-type']).to.contain('application/problem+json');
        expect(response.headers['retry-after']).to.equal('5');
        expect(response.body).to.deep.equal({
          type: 'about:blank',
          title: 'Service Unavailable',
          status: 503,
          detail: 'The service is briefly unavailable; retry shortly',
          code: 'unavailable',
        });
      }
      // A route without a guard never looks the session up.
      await request(t.app).get('/plain').set('Cookie', cookie).expect(200, { ok: true });
      expect(t.log.text()).to.contain('database unreachable in GET "/service-auth/me"');
      expect(t.log.text()).to.contain('database unreachable in GET "/whoami"');
      expect(t.log.text()).not.to.match(/select|insert|\$argon2|pbkdf2/i);
      // The query builder's own note of the lost connection goes to auth.logger, not the console.
      expect(t.log.text()).to.match(/warn database: Connection Error/);
    });

    it("shows a browser's form post a page saying so, not JSON", async () => {
      const page = await formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD });
      expect(page.status).to.equal(503);
      expect(page.headers['content-type']).to.contain('text/html');
      expect(page.headers['retry-after']).to.equal('5');
      expect(page.text).to.contain(t.auth.texts.problems.unavailable.text);
    });

    it('serves the same session and token again once the database is back', async () => {
      await proxy.restore();
      await untilStatus(
        async () =>
          new Response(null, { status: (await request(t.app).get('/service-auth/me').set('Cookie', cookie)).status }),
        200,
        10_000,
      );
      await request(t.app)
        .get('/whoami')
        .set('Authorization', `Bearer ${token}`)
        .expect(200, { email: 'ada@example.com' });
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200);
    });
  }),
);
