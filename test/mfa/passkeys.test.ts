/**
 * Passkeys over HTTP (CONTRACT-2 §15.2): the options name this site (SERVICE_AUTH_PUBLIC_URL) as
 * the relying party and carry a fresh challenge; what cannot be verified is 400 `invalid_passkey`
 * and changes nothing; only a session manages passkeys. Registration and sign-in with a real
 * authenticator are tested in Chromium (test/browser/passkeys.test.ts).
 */
import { expect } from 'chai';
import request from 'supertest';
import { totpCode } from '../../src/mfa/totp.js';
import { Passkey, WebauthnChallenge } from '../../src/storage/entities/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { formPost } from '../helpers/forms.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';

describe('§15.2 passkeys over HTTP', () => {
  let t: TestApp;
  let cookie: string;
  beforeEach(async () => {
    t = await createTestApp({
      SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
      SERVICE_AUTH_PUBLIC_URL: 'https://auth.example.com',
    });
    const ada = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
    expect(ada.id).to.be.a('number');
  });
  afterEach(() => t.auth.close());
  const as = (test: request.Test) => test.set('Cookie', cookie);
  const registrationOptions = (password = PASSWORD) =>
    as(request(t.app).post('/service-auth/api/passkeys/options')).send({ password });
  /** Registers a passkey of `key` for ada over the API, as the passkeys page does. */
  const register = async (key: SoftAuthenticator) => {
    const options = (await registrationOptions().expect(200)).body;
    return as(request(t.app).post('/service-auth/api/passkeys')).send({ response: key.register(options), name: 'Key' });
  };
  const passkeyLogin = async (key: SoftAuthenticator) => {
    const options = (await request(t.app).post('/service-auth/login/passkey/options').expect(200)).body;
    return request(t.app)
      .post('/service-auth/login/passkey')
      .send({ response: key.authenticate(options) });
  };
  const rows = async () => {
    const em = (await t.parts.storage.em()).fork();
    return { passkeys: await em.count(Passkey, {}), challenges: await em.count(WebauthnChallenge, {}) };
  };

  it('hands out options for this site, each with a challenge of its own', async () => {
    const register = (await registrationOptions().expect(200)).body;
    expect(register.rp).to.deep.equal({ name: 'auth.example.com', id: 'auth.example.com' });
    expect(register.user.name).to.equal('ada@example.com');
    expect(register.authenticatorSelection).to.include({ residentKey: 'required', userVerification: 'required' });
    const login = (await request(t.app).post('/service-auth/login/passkey/options').expect(200)).body;
    expect(login.rpId).to.equal('auth.example.com');
    expect(login.challenge).to.be.a('string').and.not.equal(register.challenge);
    expect((await rows()).challenges).to.equal(2);
  });

  it('refuses what cannot be verified with 400 invalid_passkey, storing nothing', async () => {
    await registrationOptions().expect(200);
    const forged = {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'e30', attestationObject: 'oA' },
      clientExtensionResults: {},
    };
    expect(
      (await as(request(t.app).post('/service-auth/api/passkeys')).send({ response: forged, name: 'Mine' }).expect(400))
        .body.code,
    ).to.equal('invalid_passkey');
    expect(
      (await request(t.app).post('/service-auth/login/passkey').send({ response: forged }).expect(400)).body.code,
    ).to.equal('invalid_passkey');
    expect((await request(t.app).post('/service-auth/login/passkey').send({}).expect(400)).body.code).to.equal(
      'bad_request',
    );
    expect((await rows()).passkeys).to.equal(0);
  });

  it('lists and removes only the caller’s passkeys, with a session', async () => {
    expect((await as(request(t.app).get('/service-auth/api/passkeys')).expect(200)).body).to.deep.equal({
      passkeys: [],
    });
    expect((await as(request(t.app).delete('/service-auth/api/passkeys/nope')).expect(404)).body.code).to.equal(
      'not_found',
    );
    const { token } = await t.auth.tokens.create('ada@example.com', { name: 'ci' });
    const withToken = await request(t.app)
      .post('/service-auth/api/passkeys/options')
      .set('Authorization', `Bearer ${token}`)
      .expect(403);
    expect(withToken.body.code).to.equal('session_required');
    await request(t.app).get('/service-auth/api/passkeys').expect(401);
  });

  it('gives the second step of a password login a challenge of that user’s, and counts a forged answer as a wrong code', async () => {
    const ada = await t.auth.users.get('ada@example.com');
    const setup = await t.parts.secondFactors.beginTotp(ada);
    await t.parts.secondFactors.confirmTotp(ada.id, totpCode(setup.secret, Date.now()));
    const refusal = (
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(401)
    ).body;
    expect(refusal.methods, 'no passkey yet: a code only').to.deep.equal(['totp', 'recovery_code']);
    const ticket = refusal.ticket;
    const options = (await request(t.app).post('/service-auth/login/mfa/passkey/options').send({ ticket }).expect(200))
      .body;
    expect(options.allowCredentials ?? []).to.deep.equal([]);
    expect(
      (await request(t.app).post('/service-auth/login/mfa/passkey/options').send({ ticket: 'nope' }).expect(401)).body
        .code,
    ).to.equal('invalid_ticket');
    const forged = {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
      clientExtensionResults: {},
    };
    expect(
      (await request(t.app).post('/service-auth/login/mfa').send({ ticket, passkey: forged }).expect(401)).body.code,
    ).to.equal('invalid_code');
  });

  it('offers a passkey at the second step only to an account that has one, in the problem and on the page', async () => {
    const ada = await t.auth.users.get('ada@example.com');
    const setup = await t.parts.secondFactors.beginTotp(ada);
    await t.parts.secondFactors.confirmTotp(ada.id, totpCode(setup.secret, Date.now()));
    const loginPage = () => formPost(t.app, '/login', { email: 'ada@example.com', password: PASSWORD });
    expect((await loginPage().expect(200)).text).not.to.contain('Use a passkey instead');
    // A passkey as the browser test registers one (only its row matters here).
    const em = (await t.parts.storage.em()).fork();
    await em.insert(Passkey, {
      credentialId: 'cred-1',
      user: ada.id,
      name: 'Phone',
      publicKey: 'AA',
      counter: 0,
      transports: 'internal',
      createdAt: new Date(),
      lastUsedAt: null,
    });
    const refusal = (
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(401)
    ).body;
    expect(refusal.methods).to.deep.equal(['totp', 'recovery_code', 'passkey']);
    const step = await loginPage().expect(200);
    expect(step.text).to.contain('Use a passkey instead');
    const ticket = /name="ticket" value="([^"]+)"/.exec(step.text)![1]!;
    const wrong = await formPost(t.app, '/login/mfa', { ticket, code: '000000' }).expect(401);
    expect(wrong.text, 'still offered after a wrong code').to.contain('Use a passkey instead');
  });

  it('signs in with a passkey alone only if it verified the user; after the password, its presence is enough', async () => {
    const key = new SoftAuthenticator('https://auth.example.com');
    const added = await register(key);
    expect(added.status).to.equal(201);
    expect(added.body.passkey).to.include({ id: key.id, name: 'Key' });
    const signedIn = await passkeyLogin(key);
    expect(signedIn.status).to.equal(200);
    expect(sessionCookieFrom(signedIn)).to.be.a('string');

    // A key that only senses a touch (or a thief without the PIN) does not stand for the password.
    key.userVerified = false;
    const refused = await passkeyLogin(key);
    expect([refused.status, refused.body.code]).to.deep.equal([400, 'invalid_passkey']);
    await t.auth.audit.flush();
    const [failure] = await t.auth.audit.query({ type: 'login', limit: 1 });
    expect(failure).to.include({ outcome: 'failure', reason: 'invalid_passkey' });

    // As the second factor, after the right password, it does.
    const ada = await t.auth.users.get('ada@example.com');
    const setup = await t.parts.secondFactors.beginTotp(ada);
    await t.parts.secondFactors.confirmTotp(ada.id, totpCode(setup.secret, Date.now()));
    const { ticket } = (
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(401)
    ).body;
    const options = (await request(t.app).post('/service-auth/login/mfa/passkey/options').send({ ticket }).expect(200))
      .body;
    const answer = key.authenticate(options);
    await request(t.app).post('/service-auth/login/mfa').send({ ticket, passkey: answer }).expect(200);
    expect(
      (await request(t.app).post('/service-auth/login/mfa').send({ ticket, passkey: answer }).expect(401)).body.code,
      'the ticket is used up',
    ).to.equal('invalid_ticket');
  });

  it('refuses to keep a passkey that cannot verify its user', async () => {
    const touchOnly = new SoftAuthenticator('https://auth.example.com', { userVerified: false });
    const refused = await register(touchOnly);
    expect([refused.status, refused.body.code]).to.deep.equal([400, 'invalid_passkey']);
    expect((await rows()).passkeys).to.equal(0);
  });

  it('adds a passkey only with the password: a session alone is not enough', async () => {
    expect((await registrationOptions('Wrong-Guess-Battery-6').expect(401)).body.code).to.equal('invalid_credentials');
    expect(
      (await as(request(t.app).post('/service-auth/api/passkeys/options')).send({}).expect(400)).body.code,
    ).to.equal('bad_request');
    expect((await rows()).challenges, 'no challenge handed out').to.equal(0);
    // The answer to a challenge never handed out is refused.
    const key = new SoftAuthenticator('https://auth.example.com');
    const made = key.register({ challenge: Buffer.from('made-up-challenge').toString('base64url') });
    expect(
      (await as(request(t.app).post('/service-auth/api/passkeys')).send({ response: made }).expect(400)).body.code,
    ).to.equal('invalid_passkey');
  });
});
