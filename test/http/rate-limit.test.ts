import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import {
  createTestApp,
  outboxMails,
  PASSWORD,
  sessionCookieFrom,
  temporaryDirectory,
  type TestApp,
} from '../helpers/app.js';

const register = (t: TestApp, n: number, ip?: string) => {
  const call = request(t.app).post('/service-auth/register');
  if (ip) call.set('X-Forwarded-For', ip);
  return call.send({ email: `user${n}@example.com`, password: PASSWORD });
};
const login = (t: TestApp, email: string, password: string, ip?: string) => {
  const call = request(t.app).post('/service-auth/login');
  if (ip) call.set('X-Forwarded-For', ip);
  return call.send({ email, password });
};

describe('rate limiting', () => {
  let t: TestApp;
  afterEach(() => t?.auth.close());

  it('puts RateLimit-Limit, -Remaining and -Reset on every counted response', async () => {
    t = await createTestApp();
    const first = await register(t, 1).expect(201);
    expect(first.headers['ratelimit-limit']).to.equal('3');
    expect(first.headers['ratelimit-remaining']).to.equal('2');
    expect(Number(first.headers['ratelimit-reset'])).to.be.within(1, 60);
    const failed = await request(t.app).post('/service-auth/register').send({ email: 'bad' }).expect(400);
    expect(failed.headers['ratelimit-remaining']).to.equal('1');
  });

  it('refuses the 4th registration in a minute with 429 rate_limited and Retry-After, creating no user and firing no event', async () => {
    t = await createTestApp();
    const events: string[] = [];
    t.auth.on('user_registered', (user) => void events.push(user.email));
    for (const n of [1, 2, 3]) await register(t, n).expect(201);
    const refused = await register(t, 4).expect(429);
    expect(refused.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(refused.body.code).to.equal('rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect(refused.headers['ratelimit-remaining']).to.equal('0');
    expect(refused.headers['set-cookie']).to.equal(undefined);
    expect(await t.auth.users.findByEmail('user4@example.com')).to.equal(null);
    expect(events).to.deep.equal(['user1@example.com', 'user2@example.com', 'user3@example.com']);
  });

  it('refuses the 11th login in a minute from one client', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '100 per minute' });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    for (let i = 0; i < 10; i++) await login(t, 'ada@example.com', PASSWORD).expect(200);
    expect((await login(t, 'ada@example.com', PASSWORD).expect(429)).body.code).to.equal('rate_limited');
  });

  it('refuses the 4th reset request, sending no mail', async () => {
    const outbox = await temporaryDirectory();
    try {
      t = await createTestApp({ SERVICE_AUTH_MAIL_OUTBOX: outbox });
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      for (let i = 0; i < 3; i++)
        await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
      await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(429);
      await t.auth.close();
      expect(await outboxMails(outbox, 3)).to.have.length(3);
    } finally {
      await rm(outbox, { recursive: true, force: true });
    }
  });

  it('refuses the 4th password reset attempt', async () => {
    t = await createTestApp();
    for (let i = 0; i < 3; i++)
      await request(t.app).post('/service-auth/reset').send({ token: 'x', password: PASSWORD }).expect(400);
    await request(t.app).post('/service-auth/reset').send({ token: 'x', password: PASSWORD }).expect(429);
  });

  it('uses SERVICE_AUTH_RATE_LIMIT for endpoints without their own key', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT: '2 per minute', SERVICE_AUTH_RATE_LIMIT_LOGIN: '5 per minute' });
    for (const n of [1, 2]) await register(t, n).expect(201);
    await register(t, 3).expect(429);
    const loginResponse = await login(t, 'user1@example.com', PASSWORD).expect(200);
    expect(loginResponse.headers['ratelimit-limit']).to.equal('5');
  });

  it('limits the tokens each user creates (each costs a key derivation), from the API and the page alike, not from code', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_TOKEN_CREATION: '3 per minute', 'trust proxy': true });
    for (const email of ['ada@example.com', 'bob@example.com'])
      await t.auth.users.create({ email, password: PASSWORD });
    const session = async (email: string) => sessionCookieFrom(await login(t, email, PASSWORD).expect(200))!;
    const ada = await session('ada@example.com');
    const create = (cookie: string, ip: string) =>
      request(t.app)
        .post('/service-auth/api/tokens')
        .set('Cookie', cookie)
        .set('X-Forwarded-For', ip)
        .send({ name: 'ci' });
    // A token's requests are refused before they count: a leaked token cannot use up ada's creations.
    const { token } = await t.auth.tokens.create('ada@example.com', { name: 'from code' });
    for (let i = 0; i < 4; i++) {
      const refused = await request(t.app)
        .post('/service-auth/api/tokens')
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'minted' })
        .expect(403);
      expect([refused.body.code, refused.headers['ratelimit-remaining']]).to.deep.equal([
        'session_required',
        undefined,
      ]);
    }
    const first = await create(ada, '203.0.113.1').expect(201);
    expect([first.headers['ratelimit-limit'], first.headers['ratelimit-remaining']]).to.deep.equal(['3', '2']);
    await create(ada, '203.0.113.2').expect(201);
    // From the tokens page's form, the same account's count.
    await request(t.app)
      .post('/service-auth/api/tokens')
      .set('Cookie', ada)
      .set('Accept', 'text/html')
      .set('Sec-Fetch-Site', 'same-origin')
      .type('form')
      .send({ name: 'page' })
      .expect(201);
    const refused = await create(ada, '203.0.113.3').expect(429);
    expect(refused.body.code).to.equal('rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    const page = await request(t.app)
      .post('/service-auth/api/tokens')
      .set('Cookie', ada)
      .set('Accept', 'text/html')
      .set('Sec-Fetch-Site', 'same-origin')
      .type('form')
      .send({ name: 'page' })
      .expect(429);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    expect((await t.auth.tokens.list({ user: 'ada@example.com' })).length, 'nothing made past the limit').to.equal(4);
    await create(await session('bob@example.com'), '203.0.113.3').expect(201);
    await t.auth.tokens.create('ada@example.com', { name: 'from code, past the limit' });
  });

  describe('who counts as a client', () => {
    it('ignores a forged X-Forwarded-For unless the application trusts a proxy', async () => {
      t = await createTestApp();
      for (const n of [1, 2, 3]) await register(t, n, `203.0.113.${n}`).expect(201);
      await register(t, 4, '203.0.113.99').expect(429);
    });

    it("counts per client IP as Express's trust proxy setting defines it", async () => {
      t = await createTestApp({ 'trust proxy': true });
      for (const n of [1, 2, 3]) await register(t, n, '203.0.113.1').expect(201);
      await register(t, 4, '203.0.113.1').expect(429);
      await register(t, 5, '203.0.113.2').expect(201);
    });

    it('counts IPv6 clients per /64', async () => {
      t = await createTestApp({ 'trust proxy': true });
      await register(t, 1, '2001:db8:aaaa:1::1').expect(201);
      await register(t, 2, '2001:db8:aaaa:1:ffff::2').expect(201);
      await register(t, 3, '2001:db8:aaaa:1:1234:5678:9abc:def0').expect(201);
      await register(t, 4, '2001:db8:aaaa:1::99').expect(429);
      await register(t, 5, '2001:db8:aaaa:2::1').expect(201);
      await register(t, 6, '::1').expect(201);
      // The audit log names the client as the limiter does: the block, in CIDR notation.
      await t.auth.audit.flush();
      const records = await t.auth.audit.query({ type: 'user_registered', limit: 2 });
      expect(records.map((record) => record.ip)).to.deep.equal(['::/64', '2001:db8:aaaa:2::/64']);
    });
  });

  describe('failed logins per (email, client) pair', () => {
    beforeEach(async () => {
      t = await createTestApp({ 'trust proxy': true, SERVICE_AUTH_RATE_LIMIT_LOGIN: '100 per minute' });
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    });

    it('refuses the pair after 5 failures, even with the right password, until the window ends', async () => {
      for (let i = 0; i < 5; i++) await login(t, 'ada@example.com', 'Wrong-Password-1', '198.51.100.7').expect(401);
      const refused = await login(t, 'ADA@example.com', PASSWORD, '198.51.100.7').expect(429);
      expect(refused.body.code).to.equal('rate_limited');
      expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    });

    it('does not hash a refused attempt', async () => {
      for (let i = 0; i < 5; i++) await login(t, 'ada@example.com', 'Wrong-Password-1', '198.51.100.7').expect(401);
      const before = t.parts.hasher.calls.verify;
      await login(t, 'ada@example.com', PASSWORD, '198.51.100.7').expect(429);
      expect(t.parts.hasher.calls.verify).to.equal(before);
    });

    it('lets the same client log in to other accounts, and the owner log in from elsewhere', async () => {
      for (let i = 0; i < 5; i++) await login(t, 'ada@example.com', 'Wrong-Password-1', '198.51.100.7').expect(401);
      await login(t, 'ada@example.com', PASSWORD, '198.51.100.7').expect(429);
      await login(t, 'bob@example.com', PASSWORD, '198.51.100.7').expect(200);
      await login(t, 'ada@example.com', PASSWORD, '192.0.2.44').expect(200);
    });

    it('holds against guesses sent all at once: each is counted before its password is checked', async () => {
      const before = t.parts.hasher.calls.verify;
      const responses = await Promise.all(
        Array.from({ length: 30 }, () => login(t, 'ada@example.com', 'Wrong-Password-1', '198.51.100.7')),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).to.have.length(5);
      expect(statuses.filter((s) => s === 429)).to.have.length(25);
      expect(t.parts.hasher.calls.verify - before).to.equal(5);
    });

    it('clears the failures of a pair after a successful login', async () => {
      for (let i = 0; i < 4; i++) await login(t, 'ada@example.com', 'Wrong-Password-1', '198.51.100.7').expect(401);
      await login(t, 'ada@example.com', PASSWORD, '198.51.100.7').expect(200);
      for (let i = 0; i < 4; i++) await login(t, 'ada@example.com', 'Wrong-Password-1', '198.51.100.7').expect(401);
      await login(t, 'ada@example.com', PASSWORD, '198.51.100.7').expect(200);
    });
  });

  it('with SERVICE_AUTH_RATE_LIMIT_ENABLED false, has no limits and no headers', async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: 'False' });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    for (let n = 1; n <= 6; n++) {
      const response = await register(t, n).expect(201);
      expect(response.headers['ratelimit-limit']).to.equal(undefined);
      expect(response.headers['ratelimit-remaining']).to.equal(undefined);
    }
    for (let i = 0; i < 8; i++) await login(t, 'ada@example.com', 'Wrong-Password-1').expect(401);
    await login(t, 'ada@example.com', PASSWORD).expect(200);
  });
});
