import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

describe('POST /register', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
  });
  afterEach(() => t.auth.close());

  it('creates the user, answers 201 { user } and starts a session', async () => {
    const response = await request(t.app)
      .post('/service-auth/register')
      .send({ email: ' New@Example.com ', password: PASSWORD })
      .expect(201);
    expect(response.body.user).to.include({ email: 'new@example.com', is_admin: false });
    expect(response.body.user.roles).to.deep.equal([]);
    expect(response.body.user.id).to.be.a('number');
    expect(response.body.user.created_at).to.match(/Z$/);
    const cookie = sessionCookieFrom(response)!;
    const me = await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200);
    expect(me.body.user.email).to.equal('new@example.com');
  });

  it('accepts a form body as well as JSON', async () => {
    await request(t.app)
      .post('/service-auth/register')
      .type('form')
      .send({ email: 'form@example.com', password: PASSWORD })
      .expect(201);
    expect(await t.auth.users.findByEmail('form@example.com')).not.to.equal(null);
  });

  it('never returns the password or its hash', async () => {
    const response = await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'quiet@example.com', password: PASSWORD })
      .expect(201);
    expect(JSON.stringify(response.body)).not.to.contain(PASSWORD).and.not.to.contain('argon2');
  });

  it('lists every missing or mistyped field as 400 bad_request', async () => {
    const response = await request(t.app).post('/service-auth/register').send({ password: 12 }).expect(400);
    expect(response.body.code).to.equal('bad_request');
    expect(response.body.errors).to.deep.equal([
      { field: 'email', message: 'is required' },
      { field: 'password', message: 'must be a string' },
    ]);
  });

  it('answers 422 invalid_email for something that is not an address, creating nothing', async () => {
    for (const email of ['no-at-sign', 'a@b@c', `${'x'.repeat(250)}@example.com`]) {
      const response = await request(t.app)
        .post('/service-auth/register')
        .send({ email, password: PASSWORD })
        .expect(422);
      expect(response.body.code).to.equal('invalid_email');
    }
    expect(await t.auth.users.list()).to.have.length(0);
  });

  it('answers 422 password_rules with every failed rule, creating nothing', async () => {
    const response = await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'weak@example.com', password: 'weak' })
      .expect(422);
    expect(response.body.code).to.equal('password_rules');
    expect(response.body.errors.map((e: { rule: string }) => e.rule)).to.deep.equal([
      'min_length',
      'uppercase',
      'digit',
      'special',
    ]);
    for (const error of response.body.errors) expect(error.message).to.be.a('string').and.not.be.empty;
    expect(response.headers['set-cookie']).to.equal(undefined);
    expect(await t.auth.users.findByEmail('weak@example.com')).to.equal(null);
  });

  it('answers 409 email_taken for an existing email in any case', async () => {
    await t.auth.users.create({ email: 'taken@example.com', password: PASSWORD });
    const response = await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'TAKEN@example.com', password: PASSWORD })
      .expect(409);
    expect(response.body.code).to.equal('email_taken');
    expect(response.headers['set-cookie']).to.equal(undefined);
  });

  it('applies the configured password rules', async () => {
    const nist = await createTestApp({
      SERVICE_AUTH_MIN_PASSWORD_LENGTH: 15,
      SERVICE_AUTH_PASSWORD_COMPLEXITY_ENABLED: false,
      SERVICE_AUTH_PASSWORD_BLOCKLIST_ENABLED: true,
    });
    try {
      await request(nist.app)
        .post('/service-auth/register')
        .send({ email: 'a@example.com', password: 'all lower case words' })
        .expect(201);
      const common = await request(nist.app)
        .post('/service-auth/register')
        .send({ email: 'b@example.com', password: 'passwordpassword' })
        .expect(422);
      expect(common.body.errors.map((e: { rule: string }) => e.rule)).to.deep.equal(['blocklisted']);
    } finally {
      await nist.auth.close();
    }
  });
});
