/**
 * A second factor with an authenticator app (CONTRACT-2 §15.1): RFC 6238's own vectors; setting it
 * up over HTTP; the two-step login with a single-use ticket; codes and recovery codes accepted
 * once; five wrong codes end the ticket; wrong codes count against the login-failure limit; the
 * secret sealed at rest with SERVICE_AUTH_SECRET.
 */
import { expect } from 'chai';
import { Secret } from 'otpauth';
import request from 'supertest';
import { matchingStep, totpCode } from '../../src/mfa/totp.js';
import { AuditEvent, RecoveryCode, TotpFactor } from '../../src/storage/entities/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, temporaryDatabase, type TestApp } from '../helpers/app.js';

const RFC_SECRET = Secret.fromLatin1('12345678901234567890').base32;
/** RFC 6238 appendix B, SHA-1: time in seconds and the 8-digit code; ours are its last 6 digits. */
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('RFC 6238 (TOTP)', () => {
  it('gives the RFC’s codes (SHA-1, 30-second steps), as 6 digits', () => {
    for (const [seconds, code] of RFC_VECTORS)
      expect(totpCode(RFC_SECRET, seconds * 1000), `T = ${seconds}`).to.equal(code.slice(2));
  });

  it('accepts a code one step either way, and names its step', () => {
    const now = 1111111111 * 1000;
    const step = Math.floor(now / 30_000);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now), now)).to.equal(step);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now - 30_000), now)).to.equal(step - 1);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now + 30_000), now)).to.equal(step + 1);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now + 60_000), now)).to.equal(null);
    for (const bad of ['', '12345', '1234567', 'abcdef', ' 123456'])
      expect(matchingStep(RFC_SECRET, bad, now)).to.equal(null);
  });
});

describe('§15.1 TOTP and recovery codes over HTTP', () => {
  let t: TestApp;
  let cookie: string;
  afterEach(() => t.auth.close());

  async function start(settings: Record<string, unknown> = {}) {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, ...settings });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
  }
  const as = (test: request.Test) => test.set('Cookie', cookie);
  const login = () => request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD });
  const secondStep = (body: Record<string, string>) => request(t.app).post('/service-auth/login/mfa').send(body);

  /** Sets it up and confirms it; returns the secret and the recovery codes. */
  async function enrol(): Promise<{ secret: string; codes: string[] }> {
    const setup = (await as(request(t.app).post('/service-auth/api/mfa/totp')).expect(200)).body;
    expect(setup.otpauth_url).to.match(/^otpauth:\/\/totp\/.*secret=[A-Z2-7]+.*algorithm=SHA1.*digits=6.*period=30/);
    expect(setup.qr_svg).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const codes = (
      await as(request(t.app).post('/service-auth/api/mfa/totp/confirm'))
        .send({ code: totpCode(setup.secret, Date.now()) })
        .expect(200)
    ).body.recovery_codes;
    return { secret: setup.secret, codes };
  }

  it('is pending until a code confirms it; then ten recovery codes, once, and mfa_enabled', async () => {
    await start();
    const setup = (await as(request(t.app).post('/service-auth/api/mfa/totp')).expect(200)).body;
    expect((await as(request(t.app).get('/service-auth/api/mfa')).expect(200)).body).to.deep.equal({
      totp: 'pending',
      recovery_codes_left: 0,
    });
    await login().expect(200); // pending: the password alone still logs in
    const wrong = await as(request(t.app).post('/service-auth/api/mfa/totp/confirm'))
      .send({ code: '000000' })
      .expect(401);
    expect(wrong.body.code).to.equal('invalid_code');
    const { body } = await as(request(t.app).post('/service-auth/api/mfa/totp/confirm'))
      .send({ code: totpCode(setup.secret, Date.now()) })
      .expect(200);
    expect(body.recovery_codes).to.have.length(10);
    expect(new Set(body.recovery_codes).size).to.equal(10);
    for (const code of body.recovery_codes) expect(code).to.match(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    expect((await as(request(t.app).get('/service-auth/me')).expect(200)).body.user.mfa_enabled).to.equal(true);
    expect((await as(request(t.app).get('/service-auth/api/mfa')).expect(200)).body).to.deep.equal({
      totp: 'enabled',
      recovery_codes_left: 10,
    });
    expect((await as(request(t.app).post('/service-auth/api/mfa/totp')).expect(409)).body.code).to.equal(
      'mfa_already_enabled',
    );
    // Stored hashed: no code, and not the secret, in the tables.
    const em = (await t.parts.storage.em()).fork();
    const stored = JSON.stringify([
      await em.find(RecoveryCode, {}),
      await em.find(TotpFactor, {}),
      await em.find(AuditEvent, {}),
    ]);
    for (const code of body.recovery_codes) expect(stored).not.to.contain(code.replace(/-/g, ''));
    expect(stored).to.contain(`plain:${setup.secret}`); // without SERVICE_AUTH_SECRET, as the docs say
  });

  it('takes two steps to log in: the password earns a single-use ticket, a code the session', async () => {
    await start();
    const { secret } = await enrol();
    const first = await login().expect(401);
    expect(first.body.code).to.equal('mfa_required');
    expect(first.body.ticket).to.be.a('string');
    expect(first.headers['set-cookie'] ?? []).to.deep.equal([]);
    const wrong = await secondStep({ ticket: first.body.ticket, code: '000000' }).expect(401);
    expect(wrong.body.code).to.equal('invalid_code');
    const code = totpCode(secret, Date.now() + 30_000); // the next step: the enrolment used this one
    const done = await secondStep({ ticket: first.body.ticket, code }).expect(200);
    expect(done.body.user).to.include({ email: 'ada@example.com', mfa_enabled: true });
    const session = sessionCookieFrom(done)!;
    await request(t.app).get('/service-auth/me').set('Cookie', session).expect(200);
    // The ticket is used up; the code too, even with a new ticket.
    expect((await secondStep({ ticket: first.body.ticket, code }).expect(401)).body.code).to.equal('invalid_ticket');
    const again = (await login().expect(401)).body.ticket;
    expect((await secondStep({ ticket: again, code }).expect(401)).body.code).to.equal('invalid_code');
    expect((await secondStep({ ticket: again }).expect(400)).body.errors).to.deep.equal([
      { field: 'code', message: 'give one of code, recovery_code or passkey' },
    ]);
  });

  it('accepts each recovery code once, and ends a ticket at its fifth wrong code', async () => {
    await start();
    const { codes } = await enrol();
    const ticket = (await login().expect(401)).body.ticket;
    await secondStep({ ticket, recovery_code: codes[0]!.toUpperCase() }).expect(200);
    const next = (await login().expect(401)).body.ticket;
    expect((await secondStep({ ticket: next, recovery_code: codes[0]! }).expect(401)).body.code).to.equal(
      'invalid_code',
    );
    for (let i = 0; i < 4; i++) await secondStep({ ticket: next, code: '000000' }).expect(401);
    expect(
      (await secondStep({ ticket: next, recovery_code: codes[1]! }).expect(401)).body.code,
      'ended by five wrong codes',
    ).to.equal('invalid_ticket');
    expect((await as(request(t.app).get('/service-auth/api/mfa')).expect(200)).body.recovery_codes_left).to.equal(9);
    await t.auth.audit.flush();
    const types = (await t.auth.audit.query({ limit: 100 })).map((record) => `${record.type} ${record.outcome}`);
    expect(types).to.include.members(['mfa_enabled success', 'recovery_code_used success', 'login failure']);
  });

  it('checks at most five codes of a ticket, even sent at once', async () => {
    await start();
    await enrol();
    const ticket = (await login().expect(401)).body.ticket;
    const answers = await Promise.all(Array.from({ length: 20 }, () => secondStep({ ticket, code: '000000' })));
    const codes = answers.map((answer) => answer.body.code as string);
    expect(
      codes.filter((code) => code === 'invalid_code'),
      'codes checked',
    ).to.have.length(5);
    expect(codes.filter((code) => code === 'invalid_ticket')).to.have.length(15);
  });

  it('ends the tickets of a password that was changed since', async () => {
    await start();
    const { secret } = await enrol();
    const ticket = (await login().expect(401)).body.ticket;
    await t.auth.users.setPassword('ada@example.com', 'Another-Long-Passphrase-9');
    const answer = await secondStep({ ticket, code: totpCode(secret, Date.now() + 30_000) }).expect(401);
    expect(answer.body.code).to.equal('invalid_ticket');
  });

  it('counts wrong codes against the login-failure limit', async () => {
    await start({ SERVICE_AUTH_RATE_LIMIT_ENABLED: true, SERVICE_AUTH_RATE_LIMIT_LOGIN: '100 per minute' });
    await enrol();
    // The password counts once, then four wrong codes: the account's fifth failure from this client.
    const ticket = (await login().expect(401)).body.ticket;
    for (let i = 0; i < 4; i++) expect((await secondStep({ ticket, code: '000000' })).status).to.equal(401);
    expect((await login()).status, 'logging in again does not clear the wrong codes').to.equal(429);
  });

  it('is removed with the password: logging in takes the password alone again', async () => {
    await start();
    await enrol();
    expect(
      (
        await as(request(t.app).delete('/service-auth/api/mfa/totp'))
          .send({ password: 'Wrong-Guess-Battery-6' })
          .expect(401)
      ).body.code,
    ).to.equal('invalid_credentials');
    await as(request(t.app).delete('/service-auth/api/mfa/totp')).send({ password: PASSWORD }).expect(204);
    await login().expect(200);
    expect((await t.auth.audit.query({ type: 'mfa_disabled' })).length).to.equal(1);
  });

  it('seals the secret with SERVICE_AUTH_SECRET; under another secret, only recovery codes work', async () => {
    const database = await temporaryDatabase();
    try {
      await start({ SERVICE_AUTH_SECRET: 'k'.repeat(40), SERVICE_AUTH_DATABASE_URL: database.url });
      const { secret, codes } = await enrol();
      const [row] = await (await t.parts.storage.em()).fork().find(TotpFactor, {});
      expect(row!.secret).to.match(/^v1:/);
      expect(row!.secret).not.to.contain(secret);
      const ticket = (await login().expect(401)).body.ticket;
      await secondStep({ ticket, code: totpCode(secret, Date.now() + 30_000) }).expect(200);
      await t.auth.close();
      t = await createTestApp({
        SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
        SERVICE_AUTH_SECRET: 'changed'.repeat(6),
        SERVICE_AUTH_DATABASE_URL: database.url,
      });
      const next = (await login().expect(401)).body.ticket;
      expect((await secondStep({ ticket: next, code: totpCode(secret, Date.now()) }).expect(401)).body.code).to.equal(
        'invalid_code',
      );
      await secondStep({ ticket: next, recovery_code: codes[0]! }).expect(200);
    } finally {
      await t.auth.close();
      await database.remove();
    }
  });
});
