import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import { ApiToken, PasswordReset } from '../../src/storage/entities/index.js';
import {
  createTestApp,
  openDatabase,
  outboxMails,
  PASSWORD,
  resetTokenFrom,
  sessionCookieFrom,
  temporaryDatabase,
  temporaryDirectory,
  type TestApp,
} from '../helpers/app.js';

const NEW_PASSWORD = 'Brand-New-Password-42';

describe('password reset', () => {
  let outbox: string;
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;

  beforeEach(async () => {
    outbox = await temporaryDirectory();
    database = await temporaryDatabase();
    t = await createTestApp({
      SERVICE_AUTH_DATABASE_URL: database.url,
      SERVICE_AUTH_MAIL_OUTBOX: outbox,
      SERVICE_AUTH_PUBLIC_URL: 'https://app.example.com',
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
    });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  afterEach(async () => {
    await t.auth.close();
    await database.remove();
    await rm(outbox, { recursive: true, force: true });
  });

  const forgot = (email = 'ada@example.com') => request(t.app).post('/service-auth/forgot').send({ email }).expect(202);
  const requestToken = async (count = 1) => {
    await forgot();
    const mails = await outboxMails(outbox, count);
    return resetTokenFrom(mails[count - 1]!);
  };
  const reset = (token: string, password = NEW_PASSWORD) =>
    request(t.app).post('/service-auth/reset').send({ token, password });

  describe('POST /forgot', () => {
    it('answers 202 with the same body whether or not the email has an account', async () => {
      const known = await forgot('ada@example.com');
      const unknown = await forgot('nobody@example.com');
      expect(known.body).to.deep.equal(unknown.body);
      expect(known.body.message).to.be.a('string');
      await t.auth.close(); // waits for mail in flight
      expect(await outboxMails(outbox, 1)).to.have.length(1);
    });

    it('mails a link to SERVICE_AUTH_PUBLIC_URL, whatever Host or X-Forwarded-Host the request carried', async () => {
      await request(t.app)
        .post('/service-auth/forgot')
        .set('Host', 'evil.example')
        .set('X-Forwarded-Host', 'evil.example')
        .send({ email: 'ADA@example.com' })
        .expect(202);
      const [mail] = await outboxMails(outbox);
      expect(mail!.to).to.equal('ada@example.com');
      expect(mail!.subject).to.equal('Reset your password');
      expect(mail!.text).to.match(/https:\/\/app\.example\.com\/service-auth\/reset\?token=[A-Za-z0-9_-]{43}\n/);
      expect(mail!.text + mail!.html).not.to.contain('evil.example');
      expect(mail!.html).to.contain('https://app.example.com/service-auth/reset?token=');
    });

    it('stores only the SHA-256 of the 32-byte token, with an expiry', async () => {
      const token = await requestToken();
      expect(Buffer.from(token, 'base64url')).to.have.length(32);
      const orm = await openDatabase(database.url);
      try {
        const rows = await orm.em.fork().find(PasswordReset, {});
        expect(rows.map((r) => r.tokenHash)).to.deep.equal([createHash('sha256').update(token).digest('hex')]);
        expect(rows[0]!.expiresAt.getTime() - Date.now()).to.be.within(3590_000, 3600_000);
      } finally {
        await orm.close();
      }
    });

    it('answers 422 for something that is not an email, and 400 without one', async () => {
      expect(
        (await request(t.app).post('/service-auth/forgot').send({ email: 'nope' }).expect(422)).body.code,
      ).to.equal('invalid_email');
      expect((await request(t.app).post('/service-auth/forgot').send({}).expect(400)).body.code).to.equal(
        'bad_request',
      );
    });
  });

  describe('POST /reset', () => {
    it('sets the new password, uses up the token, and answers 200 { message }', async () => {
      const token = await requestToken();
      const response = await reset(token).expect(200);
      expect(response.body.message).to.be.a('string');
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: NEW_PASSWORD })
        .expect(200);
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(401);
    });

    it('refuses a used token: reset tokens are single use', async () => {
      const token = await requestToken();
      await reset(token).expect(200);
      const again = await reset(token, 'Yet-Another-Password-1').expect(400);
      expect(again.body.code).to.equal('invalid_reset_token');
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: NEW_PASSWORD })
        .expect(200);
    });

    it('refuses an unknown token', async () => {
      const response = await reset('x'.repeat(43)).expect(400);
      expect(response.body.code).to.equal('invalid_reset_token');
    });

    it('refuses an expired token', async () => {
      const token = await requestToken();
      const orm = await openDatabase(database.url);
      try {
        await orm.em.fork().nativeUpdate(PasswordReset, {}, { expiresAt: new Date(Date.now() - 1000) });
      } finally {
        await orm.close();
      }
      expect((await reset(token).expect(400)).body.code).to.equal('invalid_reset_token');
    });

    it('refuses a token made useless by a newer request', async () => {
      const older = await requestToken(1);
      const newer = await requestToken(2);
      expect(older).not.to.equal(newer);
      expect((await reset(older).expect(400)).body.code).to.equal('invalid_reset_token');
      await reset(newer).expect(200);
    });

    it('refuses a token made useless by a password change', async () => {
      const token = await requestToken();
      await t.auth.users.setPassword('ada@example.com', 'Changed-Elsewhere-7');
      expect((await reset(token).expect(400)).body.code).to.equal('invalid_reset_token');
    });

    it('of two concurrent resets with one token, exactly one succeeds', async () => {
      const token = await requestToken();
      const [first, second] = await Promise.all([
        reset(token, 'First-Racer-Password-1'),
        reset(token, 'Second-Racer-Password-2'),
      ]);
      expect([first.status, second.status].sort()).to.deep.equal([200, 400]);
      const winner = first.status === 200 ? 'First-Racer-Password-1' : 'Second-Racer-Password-2';
      await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: winner }).expect(200);
    });

    it('answers 422 with every failed rule and leaves the token usable', async () => {
      const token = await requestToken();
      const weak = await reset(token, 'weak').expect(422);
      expect(weak.body.code).to.equal('password_rules');
      expect(weak.body.errors.map((e: { rule: string }) => e.rule)).to.deep.equal([
        'min_length',
        'uppercase',
        'digit',
        'special',
      ]);
      await reset(token).expect(200);
    });

    it('ends every session of the user', async () => {
      const first = sessionCookieFrom(
        await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
      )!;
      const second = sessionCookieFrom(
        await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
      )!;
      await request(t.app).get('/service-auth/me').set('Cookie', first).expect(200);
      await reset(await requestToken()).expect(200);
      await request(t.app).get('/service-auth/me').set('Cookie', first).expect(401);
      await request(t.app).get('/service-auth/me').set('Cookie', second).expect(401);
    });

    it("revokes the user's API tokens, unless SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET is false", async () => {
      const orm = await openDatabase(database.url);
      const addToken = async (publicId: string) => {
        const em = orm.em.fork();
        const user = await t.auth.users.findByEmail('ada@example.com');
        em.create(ApiToken, {
          publicId,
          user: user!.id,
          name: 'ci',
          algorithm: 'sha256',
          hash: publicId.padEnd(64, '0'),
          scopes: [],
        });
        await em.flush();
      };
      try {
        await addToken('tokenone');
        await reset(await requestToken(1)).expect(200);
        expect((await orm.em.fork().findOneOrFail(ApiToken, { publicId: 'tokenone' })).revokedAt).to.be.instanceOf(
          Date,
        );

        const keeping = await createTestApp({
          SERVICE_AUTH_DATABASE_URL: database.url,
          SERVICE_AUTH_MAIL_OUTBOX: outbox,
          SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET: 'False',
        });
        try {
          await addToken('tokentwo');
          await request(keeping.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
          const token = resetTokenFrom((await outboxMails(outbox, 2))[1]!);
          await request(keeping.app)
            .post('/service-auth/reset')
            .send({ token, password: 'Kept-Tokens-Password-1' })
            .expect(200);
          expect((await orm.em.fork().findOneOrFail(ApiToken, { publicId: 'tokentwo' })).revokedAt).to.equal(null);
        } finally {
          await keeping.auth.close();
        }
      } finally {
        await orm.close();
      }
    });

    it('lists missing fields as 400 bad_request', async () => {
      const response = await request(t.app).post('/service-auth/reset').send({}).expect(400);
      expect(response.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['token', 'password']);
    });
  });

  describe('auth.resetPassword (the operator path)', () => {
    it('sets the password and ends sessions without a token', async () => {
      const cookie = sessionCookieFrom(
        await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }),
      )!;
      await t.auth.resetPassword('ada@example.com', NEW_PASSWORD);
      await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(401);
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: NEW_PASSWORD })
        .expect(200);
    });

    it('applies the password rules and changes nothing on failure', async () => {
      const error = await t.auth.resetPassword('ada@example.com', 'weak').catch((e: unknown) => e);
      expect(error).to.include({ code: 'password_rules' });
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200);
    });
  });
});
