/**
 * Which roles the admin console gives (issue 45): a role that exists, one a definition names or
 * one created on purpose (`auth.roles.create`, as `auth create-role`), with a notice when no
 * definition gives it rules yet; a name that is neither is refused (422 `unknown_role`), as a
 * page to a browser and as problem+json to a JSON client.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';

describe('the admin console: the roles it gives', () => {
  let t: TestApp;
  let operator: string;
  let counter = 0;

  async function logIn(email: string): Promise<string> {
    const response = await request(t.app).post('/service-auth/login').send({ email, password: PASSWORD }).expect(200);
    return sessionCookieFrom(response)!;
  }
  const someone = async (): Promise<number> =>
    (await t.auth.users.create({ email: `user${++counter}@example.com`, password: PASSWORD })).id;
  const rolesOf = async (id: number): Promise<string[]> => [...(await t.auth.users.get(id)).roles];
  const post = (path: string, body: Record<string, string>) => formPost(t.app, path, body).set('Cookie', operator);

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    t.auth.defineRole('operator', [{ action: 'manage', subject: 'all' }]);
    t.auth.defineRole('analyst', [{ action: 'read', subject: 'Report' }]);
    await t.auth.users.create({ email: 'olga@example.com', password: PASSWORD, roles: ['operator'] });
    await t.auth.roles.create('reviewer');
    operator = await logIn('olga@example.com');
  });
  after(() => t.auth.close());

  it('offers and gives a role created on purpose that no definition names, saying it grants nothing yet', async () => {
    const id = await someone();
    const page = await pageGet(t.app, `/admin/users/${id}`).set('Cookie', operator).expect(200);
    expect(page.text).to.contain('<option>reviewer</option>').and.contain('<option>analyst</option>');
    const done = await post(`/admin/users/${id}/roles/add`, { roles: 'reviewer' }).expect(303);
    expect(done.headers['location']).to.equal(`/service-auth/admin/users/${id}?done=roleAddedUndefined`);
    expect(await rolesOf(id)).to.deep.equal(['reviewer']);
    const shown = await pageGet(t.app, `/admin/users/${id}?done=roleAddedUndefined`)
      .set('Cookie', operator)
      .expect(200);
    expect(shown.text).to.contain('No definition gives it rules yet: it grants nothing until one does.');
    await post(`/admin/users/${id}/roles/remove`, { roles: 'reviewer' }).expect(303);
    expect(await rolesOf(id)).to.deep.equal([]);
  });

  it('gives a defined role with the plain notice', async () => {
    const id = await someone();
    const done = await post(`/admin/users/${id}/roles/add`, { roles: 'analyst' }).expect(303);
    expect(done.headers['location']).to.equal(`/service-auth/admin/users/${id}?done=roleAdded`);
    expect(await rolesOf(id)).to.deep.equal(['analyst']);
  });

  it('refuses a name that is neither defined nor created (422 unknown_role), as a page or as problem+json, creating nothing', async () => {
    const id = await someone();
    const page = await post(`/admin/users/${id}/roles/add`, { roles: 'reviewr' }).expect(422);
    expect(page.type).to.equal('text/html');
    const problem = await request(t.app)
      .post(`/service-auth/admin/users/${id}/roles/add`)
      .set('Cookie', operator)
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Accept', 'application/json')
      .type('form')
      .send({ roles: 'reviewr' })
      .expect(422);
    expect(problem.type).to.equal('application/problem+json');
    expect(problem.body).to.include({ code: 'unknown_role' });
    expect(problem.body.detail).to.contain('"reviewr"');
    expect(await rolesOf(id)).to.deep.equal([]);
    expect((await t.auth.roles.list()).map((role) => role.name)).not.to.include('reviewr');
  });

  it('answers the roles service the same way for each kind of name', async () => {
    expect(await t.auth.roles.standing('analyst')).to.equal('defined');
    expect(await t.auth.roles.standing('reviewer')).to.equal('stored');
    expect(await t.auth.roles.standing('reviewr')).to.equal('unknown');
  });
});
