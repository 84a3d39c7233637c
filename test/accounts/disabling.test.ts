/** CONTRACT-2 §14.1: disabling and enabling a user. */
import { expect } from 'chai';
import request from 'supertest';
import {
  createAppWithOutbox,
  createTestApp,
  outboxMails,
  PASSWORD,
  temporaryDatabase,
  type AppWithOutbox,
  type TestApp,
} from '../helpers/app.js';
import { instanceOn, member, meWithCookie, meWithToken, within } from './accounts.js';

describe('§14.1 disabling a user', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
  });
  afterEach(() => t.auth.close());

  it("a disabled user's login with the right password is 403 account_disabled; a wrong one stays 401 invalid_credentials, after the same work", async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.users.disable('ada@example.com');
    const calls = t.parts.hasher.calls;
    const before = { ...calls };
    const right = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(403);
    const afterRight = { ...calls };
    const wrong = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    expect(right.body.code).to.equal('account_disabled');
    expect(right.headers['set-cookie']).to.equal(undefined);
    expect(wrong.body.code).to.equal('invalid_credentials');
    expect({ hash: afterRight.hash - before.hash, verify: afterRight.verify - before.verify }).to.deep.equal({
      hash: calls.hash - afterRight.hash,
      verify: calls.verify - afterRight.verify,
    });
  });

  it("refuses a disabled user's sessions (401 unauthenticated) and tokens (401 invalid_token) at once on the instance that disabled them", async () => {
    const ada = await member(t, 'ada@example.com');
    await meWithCookie(t, ada.cookie).expect(200);
    await meWithToken(t, ada.token).expect(200);
    await t.auth.users.disable(ada.email);
    expect((await meWithCookie(t, ada.cookie).expect(401)).body.code).to.equal('unauthenticated');
    const refused = await meWithToken(t, ada.token).expect(401);
    expect(refused.body.code).to.equal('invalid_token');
    expect(refused.headers['www-authenticate']).to.equal('Bearer realm="service-auth", error="invalid_token"');
  });

  it('counts a disabled user as nobody in auth.currentUser, and leaves other users alone', async () => {
    const ada = await member(t, 'ada@example.com');
    const bob = await member(t, 'bob@example.com');
    await t.auth.users.disable(ada.email);
    const seen: (string | null)[] = [];
    t.app.get('/who', async (req, res) => {
      seen.push((await t.auth.currentUser(req))?.email ?? null);
      res.end();
    });
    await request(t.app).get('/who').set('Authorization', `Bearer ${ada.token}`);
    await request(t.app).get('/who').set('Cookie', ada.cookie);
    await request(t.app).get('/who').set('Cookie', bob.cookie);
    expect(seen).to.deep.equal([null, null, 'bob@example.com']);
    await meWithToken(t, bob.token).expect(200);
  });

  it('enabling the user again accepts their tokens; their sessions ended with the disabling', async () => {
    const ada = await member(t, 'ada@example.com');
    await t.auth.users.disable(ada.email);
    const enabled = await t.auth.users.enable(ada.email);
    expect(enabled.disabled).to.equal(false);
    await meWithToken(t, ada.token).expect(200);
    await meWithCookie(t, ada.cookie).expect(401);
    await request(t.app).post('/service-auth/login').send({ email: ada.email, password: PASSWORD }).expect(200);
  });

  it('shows disabled: true on the user object, and fires user_disabled and user_enabled once per change', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const fired: string[] = [];
    t.auth.on('user_disabled', (user) => void fired.push(`disabled ${user.email} ${user.disabled}`));
    t.auth.on('user_enabled', (user) => void fired.push(`enabled ${user.email} ${user.disabled}`));
    expect((await t.auth.users.disable('ada@example.com')).toJSON()).to.include({
      disabled: true,
      email_confirmed: true,
      mfa_enabled: false,
    });
    await t.auth.users.disable('ada@example.com'); // already disabled: no change, no event
    await t.auth.users.enable('ada@example.com');
    await t.auth.users.enable('ada@example.com');
    expect(fired).to.deep.equal(['disabled ada@example.com true', 'enabled ada@example.com false']);
  });

  it('refuses an unknown user with 404 not_found, changing nothing', async () => {
    const error = await t.auth.users.disable('nobody@example.com').catch((e: unknown) => e);
    expect(error).to.include({ code: 'not_found' });
  });
});

describe('§14.1 /forgot for a disabled user', () => {
  let t: AppWithOutbox;
  beforeEach(async () => {
    t = await createAppWithOutbox();
  });
  afterEach(() => t.close());

  it('answers 202 and sends nothing', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    await t.auth.users.disable('ada@example.com');
    await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    await request(t.app).post('/service-auth/forgot').send({ email: 'bob@example.com' }).expect(202);
    await t.parts.background.flush();
    expect((await outboxMails(t.outbox)).map((mail) => mail.to)).to.deep.equal(['bob@example.com']);
  });
});

describe('§14.1 disabling, seen by another instance on the same database', () => {
  it("a disabled user's session and token are refused by another instance within 1 s", async () => {
    const database = await temporaryDatabase();
    const a = await instanceOn(database.url);
    const b = await instanceOn(database.url);
    try {
      const ada = await member(a, 'ada@example.com');
      // B has both credentials in memory: the refusal cannot come from a cold cache.
      await meWithCookie(b, ada.cookie).expect(200);
      await meWithToken(b, ada.token).expect(200);
      await a.auth.users.disable(ada.email);
      const token = await within(1000, async () => (await meWithToken(b, ada.token)).status === 401);
      const session = await within(1000, async () => (await meWithCookie(b, ada.cookie)).status === 401);
      expect({ token: token !== undefined, session: session !== undefined }).to.deep.equal({
        token: true,
        session: true,
      });
    } finally {
      await a.auth.close();
      await b.auth.close();
      await database.remove();
    }
  });
});
