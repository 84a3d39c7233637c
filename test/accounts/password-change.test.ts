/** CONTRACT-2 §14.3: changing the password with the current one. */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { login, member, meWithCookie, meWithToken } from './accounts.js';

const NEW_PASSWORD = 'Another-Horse-Battery-7';

describe('§14.3 changing the password', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
  });
  afterEach(() => t.auth.close());

  it('POST /password answers 200 { user } with a new session cookie; other sessions end, reset links die, tokens stay', async () => {
    const ada = await member(t, 'ada@example.com');
    const otherDevice = await login(t, ada.email);
    const reset = await t.parts.resetTokens.issue(ada.id);
    const changed: string[] = [];
    t.auth.on('password_changed', (user) => void changed.push(user.email));
    const response = await request(t.app)
      .post('/service-auth/password')
      .set('Cookie', ada.cookie)
      .send({ current_password: PASSWORD, password: NEW_PASSWORD })
      .expect(200);
    expect(response.body.user).to.include({ email: 'ada@example.com' });
    const renewed = sessionCookieFrom(response)!;
    expect(renewed)
      .to.match(/^service_auth_session=/)
      .and.not.equal(ada.cookie);
    await meWithCookie(t, renewed).expect(200);
    await meWithCookie(t, ada.cookie).expect(401);
    await meWithCookie(t, otherDevice).expect(401);
    await meWithToken(t, ada.token).expect(200);
    const resetAttempt = await request(t.app)
      .post('/service-auth/reset')
      .send({ token: reset, password: 'Third-Horse-Battery-5' })
      .expect(400);
    expect(resetAttempt.body.code).to.equal('invalid_reset_token');
    await request(t.app).post('/service-auth/login').send({ email: ada.email, password: PASSWORD }).expect(401);
    await request(t.app).post('/service-auth/login').send({ email: ada.email, password: NEW_PASSWORD }).expect(200);
    expect(changed).to.deep.equal(['ada@example.com']);
  });

  it('refuses a wrong current password with 401 invalid_credentials, and a password that breaks the rules with 422 password_rules, changing nothing', async () => {
    const ada = await member(t, 'ada@example.com');
    const wrong = await request(t.app)
      .post('/service-auth/password')
      .set('Cookie', ada.cookie)
      .send({ current_password: 'Wrong-Password-1', password: NEW_PASSWORD })
      .expect(401);
    expect(wrong.body.code).to.equal('invalid_credentials');
    expect(wrong.headers['set-cookie']).to.equal(undefined);
    const weak = await request(t.app)
      .post('/service-auth/password')
      .set('Cookie', ada.cookie)
      .send({ current_password: PASSWORD, password: 'short' })
      .expect(422);
    expect(weak.body.code).to.equal('password_rules');
    await meWithCookie(t, ada.cookie).expect(200);
    await request(t.app).post('/service-auth/login').send({ email: ada.email, password: PASSWORD }).expect(200);
  });

  it('needs a session: a token is 403 session_required, no credentials 401', async () => {
    const ada = await member(t, 'ada@example.com');
    const body = { current_password: PASSWORD, password: NEW_PASSWORD };
    expect(
      (
        await request(t.app)
          .post('/service-auth/password')
          .set('Authorization', `Bearer ${ada.token}`)
          .send(body)
          .expect(403)
      ).body.code,
    ).to.equal('session_required');
    await request(t.app).post('/service-auth/password').send(body).expect(401);
    await request(t.app).post('/service-auth/login').send({ email: ada.email, password: PASSWORD }).expect(200);
  });
});

describe('§14.3 a wrong current password counts against SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES', () => {
  it('refuses with 429 once the failures of the account from this client reach the limit, even with the right password', async () => {
    const t = await createTestApp({
      SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES: '2 per minute',
      SERVICE_AUTH_RATE_LIMIT_LOGIN: '100 per minute',
    });
    try {
      const ada = await member(t, 'ada@example.com');
      const change = (current: string) =>
        request(t.app)
          .post('/service-auth/password')
          .set('Cookie', ada.cookie)
          .send({ current_password: current, password: NEW_PASSWORD });
      await change('Wrong-Password-1').expect(401);
      await change('Wrong-Password-2').expect(401);
      const limited = await change(PASSWORD).expect(429);
      expect(limited.body.code).to.equal('rate_limited');
      // The same count as logging in: the login of that account from this client is held too.
      await request(t.app).post('/service-auth/login').send({ email: ada.email, password: PASSWORD }).expect(429);
    } finally {
      await t.auth.close();
    }
  });
});
