/**
 * Admin accounts are protected in the admin console (CONTRACT-4 §30, issue 39 item 4), as an
 * attacker meets it: an operator who is not `is_admin` posts the console's forms (same-site, with
 * their session) against an `is_admin` account. Support staff (docs/admin.md's own rules) cannot
 * disable it; an operator holding the role `admin` (manage all) but not the flag cannot disable it
 * nor take `admin` from it. The page offers neither; an `is_admin` operator may do both.
 */
import { expect } from 'chai';
import request from 'supertest';
import { AuthError } from '../../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';

const JSON_ONLY = 'application/json';
const ANYWAY = 'whatever the rules allow';

describe('the admin console: admin accounts are protected', () => {
  let t: TestApp;
  let support: string;
  let roleAdmin: string;
  let flagAdmin: string;
  let counter = 0;

  async function logIn(email: string): Promise<string> {
    const response = await request(t.app).post('/service-auth/login').send({ email, password: PASSWORD }).expect(200);
    return sessionCookieFrom(response)!;
  }
  /** A fresh is_admin account holding the role admin, for a test to attack. */
  const root = async (): Promise<number> => {
    const email = `root${++counter}@example.com`;
    return (await t.auth.users.create({ email, password: PASSWORD, isAdmin: true, roles: ['admin'] })).id;
  };
  const post = (path: string, body: Record<string, string>, cookie: string) =>
    formPost(t.app, path, body).set('Cookie', cookie);
  const page = async (id: number, cookie: string): Promise<string> =>
    (await pageGet(t.app, `/admin/users/${id}`).set('Cookie', cookie).expect(200)).text;

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    t.auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
    t.auth.defineRole('support', [
      { action: 'read', subject: ['User', 'AuditRecord'] },
      { action: 'update', subject: 'User', fields: ['disabled', 'sessions'] },
    ]);
    await t.auth.users.create({ email: 'sam@example.com', password: PASSWORD, roles: ['support'] });
    await t.auth.users.create({ email: 'ron@example.com', password: PASSWORD, roles: ['admin'] });
    await t.auth.users.create({ email: 'ira@example.com', password: PASSWORD, roles: ['admin'], isAdmin: true });
    const operators = ['sam@example.com', 'ron@example.com', 'ira@example.com'];
    [support, roleAdmin, flagAdmin] = (await Promise.all(operators.map(logIn))) as [string, string, string];
  });
  after(() => t.auth.close());

  it('refuses support disabling an is_admin account (403 forbidden, a page or problem+json), and does not offer it', async () => {
    const id = await root();
    expect(await page(id, support)).not.to.contain('Disable the account');
    const refused = await post(`/admin/users/${id}/disabled`, { disabled: 'true' }, support).expect(403);
    expect(refused.type).to.equal('text/html');
    const problem = await post(`/admin/users/${id}/disabled`, { disabled: 'true' }, support)
      .set('Accept', JSON_ONLY)
      .expect(403);
    expect(problem.body).to.include({
      code: 'forbidden',
      detail: `Only an is_admin operator may disable an is_admin account, ${ANYWAY}`,
    });
    expect((await t.auth.users.get(id)).disabled).to.equal(false);
    expect(await t.auth.audit.query({ userId: id, type: 'user_disabled' })).to.deep.equal([]);
    // The same operator still disables an account without the flag.
    const other = (await t.auth.users.create({ email: `user${++counter}@example.com`, password: PASSWORD })).id;
    expect(await page(other, support)).to.contain('Disable the account');
    await post(`/admin/users/${other}/disabled`, { disabled: 'true' }, support).expect(303);
    expect((await t.auth.users.get(other)).disabled).to.equal(true);
  });

  it('refuses an operator holding the role admin taking admin from, or disabling, the is_admin account', async () => {
    const id = await root();
    const shown = await page(id, roleAdmin);
    expect(shown).not.to.contain('Take away the role admin').and.not.to.contain('Disable the account');
    await post(`/admin/users/${id}/roles/remove`, { roles: 'admin' }, roleAdmin).expect(403);
    const problem = await post(`/admin/users/${id}/roles/remove`, { roles: 'admin' }, roleAdmin)
      .set('Accept', JSON_ONLY)
      .expect(403);
    const detail = `Only an is_admin operator may remove a role from an is_admin account, ${ANYWAY}`;
    expect(problem.body).to.include({ code: 'forbidden', detail });
    await post(`/admin/users/${id}/disabled`, { disabled: 'true' }, roleAdmin).expect(403);
    const after = await t.auth.users.get(id);
    expect([[...after.roles], after.disabled]).to.deep.equal([['admin'], false]);
    expect(await t.auth.audit.query({ userId: id, type: 'role_removed' })).to.deep.equal([]);
    // Giving a role is not a protected change; taking admin from someone without the flag is allowed.
    const held = (
      await t.auth.users.create({ email: `user${++counter}@example.com`, password: PASSWORD, roles: ['admin'] })
    ).id;
    await post(`/admin/users/${held}/roles/remove`, { roles: 'admin' }, roleAdmin).expect(303);
    expect([...(await t.auth.users.get(held)).roles]).to.deep.equal([]);
  });

  it('refuses an operator without the flag ending the is_admin account’s sessions, revoking its tokens or resetting its second factor', async () => {
    const id = await root();
    await t.auth.tokens.create(id, { name: 'automation' });
    await t.parts.sessions.create(id);
    const sessionsBefore = await t.parts.sessions.list(id);
    expect(sessionsBefore).to.have.length(1);
    expect(await page(id, roleAdmin)).not.to.contain('Reset the second factor');
    const changes: [string, string][] = [
      ['sessions', 'end the sessions of'],
      ['tokens', 'revoke the tokens of'],
      ['mfa', 'reset the second factor of'],
    ];
    for (const [path, change] of changes) {
      const problem = await post(`/admin/users/${id}/${path}`, { [path]: 'true' }, roleAdmin)
        .set('Accept', JSON_ONLY)
        .expect(403);
      expect(problem.body, path).to.include({
        code: 'forbidden',
        detail: `Only an is_admin operator may ${change} an is_admin account, ${ANYWAY}`,
      });
    }
    expect(await t.auth.tokens.list({ user: id })).to.have.length(1);
    expect(await t.parts.sessions.list(id)).to.have.length(sessionsBefore.length);
    // An is_admin operator may.
    await post(`/admin/users/${id}/tokens`, { tokens: 'true' }, flagAdmin).expect(303);
    expect(await t.auth.tokens.list({ user: id })).to.deep.equal([]);
  });

  it('lets an is_admin operator disable the account and take its roles', async () => {
    const id = await root();
    const shown = await page(id, flagAdmin);
    expect(shown).to.contain('Take away the role admin').and.contain('Disable the account');
    await post(`/admin/users/${id}/roles/remove`, { roles: 'admin' }, flagAdmin).expect(303);
    await post(`/admin/users/${id}/disabled`, { disabled: 'true' }, flagAdmin).expect(303);
    const after = await t.auth.users.get(id);
    expect([[...after.roles], after.disabled]).to.deep.equal([[], true]);
  });

  it('is the users’ service’s rule: with an operator named it refuses, without one (the CLI, the application) it does not', async () => {
    const id = await root();
    const operator = { id: 1, is_admin: false };
    for (const attempt of [t.auth.users.disable(id, operator), t.auth.users.removeRole(id, 'admin', operator)]) {
      const error = await attempt.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(AuthError).and.to.include({ code: 'forbidden', status: 403 });
    }
    await t.auth.users.removeRole(id, 'admin');
    expect((await t.auth.users.disable(id)).disabled).to.equal(true);
  });
});
