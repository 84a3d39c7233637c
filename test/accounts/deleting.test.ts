/** CONTRACT-2 §14.2: deleting a user, by the user (`DELETE /me`) and by the application (`auth.users.delete`). */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { member, meWithCookie, meWithToken, type Member } from './accounts.js';

/** The rows of every table that belongs to a user, by table. */
async function rowsOf(t: TestApp, userId: number): Promise<Record<string, number>> {
  const connection = (await t.parts.storage.em()).getConnection();
  const counts: Record<string, number> = {};
  for (const table of [
    'service_auth_users',
    'service_auth_sessions',
    'service_auth_api_tokens',
    'service_auth_password_resets',
    'service_auth_email_tokens',
    'service_auth_user_roles',
  ]) {
    const column = table === 'service_auth_users' ? 'id' : 'user_id';
    const [row] = await connection.execute<{ n: number }[]>(`select count(*) as n from ${table} where ${column} = ?`, [
      userId,
    ]);
    counts[table] = Number(row!.n);
  }
  return counts;
}

/** A user with something in every table: a session, a token, a role, a pending reset and an email change. */
async function fullMember(t: TestApp, email: string): Promise<Member> {
  const user = await member(t, email);
  await t.auth.users.addRole(email, 'editor');
  await t.parts.resetTokens.issue(user.id);
  await t.parts.emailTokens.issue(user.id, 'change', `new-${email}`);
  return user;
}

describe('§14.2 deleting a user', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
  });
  afterEach(() => t.auth.close());

  it('DELETE /me with the password answers 204 with the cookie cleared, and everything of the user goes; the email may register again', async () => {
    const ada = await fullMember(t, 'ada@example.com');
    const bob = await fullMember(t, 'bob@example.com');
    const deleted: string[] = [];
    t.auth.on('user_deleted', (user) => void deleted.push(user.email));
    const response = await request(t.app)
      .delete('/service-auth/me')
      .set('Cookie', ada.cookie)
      .send({ password: PASSWORD })
      .expect(204);
    expect(String(response.headers['set-cookie'])).to.match(/^service_auth_session=;.*Expires=Thu, 01 Jan 1970/);
    expect(await rowsOf(t, ada.id)).to.deep.equal({
      service_auth_users: 0,
      service_auth_sessions: 0,
      service_auth_api_tokens: 0,
      service_auth_password_resets: 0,
      service_auth_email_tokens: 0,
      service_auth_user_roles: 0,
    });
    expect(
      Object.values(await rowsOf(t, bob.id)).every((n) => n > 0),
      'the other user keeps everything',
    ).to.equal(true);
    expect(deleted).to.deep.equal(['ada@example.com']);
    await meWithCookie(t, ada.cookie).expect(401);
    await meWithToken(t, ada.token).expect(401);
    await meWithToken(t, bob.token).expect(200);
    await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(201);
  });

  it('DELETE /me with a wrong password is 401 invalid_credentials and deletes nothing', async () => {
    const ada = await fullMember(t, 'ada@example.com');
    const before = await rowsOf(t, ada.id);
    const response = await request(t.app)
      .delete('/service-auth/me')
      .set('Cookie', ada.cookie)
      .send({ password: 'Wrong-Password-1' })
      .expect(401);
    expect(response.body.code).to.equal('invalid_credentials');
    expect(await rowsOf(t, ada.id)).to.deep.equal(before);
    await meWithCookie(t, ada.cookie).expect(200);
  });

  it('DELETE /me needs a session from this site: a token is 403 session_required, another site 403 csrf_rejected, a missing password 400', async () => {
    const ada = await fullMember(t, 'ada@example.com');
    const before = await rowsOf(t, ada.id);
    const withToken = await request(t.app)
      .delete('/service-auth/me')
      .set('Authorization', `Bearer ${ada.token}`)
      .send({ password: PASSWORD })
      .expect(403);
    expect(withToken.body.code).to.equal('session_required');
    const crossSite = await request(t.app)
      .delete('/service-auth/me')
      .set('Cookie', ada.cookie)
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ password: PASSWORD })
      .expect(403);
    expect(crossSite.body.code).to.equal('csrf_rejected');
    const noPassword = await request(t.app).delete('/service-auth/me').set('Cookie', ada.cookie).send({}).expect(400);
    expect(noPassword.body.errors).to.deep.equal([{ field: 'password', message: 'is required' }]);
    await request(t.app).delete('/service-auth/me').send({ password: PASSWORD }).expect(401);
    expect(await rowsOf(t, ada.id)).to.deep.equal(before);
  });

  it('auth.users.delete removes the user and everything of theirs, and refuses an unknown one with not_found', async () => {
    const ada = await fullMember(t, 'ada@example.com');
    const user = await t.auth.users.delete('ada@example.com');
    expect(user.email).to.equal('ada@example.com');
    expect(Object.values(await rowsOf(t, ada.id))).to.deep.equal([0, 0, 0, 0, 0, 0]);
    await meWithToken(t, ada.token).expect(401);
    expect(await t.auth.users.delete('ada@example.com').catch((error: unknown) => error)).to.include({
      code: 'not_found',
    });
  });

  it('deletes in one transaction: when the last step fails, the sessions and tokens it had ended still work', async () => {
    const ada = await fullMember(t, 'ada@example.com');
    const before = await rowsOf(t, ada.id);
    const connection = (await t.parts.storage.em()).getConnection();
    await connection.execute(
      "create trigger refuse_user_delete before delete on service_auth_users begin select raise(abort, 'refused by the test'); end",
    );
    const error = await t.auth.users.delete(ada.email).catch((e: unknown) => e);
    expect(String(error)).to.contain('refused by the test');
    expect(await rowsOf(t, ada.id)).to.deep.equal(before);
    await meWithCookie(t, ada.cookie).expect(200);
    await meWithToken(t, ada.token).expect(200);
  });
});
