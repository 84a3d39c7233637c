import { expect } from 'chai';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { Session } from '../../src/storage/entities/index.js';
import {
  createTestApp,
  openDatabase,
  PASSWORD,
  sessionCookieFrom,
  temporaryDatabase,
  type TestApp,
} from '../helpers/app.js';
import { holdFeedClock } from '../helpers/feed-clock.js';

const login = (t: TestApp, cookie?: string) => {
  const call = request(t.app).post('/service-auth/login');
  if (cookie) call.set('Cookie', cookie);
  return call.send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
};

describe('sessions', () => {
  describe('the cookie', () => {
    it('is HttpOnly, SameSite=Lax, Path=/ and not Secure by default in development', async () => {
      const t = await createTestApp();
      try {
        await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const header = ((await login(t)).headers['set-cookie'] as unknown as string[])[0]!;
        expect(header).to.match(/^service_auth_session=[A-Za-z0-9_-]{43};/);
        expect(header).to.contain('HttpOnly').and.contain('SameSite=Lax').and.contain('Path=/');
        expect(header).not.to.contain('Secure');
        expect(header).not.to.contain('Domain');
      } finally {
        await t.auth.close();
      }
    });

    it('is Secure with the __Host- name prefix when configured secure, and carries the configured name', async () => {
      const t = await createTestApp({ SERVICE_AUTH_SESSION_COOKIE_SECURE: true, SERVICE_AUTH_SESSION_COOKIE: 'sid' });
      try {
        await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const response = await login(t);
        const header = (response.headers['set-cookie'] as unknown as string[])[0]!;
        expect(header).to.match(/^__Host-sid=[A-Za-z0-9_-]{43};/);
        expect(header).to.contain('Secure').and.contain('Path=/').and.contain('HttpOnly');
        const cookie = sessionCookieFrom(response, '__Host-sid')!;
        await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200);
        // The unprefixed name is not the session cookie: a subdomain could have planted it.
        await request(t.app).get('/service-auth/me').set('Cookie', cookie.replace('__Host-sid', 'sid')).expect(401);
      } finally {
        await t.auth.close();
      }
    });

    it('expires with the session lifetime', async () => {
      const t = await createTestApp({ SERVICE_AUTH_SESSION_TTL: 3600 });
      try {
        await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const header = ((await login(t)).headers['set-cookie'] as unknown as string[])[0]!;
        const expires = new Date(/Expires=([^;]+)/.exec(header)![1]!).getTime();
        expect(expires - Date.now()).to.be.within(3590_000, 3601_000);
      } finally {
        await t.auth.close();
      }
    });
  });

  describe('storage and lifetime', () => {
    let database: Awaited<ReturnType<typeof temporaryDatabase>>;
    let t: TestApp;
    beforeEach(async () => {
      database = await temporaryDatabase();
      t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    });
    afterEach(async () => {
      await t.auth.close();
      await database.remove();
    });

    it('stores only the SHA-256 of the 32 random bytes in the cookie', async () => {
      const cookie = sessionCookieFrom(await login(t))!;
      const id = cookie.split('=')[1]!;
      expect(Buffer.from(id, 'base64url')).to.have.length(32);
      const orm = await openDatabase(database.url);
      try {
        const rows = await orm.em.fork().find(Session, {});
        expect(rows.map((r) => r.idHash)).to.deep.equal([createHash('sha256').update(id).digest('hex')]);
      } finally {
        await orm.close();
      }
    });

    it('logout deletes the server-side session: the old cookie stops working', async () => {
      const cookie = sessionCookieFrom(await login(t))!;
      await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200);
      const response = await request(t.app).post('/service-auth/logout').set('Cookie', cookie).expect(204);
      expect((response.headers['set-cookie'] as unknown as string[])[0]).to.match(
        /^service_auth_session=;.*Expires=Thu, 01 Jan 1970/,
      );
      await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(401);
      const orm = await openDatabase(database.url);
      try {
        expect(await orm.em.fork().count(Session, {})).to.equal(0);
      } finally {
        await orm.close();
      }
    });

    it('logout without a session answers 204 and clears the cookie anyway', async () => {
      const response = await request(t.app).post('/service-auth/logout').expect(204);
      expect((response.headers['set-cookie'] as unknown as string[])[0]).to.match(/^service_auth_session=;/);
    });

    it('refuses a session past its expiry', async () => {
      const cookie = sessionCookieFrom(await login(t))!;
      const orm = await openDatabase(database.url);
      try {
        await orm.em.fork().nativeUpdate(Session, {}, { expiresAt: new Date(Date.now() - 1000) });
      } finally {
        await orm.close();
      }
      // A fresh instance on the same database: no cached copy of the session.
      const other = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
      try {
        await request(other.app).get('/service-auth/me').set('Cookie', cookie).expect(401);
        // Its first login also clears the expired row away.
        await login(other);
        const check = await openDatabase(database.url);
        try {
          expect(await check.em.fork().count(Session, {})).to.equal(1);
        } finally {
          await check.close();
        }
      } finally {
        await other.auth.close();
      }
    });

    it('works on every instance sharing the database, and a logout on one holds on the others within a second', async () => {
      const other = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
      try {
        const clock = holdFeedClock(other);
        const cookie = sessionCookieFrom(await login(t))!;
        await request(other.app).get('/service-auth/me').set('Cookie', cookie).expect(200);
        await request(t.app).post('/service-auth/logout').set('Cookie', cookie).expect(204);
        clock.passInterval();
        await request(other.app).get('/service-auth/me').set('Cookie', cookie).expect(401);
      } finally {
        await other.auth.close();
      }
    });

    it('sees a role granted on another instance within a second', async () => {
      const other = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
      try {
        const clock = holdFeedClock(other);
        const cookie = sessionCookieFrom(await login(t))!;
        expect((await request(other.app).get('/service-auth/me').set('Cookie', cookie)).body.user.roles).to.deep.equal(
          [],
        );
        await t.auth.users.addRole('ada@example.com', 'editor');
        clock.passInterval();
        expect((await request(other.app).get('/service-auth/me').set('Cookie', cookie)).body.user.roles).to.deep.equal([
          'editor',
        ]);
      } finally {
        await other.auth.close();
      }
    });
  });
});
