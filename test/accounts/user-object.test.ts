/** CONTRACT-2 §14: the user object's new fields, always present, and the new events. */
import { expect } from 'chai';
import request from 'supertest';
import { EVENT_NAMES } from '../../src/events.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { member } from './accounts.js';

describe('§14 the user object and the account events', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
  });
  afterEach(() => t.auth.close());

  it('always carries disabled, email_confirmed and mfa_enabled, over HTTP and from auth.users', async () => {
    const ada = await member(t, 'ada@example.com');
    const me = (await request(t.app).get('/service-auth/me').set('Cookie', ada.cookie).expect(200)).body.user;
    expect(me).to.include({ disabled: false, email_confirmed: true, mfa_enabled: false });
    const registered = (
      await request(t.app)
        .post('/service-auth/register')
        .send({ email: 'bob@example.com', password: PASSWORD })
        .expect(201)
    ).body.user;
    expect(Object.keys(registered).sort()).to.deep.equal([
      'created_at',
      'disabled',
      'email',
      'email_confirmed',
      'id',
      'is_admin',
      'mfa_enabled',
      'roles',
    ]);
    expect((await t.auth.users.list()).map((user) => JSON.parse(JSON.stringify(user)).email_confirmed)).to.deep.equal([
      true,
      true,
    ]);
  });

  it('takes handlers for user_disabled, user_enabled, user_deleted, password_changed, email_confirmed and email_changed', () => {
    const added = [
      'user_disabled',
      'user_enabled',
      'user_deleted',
      'password_changed',
      'email_confirmed',
      'email_changed',
    ] as const;
    expect(EVENT_NAMES).to.include.members([...added]);
    for (const name of added) expect(() => t.auth.on(name, () => undefined)).not.to.throw();
  });
});
