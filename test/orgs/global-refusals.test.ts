/**
 * A refusal in a user's global roles holds in every organization: an org role's `manage all` does
 * not lift it (docs/organizations.md#global-rules-first-then-the-organizations). The exceptions
 * the global roles make to their own refusal hold too, and an organization's own refusal still
 * holds against a global grant. Through a request in an organization (orgRequired, req.ability),
 * and `auth.abilityFor(user, { org })`.
 */
import { subject } from '@casl/ability';
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

describe('global refusals inside organizations', () => {
  let t: TestApp;
  let cookie: string;
  let user: { id: number; email: string };
  let org: { id: number; slug: string };

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      // What the caller may do to a project of the organization, as req.ability has it.
      app.get('/orgs/:org/projects/may', auth.orgRequired(), (req, res) => {
        const project = (archived: boolean) => subject('Project', { id: 1, org_id: req.org!.id, archived });
        res.json({
          read: req.ability!.can('read', project(false)),
          delete: req.ability!.can('delete', project(false)),
          deleteArchived: req.ability!.can('delete', project(true)),
        });
      });
    });
    t.auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
    // A global ban on deleting projects, but for archived ones.
    t.auth.defineRole('no-deleting', [
      { action: 'delete', subject: 'Project', inverted: true },
      { action: 'delete', subject: 'Project', conditions: { archived: true } },
    ]);
    user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['no-deleting'] });
    org = await t.auth.orgs.create({ name: 'Acme', owner: user.id });
    cookie = sessionCookieFrom(
      await request(t.app).post('/service-auth/login').send({ email: user.email, password: PASSWORD }).expect(200),
    )!;
  });
  after(() => t.auth.close());

  it('keeps a global refusal in an organization whose role grants manage all, with the global roles’ own exceptions', async () => {
    const { body } = await request(t.app).get(`/orgs/${org.slug}/projects/may`).set('Cookie', cookie).expect(200);
    expect(body).to.deep.equal({ read: true, delete: false, deleteArchived: true });
    const ability = await t.auth.abilityFor({ ...user, roles: ['no-deleting'] }, { org: org.id });
    expect(ability.can('delete', subject('Project', { org_id: org.id, archived: false }))).to.equal(false);
    expect(ability.can('update', subject('Project', { org_id: org.id, archived: false }))).to.equal(true);
  });

  it('still lets an organization’s own refusal hold against a global grant', async () => {
    t.auth.defineRole('project-admin', [{ action: 'manage', subject: 'Project' }]);
    t.auth.defineOrgRole('careful', [{ action: 'delete', subject: 'Project', inverted: true }]);
    const ability = await t.auth.abilityFor(
      { id: user.id, email: user.email, roles: ['project-admin'] },
      { org: org.id },
    );
    expect(ability.can('update', subject('Project', { org_id: org.id }))).to.equal(true);
    // Ada is an owner here; as a member holding `careful` only:
    const careful = t.parts.abilities.abilityFor(
      { id: user.id, email: user.email, is_admin: false, isAdmin: false, roles: new Set(['project-admin']) },
      { org, roles: ['careful'] },
    );
    expect(careful.can('delete', subject('Project', { org_id: org.id }))).to.equal(false);
    expect(
      careful.can('delete', subject('Project', { org_id: org.id + 1 })),
      'another organization’s row: the global grant',
    ).to.equal(true);
  });
});
