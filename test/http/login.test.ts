import { expect } from 'chai';
import argon2 from 'argon2';
import request from 'supertest';
import { User } from '../../src/storage/entities/index.js';
import {
  createTestApp,
  openDatabase,
  PASSWORD,
  sessionCookieFrom,
  temporaryDatabase,
  type TestApp,
} from '../helpers/app.js';

describe('POST /login', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['admin'] });
  });
  afterEach(() => t.auth.close());

  it('answers 200 { user } with a session cookie, for JSON and form bodies', async () => {
    const json = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ADA@example.com ', password: PASSWORD })
      .expect(200);
    expect(json.body.user).to.include({ email: 'ada@example.com' });
    expect(json.body.user.roles).to.deep.equal(['admin']);
    expect(sessionCookieFrom(json)).to.match(/^service_auth_session=[A-Za-z0-9_-]{43}$/);

    const form = await request(t.app)
      .post('/service-auth/login')
      .type('form')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(200);
    expect(sessionCookieFrom(form)).to.match(/^service_auth_session=/);
  });

  it('answers the same 401 for an unknown email and for a wrong password', async () => {
    const wrongPassword = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    const unknownEmail = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'nobody@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    expect(wrongPassword.body).to.deep.equal(unknownEmail.body);
    expect(wrongPassword.body.code).to.equal('invalid_credentials');
    expect(wrongPassword.headers['set-cookie']).to.equal(undefined);
    expect(unknownEmail.headers['set-cookie']).to.equal(undefined);
  });

  it('does the same hashing work for an unknown email as for a wrong password (no user enumeration)', async () => {
    const calls = t.parts.hasher.calls;
    const before = { ...calls };
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    const wrongPassword = { hash: calls.hash - before.hash, verify: calls.verify - before.verify };
    const middle = { ...calls };
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'nobody@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    const unknownEmail = { hash: calls.hash - middle.hash, verify: calls.verify - middle.verify };
    expect(wrongPassword).to.deep.equal({ hash: 0, verify: 1 });
    expect(unknownEmail).to.deep.equal(wrongPassword);
  });

  it('issues a new session id at every login, and the one sent before no longer works', async () => {
    const first = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
    const second = await request(t.app)
      .post('/service-auth/login')
      .set('Cookie', first)
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(200);
    const renewed = sessionCookieFrom(second)!;
    expect(renewed).not.to.equal(first);
    await request(t.app).get('/service-auth/me').set('Cookie', renewed).expect(200);
    await request(t.app).get('/service-auth/me').set('Cookie', first).expect(401);
  });

  it('ignores a session id planted before login (session fixation)', async () => {
    const planted = 'service_auth_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const response = await request(t.app)
      .post('/service-auth/login')
      .set('Cookie', planted)
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(200);
    expect(sessionCookieFrom(response)).not.to.equal(planted);
    await request(t.app).get('/service-auth/me').set('Cookie', planted).expect(401);
  });

  it('lists missing fields as 400 bad_request without hashing anything', async () => {
    const before = t.parts.hasher.calls.verify;
    const response = await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com' }).expect(400);
    expect(response.body.errors).to.deep.equal([{ field: 'password', message: 'is required' }]);
    expect(t.parts.hasher.calls.verify).to.equal(before);
  });

  it('upgrades a hash made with weaker parameters at the next successful login', async () => {
    const database = await temporaryDatabase();
    const app = await createTestApp({
      SERVICE_AUTH_DATABASE_URL: database.url,
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_INSECURE_FAST_HASHING: false,
    });
    const orm = await openDatabase(database.url);
    try {
      const user = await app.auth.users.create({ email: 'old@example.com', password: PASSWORD });
      const weak = await argon2.hash(PASSWORD, {
        type: argon2.argon2id,
        memoryCost: 4096,
        timeCost: 1,
        parallelism: 1,
      });
      await orm.em.fork().nativeUpdate(User, { id: user.id }, { passwordHash: weak });

      await request(app.app)
        .post('/service-auth/login')
        .send({ email: 'old@example.com', password: PASSWORD })
        .expect(200);

      const stored = await orm.em.fork().findOneOrFail(User, { id: user.id });
      expect(stored.passwordHash).to.match(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
      expect(await argon2.verify(stored.passwordHash, PASSWORD)).to.equal(true);
    } finally {
      await orm.close();
      await app.auth.close();
      await database.remove();
    }
  });
});
