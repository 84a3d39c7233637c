/** CONTRACT-2 §14.4: a user's sessions, listed and ended. */
import { expect } from 'chai';
import request from 'supertest';
import { sha256Hex } from '../../src/secrets.js';
import { Session } from '../../src/storage/entities/index.js';
import { createTestApp, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { pageGet } from '../helpers/forms.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { onStatement } from '../helpers/orm.js';
import { instanceOn, login, member, meWithCookie, within } from './accounts.js';

const listSessions = (t: TestApp, cookie: string) =>
  request(t.app).get('/service-auth/api/sessions').set('Cookie', cookie);

describe('§14.4 sessions', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
  });
  afterEach(() => t.auth.close());

  it('GET /api/sessions lists the caller’s own sessions with a public id, created_at, last_seen_at, the login’s user agent and which is current', async () => {
    const ada = await member(t, 'ada@example.com', 'Firefox on the laptop');
    const phone = await login(t, ada.email, undefined, 'Safari on the phone');
    await member(t, 'bob@example.com', "Bob's browser");
    const { sessions } = (await listSessions(t, ada.cookie).expect(200)).body;
    expect(sessions.map((s: { user_agent: string; current: boolean }) => [s.user_agent, s.current])).to.deep.equal([
      ['Firefox on the laptop', true],
      ['Safari on the phone', false],
    ]);
    for (const session of sessions) {
      expect(session.id).to.match(/^[A-Za-z0-9_-]{16}$/);
      expect(Date.parse(session.created_at)).to.be.closeTo(Date.now(), 10_000);
      expect(Date.parse(session.last_seen_at)).to.be.at.least(Date.parse(session.created_at));
    }
    // The public id is neither the cookie's secret nor (a part of) the hash the database keys it by.
    const secrets = [ada.cookie, phone].map((cookie) => cookie.split('=')[1]!);
    for (const secret of secrets) {
      for (const session of sessions) {
        expect(secret).not.to.contain(session.id);
        expect(sha256Hex(secret)).not.to.contain(session.id);
      }
    }
  });

  it('DELETE /api/sessions/<id> ends one session at once (204); another user’s or an unknown id is 404 not_found', async () => {
    const ada = await member(t, 'ada@example.com');
    const phone = await login(t, ada.email);
    const bob = await member(t, 'bob@example.com');
    const [, phoneSession] = (await listSessions(t, ada.cookie)).body.sessions;
    const [bobSession] = (await listSessions(t, bob.cookie)).body.sessions;
    await meWithCookie(t, phone).expect(200);
    expect(
      (await request(t.app).delete(`/service-auth/api/sessions/${bobSession.id}`).set('Cookie', ada.cookie).expect(404))
        .body.code,
    ).to.equal('not_found');
    await request(t.app).delete('/service-auth/api/sessions/AAAAAAAAAAAAAAAA').set('Cookie', ada.cookie).expect(404);
    await request(t.app).delete('/service-auth/api/sessions/not-an-id').set('Cookie', ada.cookie).expect(404);
    await meWithCookie(t, bob.cookie).expect(200);
    await request(t.app).delete(`/service-auth/api/sessions/${phoneSession.id}`).set('Cookie', ada.cookie).expect(204);
    await meWithCookie(t, phone).expect(401);
    await meWithCookie(t, ada.cookie).expect(200);
  });

  it('DELETE /api/sessions/<id> of the current session logs the request out, clearing the cookie', async () => {
    const ada = await member(t, 'ada@example.com');
    const [current] = (await listSessions(t, ada.cookie)).body.sessions;
    const response = await request(t.app)
      .delete(`/service-auth/api/sessions/${current.id}`)
      .set('Cookie', ada.cookie)
      .expect(204);
    expect(String(response.headers['set-cookie'])).to.match(/^service_auth_session=;/);
    await meWithCookie(t, ada.cookie).expect(401);
  });

  it('DELETE /api/sessions ends every session of the caller but the current one, and no one else’s', async () => {
    const ada = await member(t, 'ada@example.com');
    const others = [await login(t, ada.email), await login(t, ada.email)];
    const bob = await member(t, 'bob@example.com');
    await request(t.app).delete('/service-auth/api/sessions').set('Cookie', ada.cookie).expect(204);
    for (const cookie of others) await meWithCookie(t, cookie).expect(401);
    await meWithCookie(t, ada.cookie).expect(200);
    await meWithCookie(t, bob.cookie).expect(200);
    expect((await listSessions(t, ada.cookie)).body.sessions).to.have.length(1);
  });

  it('are managed from a session: a token is 403 session_required; from another site 403 csrf_rejected', async () => {
    const ada = await member(t, 'ada@example.com');
    const byToken = await request(t.app)
      .get('/service-auth/api/sessions')
      .set('Authorization', `Bearer ${ada.token}`)
      .expect(403);
    expect(byToken.body.code).to.equal('session_required');
    await request(t.app).delete('/service-auth/api/sessions').set('Authorization', `Bearer ${ada.token}`).expect(403);
    const crossSite = await request(t.app)
      .delete('/service-auth/api/sessions')
      .set('Cookie', ada.cookie)
      .set('Origin', 'https://evil.example')
      .expect(403);
    expect(crossSite.body.code).to.equal('csrf_rejected');
  });

  it('keeps last_seen_at within a minute without writing it per request', async () => {
    const ada = await member(t, 'ada@example.com');
    const em = await t.parts.storage.em();
    let sessionWrites = 0;
    await onStatement(em, (sql) => {
      if (/^update .service_auth_sessions./i.test(sql)) sessionWrites++;
    });
    for (let i = 0; i < 20; i++) await meWithCookie(t, ada.cookie).expect(200);
    await t.parts.sessions.flush();
    expect(sessionWrites, 'a fresh session is not written at all').to.equal(0);
    // Ten minutes without a request, then one: the next write brings it up to date. (The row is
    // aged in the table, and the change feed told so that the app reads it again.)
    const idHash = sha256Hex(ada.cookie.split('=')[1]!);
    await em.fork().nativeUpdate(Session, { idHash }, { lastSeenAt: new Date(Date.now() - 600_000) });
    await t.parts.storage.changes.note(em.fork(), [ada.id]);
    const caughtUp = await within(2000, async () => {
      await meWithCookie(t, ada.cookie).expect(200);
      await t.parts.sessions.flush();
      const row = await em.fork().findOneOrFail(Session, { idHash });
      return Date.now() - row.lastSeenAt.getTime() < 60_000;
    });
    expect(caughtUp, 'last_seen_at caught up').to.not.equal(undefined);
    expect(sessionWrites).to.be.within(1, 2);
  });

  it('records the login’s User-Agent without control characters, cut to 512 characters', async () => {
    const ada = await member(t, 'ada@example.com', `Evil\tAgent ${'x'.repeat(600)}`);
    const [session] = (await listSessions(t, ada.cookie)).body.sessions;
    expect(session.user_agent)
      .to.match(/^Evil Agent x+$/)
      .and.have.length(512);
  });
});

/** The cap's suite on a database `open` makes (and its `drop` removes). */
const sessionCap = (open: () => Promise<{ url: string; drop(): Promise<void> }>) => () => {
  let t: TestApp;
  let database: { url: string; drop(): Promise<void> };
  beforeEach(async () => {
    database = await open();
    t = await createTestApp({
      SERVICE_AUTH_DATABASE_URL: database.url,
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_MAX_SESSIONS_PER_USER: 3,
    });
  });
  afterEach(async () => {
    await t.auth.close();
    await database.drop();
  });

  it('a login past SERVICE_AUTH_MAX_SESSIONS_PER_USER ends the oldest sessions, and the sessions page says the cap', async () => {
    const ada = await member(t, 'ada@example.com');
    const bob = await member(t, 'bob@example.com');
    const cookies = [ada.cookie];
    for (let i = 0; i < 4; i++) cookies.push(await login(t, ada.email));
    const em = (await t.parts.storage.em()).fork();
    expect(await em.count(Session, { user: ada.id })).to.equal(3);
    expect(await em.count(Session, { user: bob.id })).to.equal(1);
    for (const [i, cookie] of cookies.entries()) await meWithCookie(t, cookie).expect(i < 2 ? 401 : 200);
    await meWithCookie(t, bob.cookie).expect(200);
    await t.auth.audit.flush();
    const ended = await t.auth.audit.query({ userId: ada.id, type: 'session_revoked' });
    expect(ended.map((record) => record.detail)).to.deep.equal([
      { actor: 'http', sessions: 1, limit: 3 },
      { actor: 'http', sessions: 1, limit: 3 },
    ]);
    const page = await pageGet(t.app, '/sessions').set('Cookie', cookies[4]!).expect(200);
    expect(page.text).to.contain('You can be logged in 3 times at most: logging in once more ends the oldest session.');
  });
};

describe(
  '§14.4 sessions per user are capped',
  sessionCap(async () => ({ url: 'sqlite::memory:', drop: async () => undefined })),
);
describePostgres('§14.4 sessions per user are capped', sessionCap(createPostgresDatabase));

describe('§14.4 a session ended here, seen by another instance', () => {
  it('is refused at once on this instance and within 1 second on another', async () => {
    const database = await temporaryDatabase();
    const a = await instanceOn(database.url);
    const b = await instanceOn(database.url);
    try {
      const ada = await member(a, 'ada@example.com');
      const phone = await login(a, ada.email);
      await meWithCookie(b, phone).expect(200); // held in B's memory
      const [, phoneSession] = (await request(a.app).get('/service-auth/api/sessions').set('Cookie', ada.cookie)).body
        .sessions;
      await request(a.app)
        .delete(`/service-auth/api/sessions/${phoneSession.id}`)
        .set('Cookie', ada.cookie)
        .expect(204);
      await meWithCookie(a, phone).expect(401);
      expect(await within(1000, async () => (await meWithCookie(b, phone)).status === 401)).to.not.equal(undefined);
    } finally {
      await a.auth.close();
      await b.auth.close();
      await database.remove();
    }
  });
});
