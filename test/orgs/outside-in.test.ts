/**
 * The organization endpoints probed from outside: role names that are the names of an object's
 * own properties (`__proto__`, `constructor`) are unknown roles, not roles; a member id that is
 * no member's, or no user's, gets one 404 that names nobody; a token bound to one organization
 * neither reaches another nor tells it exists.
 */
import { expect } from 'chai';
import request from 'supertest';
import { PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { orgApp } from './org-app.js';
import { defineDemoOrgRoles } from './org-roles.js';

const PREFIX = '/service-auth';

describe('organization endpoints, probed from outside', () => {
  let t: TestApp;
  let ada: { id: number; cookie: string };
  let eve: { id: number; email: string };
  let org: { id: number; slug: string };
  let other: { id: number; slug: string };

  const as = (test: request.Test) =>
    test.set('Cookie', ada.cookie).set('Sec-Fetch-Site', 'same-origin').set('Accept', 'application/json');

  before(async () => {
    t = await orgApp();
    defineDemoOrgRoles(t.auth);
    const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    ada = {
      id: user.id,
      cookie: sessionCookieFrom(
        await request(t.app).post(`${PREFIX}/login`).send({ email: 'ada@example.com', password: PASSWORD }).expect(200),
      )!,
    };
    eve = await t.auth.users.create({ email: 'eve-secret@example.com', password: PASSWORD });
    org = await t.auth.orgs.create({ name: 'Home', slug: 'home', owner: ada.id });
    other = await t.auth.orgs.create({ name: 'Elsewhere', slug: 'elsewhere', owner: ada.id });
  });
  after(() => t.auth.close());

  it('refuses role names that are an object’s own properties as unknown roles (422), in changes and invitations', async () => {
    const bob = await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    await t.auth.orgs.addMember(org.id, bob.id, ['member']);
    for (const role of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const changed = await as(request(t.app).patch(`${PREFIX}/api/orgs/${org.slug}/members/${bob.id}`)).send({
        roles: [role],
      });
      expect([changed.status, changed.body.code], role).to.deep.equal([422, 'unknown_role']);
      const invited = await as(request(t.app).post(`${PREFIX}/api/orgs/${org.slug}/invitations`)).send({
        email: 'new@example.com',
        roles: [role],
      });
      expect([invited.status, invited.body.code], role).to.deep.equal([422, 'unknown_role']);
    }
    expect((await t.auth.orgs.members(org.id)).find((member) => member.user_id === bob.id)?.roles).to.deep.equal([
      'member',
    ]);
  });

  it('answers one 404 for a member id that is a non-member’s, no one’s, or malformed, naming nobody', async () => {
    const details = new Set<string>();
    for (const id of [eve.id, 999_999, '0', '01']) {
      for (const call of [
        as(request(t.app).patch(`${PREFIX}/api/orgs/${org.slug}/members/${id}`)).send({ roles: ['member'] }),
        as(request(t.app).delete(`${PREFIX}/api/orgs/${org.slug}/members/${id}`)),
      ]) {
        const response = await call;
        expect([response.status, response.body.code], String(id)).to.deep.equal([404, 'not_found']);
        details.add(response.body.detail);
      }
    }
    expect([...details]).to.deep.equal(['No such member of this organization']);
  });

  it('keeps a token bound to one organization out of another (403 where the user is a member, 404 where not)', async () => {
    const { token } = await t.auth.tokens.create(ada.id, { name: 'bound', org: org.slug });
    const bearer = (test: request.Test) =>
      test.set('Authorization', `Bearer ${token}`).set('Accept', 'application/json');
    await bearer(request(t.app).get(`${PREFIX}/api/orgs/${org.slug}/members`)).expect(200);
    expect(
      (await bearer(request(t.app).get(`${PREFIX}/api/orgs/${other.slug}/members`)).expect(403)).body.code,
    ).to.equal('forbidden');
    expect(
      (await bearer(request(t.app).get(`${PREFIX}/api/orgs`)).expect(200)).body.orgs.map(
        (listed: { slug: string }) => listed.slug,
      ),
    ).to.deep.equal([org.slug]);
    const stranger = await t.auth.orgs.create({ name: 'Not hers', slug: 'not-hers', owner: eve.id });
    expect((await bearer(request(t.app).get(`${PREFIX}/api/orgs/${stranger.slug}`)).expect(404)).body.code).to.equal(
      'not_found',
    );
  });
});
