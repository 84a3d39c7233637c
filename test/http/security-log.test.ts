/**
 * The caller's own security log (CONTRACT-2 §17): `GET /api/security-log` with a session or a
 * token, 50 a page, newest first, and the `/security-log` page; only the caller's records, never
 * a hash.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { pageGet } from '../helpers/forms.js';

describe('the security log', () => {
  let t: TestApp;
  let cookie: string;
  let adaId: number;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    adaId = (await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD })).id;
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    await request(t.app).post('/service-auth/login').send({ email: 'bob@example.com', password: PASSWORD }).expect(200);
    await request(t.app)
      .post('/service-auth/login')
      .set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')
      .send({ email: 'ada@example.com', password: 'Wrong-Guess-Battery-6' })
      .expect(401);
    const login = await request(t.app)
      .post('/service-auth/login')
      .set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(200);
    cookie = sessionCookieFrom(login)!;
    await t.auth.audit.flush();
  });
  afterEach(() => t.auth.close());

  const log = (query = '') => request(t.app).get(`/service-auth/api/security-log${query}`).set('Cookie', cookie);

  it('answers the caller’s own records, newest first, without hashes, with a session or a token', async () => {
    const { body } = await log().expect(200);
    expect(
      body.events.map((event: { type: string; outcome: string }) => `${event.type} ${event.outcome}`),
    ).to.deep.equal(['login failure', 'login success', 'user_created success']);
    expect(body.next).to.equal(null);
    const success = body.events.find(
      (event: { outcome: string; type: string }) => event.outcome === 'success' && event.type === 'login',
    );
    expect(success).to.include({ email: 'ada@example.com', ip: '127.0.0.1', reason: null });
    expect(success.detail).to.have.keys('actor', 'session');
    expect(JSON.stringify(body)).not.to.match(/bob@example\.com|"hash"/);
    const { token } = await t.auth.tokens.create(adaId, { name: 'ci' });
    const withToken = await request(t.app)
      .get('/service-auth/api/security-log')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(withToken.body.events[0].type).to.equal('token_created');
  });

  it('pages back 50 at a time with before/next', async () => {
    for (let i = 0; i < 60; i++)
      t.parts.audit.fail({ type: 'login', userId: adaId, email: 'ada@example.com', reason: 'invalid_credentials' });
    await t.auth.audit.flush();
    const first = (await log().expect(200)).body;
    expect(first.events).to.have.length(50);
    const ids: number[] = first.events.map((event: { id: number }) => event.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => b - a));
    expect(first.next).to.equal(ids[49]);
    const second = (await log(`?before=${first.next}`).expect(200)).body;
    expect(second.events).to.have.length(13);
    expect(second.events[0].id).to.be.below(ids[49]!);
    expect(second.next).to.equal(null);
  });

  it('refuses a before that is not a record id, and a caller without credentials', async () => {
    for (const before of ['0', '-1', 'abc', '1.5', '9'.repeat(20)]) {
      const { body } = await log(`?before=${encodeURIComponent(before)}`).expect(400);
      expect(body).to.include({ code: 'bad_request' });
      expect(body.errors).to.deep.equal([{ field: 'before', message: 'must be a record id: a whole number from 1' }]);
    }
    expect((await request(t.app).get('/service-auth/api/security-log').expect(401)).body.code).to.equal(
      'unauthenticated',
    );
  });

  it('shows the page to a logged-in browser, linking older records, and sends others to log in', async () => {
    const page = await pageGet(t.app, '/security-log').set('Cookie', cookie).expect(200);
    expect(page.text).to.contain('Your security log');
    expect(page.text).to.contain('Refused (invalid_credentials)');
    expect(page.text).to.contain('Firefox on Linux');
    expect(page.text).to.contain('127.0.0.1');
    expect(page.text).not.to.contain('bob@example.com');
    expect(page.text).not.to.contain('rel="next"');
    for (let i = 0; i < 60; i++)
      t.parts.audit.fail({ type: 'login', userId: adaId, email: 'ada@example.com', reason: 'invalid_credentials' });
    await t.auth.audit.flush();
    const full = await pageGet(t.app, '/security-log').set('Cookie', cookie).expect(200);
    const older = /href="\/service-auth\/security-log\?before=(\d+)" rel="next"/.exec(full.text);
    expect(older, 'an Older link').to.not.equal(null);
    await pageGet(t.app, `/security-log?before=${older![1]}`).set('Cookie', cookie).expect(200);
    const away = await pageGet(t.app, '/security-log').set('Sec-Fetch-Mode', 'navigate').expect(303);
    expect(away.headers['location']).to.equal('/service-auth/login?next=%2Fservice-auth%2Fsecurity-log');
  });
});
