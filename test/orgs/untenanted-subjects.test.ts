/**
 * Organization roles reach only subjects with a tenant field (CONTRACT-4 §28, issue 40): in an
 * organization, an owner's `manage all` grants nothing on a `User` (or `Role`, `AuditRecord`,
 * `Policy`), and the tenant field is never stamped onto such a subject: the guard of
 * `/orgs/globex/users/:id/...`, `auth.explain` in the organization (the policy explorer's "why")
 * and the explorer's matrix say so alike; a tenant subject is still reached.
 */
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { roleMatrix } from '../../src/authorization/reach.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

describe('organization roles on subjects without a tenant field', () => {
  let t: TestApp;
  let cookie: string;
  let owner: { id: number; email: string; is_admin: boolean; roles: string[] };
  let adminId: number;
  let globex: { id: number; slug: string };

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      app.use(express.json());
      app.patch(
        '/orgs/:org/users/:id/name',
        auth.orgRequired(),
        auth.require({ action: 'update', subject: 'User' }),
        (_req, res) => res.json({ ok: true }),
      );
      app.patch(
        '/orgs/:org/projects/:id',
        auth.orgRequired(),
        auth.require({ action: 'update', subject: 'Project' }),
        (_req, res) => res.json({ ok: true }),
      );
    });
    t.auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
    t.auth.defineRole('platform', [{ action: 'manage', subject: 'all' }]);
    t.auth.defineRole('self', [
      { action: 'read', subject: 'User', conditions: { id: '${user.id}' } },
      { action: 'read', subject: 'Project', conditions: { public: true } },
    ]);
    adminId = (await t.auth.users.create({ email: 'root@example.com', password: PASSWORD, roles: ['platform'] })).id;
    const user = await t.auth.users.create({ email: 'gus@example.com', password: PASSWORD });
    owner = { id: user.id, email: user.email, is_admin: false, roles: [] };
    globex = await t.auth.orgs.create({ name: 'Globex', owner: user.id });
    cookie = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: user.email, password: PASSWORD }).expect(200),
    )!;
  });
  after(() => t.auth.close());

  const patch = (path: string) =>
    request(t.app).patch(path).set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').send({});

  it("refuses globex's owner the platform admin's account on /orgs/globex/users/:id, and lets them update the organization's projects", async () => {
    await patch(`/orgs/${globex.slug}/users/${adminId}/name`).expect(403);
    await patch(`/orgs/${globex.slug}/users/${owner.id}/name`).expect(403);
    await patch(`/orgs/${globex.slug}/projects/7`).expect(200);
  });

  it('explains it alike in the organization: denied, with no organization rule deciding; a project is allowed by the owner rule', async () => {
    const user = await t.auth.explain(owner, 'update', 'User', { id: adminId }, { org: globex.slug });
    expect(user.allowed).to.equal(false);
    expect(user.rule).to.equal(null);
    const project = await t.auth.explain(owner, 'update', 'Project', { id: 7 }, { org: globex.slug });
    expect(project.allowed).to.equal(true);
    expect(project.rule).to.include({ role: 'owner', org_role: true });
  });

  it('asked of the type alone, in the organization: no organization rule counts for User, all of them for Project', async () => {
    const ability = await t.auth.abilityFor(owner, { org: globex.slug });
    expect(ability.can('update', 'User')).to.equal(false);
    expect(ability.can('read', 'Policy')).to.equal(false);
    expect(ability.can('update', 'Project')).to.equal(true);
    expect(ability.rulesFor('update', 'User')).to.deep.equal([]);
  });

  it("shows no reach of an organization role over User, Role, AuditRecord or Policy in the policy explorer's matrix", () => {
    const [row] = roleMatrix(
      t.parts.abilities.definitions().filter((definition) => definition.org && definition.role === 'owner'),
      ['read', 'update'],
      ['AuditRecord', 'Policy', 'Project', 'Role', 'User'],
    );
    for (const type of ['AuditRecord', 'Policy', 'Role', 'User'])
      expect(row!.reach[type], type).to.deep.equal({ read: 'none', update: 'none' });
    expect(row!.reach['Project'], 'every project of its own organization').to.deep.equal({
      read: 'all',
      update: 'all',
    });
  });
});
