/**
 * The organization endpoints over HTTP, on the real app: shapes, every
 * refusal each endpoint documents, and the rule that no one grants (or takes away) a role their
 * own ability does not let them assign. Every answer is also checked against the OpenAPI document
 * (test/helpers/openapi-check.ts).
 */
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import request from 'supertest';
import {
  createAppWithOutbox,
  createTestApp,
  outboxMails,
  PASSWORD,
  sessionCookieFrom,
  temporaryDirectory,
  type AppWithOutbox,
} from '../helpers/app.js';
import { formPost, pageGet } from '../helpers/forms.js';
import { defineDemoOrgRoles } from './org-roles.js';

const PREFIX = '/service-auth';

/** A program with a session (same-site, as a browser's script would be). */
function client(app: AppWithOutbox['app'], cookie: string) {
  const as = (test: request.Test) =>
    test.set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').set('Accept', 'application/json');
  return {
    get: (path: string) => as(request(app).get(PREFIX + path)),
    post: (path: string, body: object = {}) => as(request(app).post(PREFIX + path)).send(body),
    patch: (path: string, body: object = {}) => as(request(app).patch(PREFIX + path)).send(body),
    delete: (path: string) => as(request(app).delete(PREFIX + path)),
  };
}
type Client = ReturnType<typeof client>;

describe('organizations over HTTP', () => {
  let t: AppWithOutbox;
  let ada: Client; // creates the organizations: their owner
  let bob: Client; // admin in them
  let cy: Client; // member in them
  let dan: Client; // in none
  const ids: Record<string, number> = {};

  async function signIn(email: string): Promise<Client> {
    const user = await t.auth.users.create({ email, password: PASSWORD });
    ids[email] = user.id;
    const cookie = sessionCookieFrom(
      await request(t.app).post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200),
    )!;
    return client(t.app, cookie);
  }

  before(async () => {
    t = await createAppWithOutbox();
    defineDemoOrgRoles(t.auth);
    ada = await signIn('ada@example.com');
    bob = await signIn('bob@example.com');
    cy = await signIn('cy@example.com');
    dan = await signIn('dan@example.com');
  });
  after(() => t.close());

  /** An organization of Ada's, with Bob as admin and Cy as member. */
  async function team(slug: string): Promise<{ id: number; slug: string }> {
    const { org } = (await ada.post('/api/orgs', { name: `Team ${slug}`, slug }).expect(201)).body;
    await t.auth.orgs.addMember(org.id, 'bob@example.com', ['admin']);
    await t.auth.orgs.addMember(org.id, 'cy@example.com', ['member']);
    return org;
  }

  /** The token of the latest invitation mailed to `to`. */
  async function invitationToken(to: string): Promise<string> {
    const pattern = /\/service-auth\/invitations\/accept\?token=([A-Za-z0-9_-]+)/;
    const deadline = Date.now() + 5000;
    for (;;) {
      const mails = (await outboxMails(t.outbox, 0)).filter((mail) => mail.to === to && pattern.test(mail.text));
      if (mails.length) return pattern.exec(mails[mails.length - 1]!.text)![1]!;
      if (Date.now() > deadline) throw new Error(`no invitation mailed to ${to}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  describe('creating and listing', () => {
    it('creates an organization whose creator is its owner, and lists the caller’s with their roles', async () => {
      const created = await ada.post('/api/orgs', { name: 'Acme Corp' }).expect(201);
      expect(created.body.org).to.include({ slug: 'acme-corp', name: 'Acme Corp' });
      expect(Object.keys(created.body.org).sort()).to.deep.equal(['created_at', 'id', 'name', 'slug']);
      const { orgs } = (await ada.get('/api/orgs').expect(200)).body;
      expect(orgs.find((org: { slug: string }) => org.slug === 'acme-corp')).to.deep.include({
        id: created.body.org.id,
        roles: ['owner'],
      });
      expect((await dan.get('/api/orgs').expect(200)).body.orgs).to.deep.equal([]);
      // By id or by slug.
      expect((await ada.get(`/api/orgs/${created.body.org.id}`).expect(200)).body.org).to.deep.equal(created.body.org);
      expect((await ada.get('/api/orgs/acme-corp').expect(200)).body.org).to.deep.equal(created.body.org);
    });

    it('derives a free slug from the name, but refuses a taken slug asked for', async () => {
      await ada.post('/api/orgs', { name: 'Same Name' }).expect(201);
      const second = await ada.post('/api/orgs', { name: 'Same Name' }).expect(201);
      expect(second.body.org.slug).to.match(/^same-name-\d+$/);
      const taken = await ada.post('/api/orgs', { name: 'Other', slug: 'same-name' }).expect(409);
      expect(taken.body.code).to.equal('slug_taken');
    });

    it('refuses a malformed name or slug with 400 bad_request naming each field, and creates nothing', async () => {
      const before = (await ada.get('/api/orgs').expect(200)).body.orgs.length + 1; // and the one of 100 rockets
      const bad = await ada.post('/api/orgs', { name: '', slug: 'Not A Slug' }).expect(400);
      expect(bad.body.code).to.equal('bad_request');
      expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).to.deep.equal(['name', 'slug']);
      expect((await ada.post('/api/orgs', { name: 'x'.repeat(101) }).expect(400)).body.errors[0].field).to.equal(
        'name',
      );
      expect((await ada.post('/api/orgs', { name: '   ' }).expect(400)).body.errors[0].field).to.equal('name');
      expect((await ada.post('/api/orgs', { name: 'Fine', slug: 'a' }).expect(400)).body.errors[0].field).to.equal(
        'slug',
      );
      expect((await ada.post('/api/orgs', { name: 42 }).expect(400)).body.errors[0].field).to.equal('name');
      expect((await ada.post('/api/orgs', { name: 'Bell\u0007' }).expect(400)).body.errors[0].field).to.equal('name');
      // Digits alone name an organization by its id.
      expect((await ada.post('/api/orgs', { name: 'Digits', slug: '2026' }).expect(400)).body.errors[0].field).to.equal(
        'slug',
      );
      // Characters, not UTF-16 units: 100 of them fit.
      expect((await ada.post('/api/orgs', { name: '🚀'.repeat(100) }).expect(201)).body.org.name).to.equal(
        '🚀'.repeat(100),
      );
      expect((await ada.get('/api/orgs').expect(200)).body.orgs.length).to.equal(before);
    });

    it('answers an unknown organization and one the caller is not a member of alike: 404 not_found', async () => {
      const org = await team('secret-team');
      const outsider = await dan.get(`/api/orgs/${org.slug}`).expect(404);
      const unknown = await dan.get('/api/orgs/no-such-org').expect(404);
      expect(outsider.body.code).to.equal('not_found');
      expect(outsider.body.detail).to.equal(unknown.body.detail);
      await dan.get(`/api/orgs/${org.id}/members`).expect(404);
      await dan.patch(`/api/orgs/${org.slug}`, { name: 'Mine now' }).expect(404);
      await dan.delete(`/api/orgs/${org.slug}`).expect(404);
      await dan.post(`/api/orgs/${org.slug}/invitations`, { email: 'dan@example.com', roles: ['owner'] }).expect(404);
    });

    it('needs a session or a token, and a same-site request to change anything', async () => {
      await request(t.app).get(`${PREFIX}/api/orgs`).set('Accept', 'application/json').expect(401);
      const cookie = sessionCookieFrom(
        await request(t.app).post(`${PREFIX}/login`).send({ email: 'ada@example.com', password: PASSWORD }).expect(200),
      )!;
      const crossSite = await request(t.app)
        .post(`${PREFIX}/api/orgs`)
        .set('Cookie', cookie)
        .set('Sec-Fetch-Site', 'cross-site')
        .send({ name: 'Forged' })
        .expect(403);
      expect(crossSite.body.code).to.equal('csrf_rejected');
    });
  });

  describe('in an organization', () => {
    it('renames with update on it; members may only read it', async () => {
      const org = await team('rename-me');
      const renamed = await bob.patch(`/api/orgs/${org.slug}`, { name: 'Renamed' }).expect(200);
      expect(renamed.body.org).to.include({ id: org.id, slug: 'rename-me', name: 'Renamed' });
      expect((await cy.get(`/api/orgs/${org.slug}`).expect(200)).body.org.name).to.equal('Renamed');
      expect((await cy.patch(`/api/orgs/${org.slug}`, { name: 'Mine' }).expect(403)).body.code).to.equal('forbidden');
      expect((await ada.patch(`/api/orgs/${org.slug}`, { name: '' }).expect(400)).body.errors[0].field).to.equal(
        'name',
      );
    });

    it('deletes with delete on it (the owner), not as admin or member; then it is gone for everyone', async () => {
      const org = await team('delete-me');
      expect((await bob.delete(`/api/orgs/${org.slug}`).expect(403)).body.code).to.equal('forbidden');
      await cy.delete(`/api/orgs/${org.slug}`).expect(403);
      await ada.delete(`/api/orgs/${org.slug}`).expect(204);
      await ada.get(`/api/orgs/${org.slug}`).expect(404);
      await cy.get(`/api/orgs/${org.id}/members`).expect(404);
    });

    it('lists the members with their roles to those who may read them', async () => {
      const org = await team('listed');
      const { members } = (await cy.get(`/api/orgs/${org.slug}/members`).expect(200)).body;
      expect(members.map((m: { email: string; roles: string[] }) => [m.email, m.roles])).to.have.deep.members([
        ['ada@example.com', ['owner']],
        ['bob@example.com', ['admin']],
        ['cy@example.com', ['member']],
      ]);
      expect(members[0]).to.have.all.keys('user_id', 'email', 'roles', 'created_at');
    });

    it('changes roles only as far as the caller may assign: an admin makes members and admins, never owners', async () => {
      const org = await team('assign-rule');
      const cyId = ids['cy@example.com']!;
      const changed = await bob
        .patch(`/api/orgs/${org.slug}/members/${cyId}`, { roles: ['admin', 'viewer'] })
        .expect(200);
      expect(changed.body.member).to.deep.include({
        user_id: cyId,
        email: 'cy@example.com',
        roles: ['admin', 'viewer'],
      });
      const owner = await bob.patch(`/api/orgs/${org.slug}/members/${cyId}`, { roles: ['owner'] }).expect(403);
      expect(owner.body.code).to.equal('forbidden');
      // Nor take the owner role from someone, nor remove an owner.
      await bob.patch(`/api/orgs/${org.slug}/members/${ids['ada@example.com']}`, { roles: ['admin'] }).expect(403);
      await bob.delete(`/api/orgs/${org.slug}/members/${ids['ada@example.com']}`).expect(403);
      // Cy, an admin now, makes Bob a viewer; Bob, a viewer now, changes nobody's roles.
      await cy.patch(`/api/orgs/${org.slug}/members/${ids['bob@example.com']}`, { roles: ['viewer'] }).expect(200);
      expect((await t.auth.orgs.members(org.id)).find((m) => m.email === 'bob@example.com')!.roles).to.deep.equal([
        'viewer',
      ]);
      expect(
        (await bob.patch(`/api/orgs/${org.slug}/members/${cyId}`, { roles: ['member'] }).expect(403)).body.code,
      ).to.equal('forbidden');
      // The owner may make another owner.
      await ada.patch(`/api/orgs/${org.slug}/members/${cyId}`, { roles: ['owner'] }).expect(200);
    });

    it('refuses an unknown role (422), a malformed role list (400) and an unknown member (404), changing nothing', async () => {
      const org = await team('bad-roles');
      const cyId = ids['cy@example.com']!;
      expect(
        (await ada.patch(`/api/orgs/${org.slug}/members/${cyId}`, { roles: ['wizard'] }).expect(422)).body.code,
      ).to.equal('unknown_role');
      expect(
        (await ada.patch(`/api/orgs/${org.slug}/members/${cyId}`, { roles: 'member' }).expect(400)).body.errors[0]
          .field,
      ).to.equal('roles');
      expect(
        (await ada.patch(`/api/orgs/${org.slug}/members/${cyId}`, { roles: [] }).expect(400)).body.errors[0].field,
      ).to.equal('roles');
      await ada.patch(`/api/orgs/${org.slug}/members/${ids['dan@example.com']}`, { roles: ['member'] }).expect(404);
      await ada.patch(`/api/orgs/${org.slug}/members/not-a-number`, { roles: ['member'] }).expect(404);
      await ada.delete(`/api/orgs/${org.slug}/members/999999`).expect(404);
      expect((await t.auth.orgs.members(org.id)).find((m) => m.user_id === cyId)!.roles).to.deep.equal(['member']);
    });

    it('keeps a last owner: demoting or removing them is 409 last_owner', async () => {
      const org = await team('last-owner');
      const adaId = ids['ada@example.com']!;
      expect(
        (await ada.patch(`/api/orgs/${org.slug}/members/${adaId}`, { roles: ['admin'] }).expect(409)).body.code,
      ).to.equal('last_owner');
      expect((await ada.delete(`/api/orgs/${org.slug}/members/${adaId}`).expect(409)).body.code).to.equal('last_owner');
      await ada.patch(`/api/orgs/${org.slug}/members/${ids['cy@example.com']}`, { roles: ['owner'] }).expect(200);
      await ada.delete(`/api/orgs/${org.slug}/members/${adaId}`).expect(204);
    });

    it('refuses the member list to a member whose roles may not read memberships (403), and answers a global admin who is no member', async () => {
      const org = await team('guests');
      t.auth.defineOrgRole('guest', [{ action: 'read', subject: 'Organization' }]);
      await t.auth.orgs.addMember(org.id, 'dan@example.com', ['guest']);
      await dan.get(`/api/orgs/${org.slug}`).expect(200);
      expect((await dan.get(`/api/orgs/${org.slug}/members`).expect(403)).body.code).to.equal('forbidden');
      await t.auth.orgs.removeMember(org.id, 'dan@example.com');

      // A global role reaches every organization: reading it, and granting any role in it.
      t.auth.defineRole('staff', [{ action: 'manage', subject: 'all' }]);
      const staff = await t.auth.users.create({ email: 'staff@example.com', password: PASSWORD, roles: ['staff'] });
      const cookie = sessionCookieFrom(
        await request(t.app).post(`${PREFIX}/login`).send({ email: staff.email, password: PASSWORD }).expect(200),
      )!;
      const operator = client(t.app, cookie);
      expect((await operator.get(`/api/orgs/${org.slug}/members`).expect(200)).body.members).to.have.length(3);
      await operator.patch(`/api/orgs/${org.slug}/members/${ids['cy@example.com']}`, { roles: ['owner'] }).expect(200);
      expect((await operator.get('/api/orgs').expect(200)).body.orgs).to.deep.equal([]);
    });

    it('lets any member leave, even one who may not delete memberships', async () => {
      const org = await team('leave-me');
      await cy.delete(`/api/orgs/${org.slug}/members/${ids['bob@example.com']}`).expect(403);
      await cy.delete(`/api/orgs/${org.slug}/members/${ids['cy@example.com']}`).expect(204);
      await cy.get(`/api/orgs/${org.slug}`).expect(404);
      expect((await cy.get('/api/orgs').expect(200)).body.orgs.map((o: { slug: string }) => o.slug)).not.to.include(
        'leave-me',
      );
    });
  });

  describe('invitations', () => {
    it('invites with create Invitation and assign, mails a link, lists it without its token, and the invitee accepts it', async () => {
      const org = await team('invites');
      const created = await bob
        .post(`/api/orgs/${org.slug}/invitations`, { email: ' Eve@Example.com ', roles: ['member'] })
        .expect(201);
      expect(created.body.invitation).to.have.all.keys('id', 'email', 'roles', 'created_at', 'expires_at');
      expect(created.body.invitation).to.deep.include({ email: 'eve@example.com', roles: ['member'] });
      const { invitations } = (await ada.get(`/api/orgs/${org.slug}/invitations`).expect(200)).body;
      expect(invitations).to.deep.equal([created.body.invitation]);

      const token = await invitationToken('eve@example.com');
      expect(JSON.stringify(invitations)).not.to.contain(token);
      const eve = await signIn('eve@example.com');
      const accepted = await eve.post('/api/invitations/accept', { token }).expect(200);
      expect(accepted.body).to.deep.equal({
        org: { id: org.id, slug: org.slug, name: `Team ${org.slug}`, created_at: accepted.body.org.created_at },
        roles: ['member'],
      });
      expect(
        (await eve.get(`/api/orgs/${org.slug}/members`).expect(200)).body.members.map(
          (m: { email: string }) => m.email,
        ),
      ).to.include('eve@example.com');
      expect((await ada.get(`/api/orgs/${org.slug}/invitations`).expect(200)).body.invitations).to.deep.equal([]);
      // Once only.
      expect((await eve.post('/api/invitations/accept', { token }).expect(400)).body.code).to.equal(
        'invalid_invitation',
      );
    });

    it('refuses to invite with a role the caller may not assign, or without create Invitation', async () => {
      const org = await team('invite-rule');
      expect(
        (
          await bob
            .post(`/api/orgs/${org.slug}/invitations`, { email: 'fay@example.com', roles: ['owner'] })
            .expect(403)
        ).body.code,
      ).to.equal('forbidden');
      expect(
        (
          await cy
            .post(`/api/orgs/${org.slug}/invitations`, { email: 'fay@example.com', roles: ['viewer'] })
            .expect(403)
        ).body.code,
      ).to.equal('forbidden');
      expect((await cy.get(`/api/orgs/${org.slug}/invitations`).expect(403)).body.code).to.equal('forbidden');
      expect((await ada.get(`/api/orgs/${org.slug}/invitations`).expect(200)).body.invitations).to.deep.equal([]);
    });

    it('refuses a member’s address (409), an unknown role (422), a malformed address (422) or body (400)', async () => {
      const org = await team('invite-input');
      expect(
        (
          await ada
            .post(`/api/orgs/${org.slug}/invitations`, { email: 'CY@example.com', roles: ['member'] })
            .expect(409)
        ).body.code,
      ).to.equal('already_member');
      expect(
        (
          await ada
            .post(`/api/orgs/${org.slug}/invitations`, { email: 'gus@example.com', roles: ['wizard'] })
            .expect(422)
        ).body.code,
      ).to.equal('unknown_role');
      expect(
        (
          await ada
            .post(`/api/orgs/${org.slug}/invitations`, { email: 'not an address', roles: ['member'] })
            .expect(422)
        ).body.code,
      ).to.equal('invalid_email');
      const bad = await ada.post(`/api/orgs/${org.slug}/invitations`, { roles: 'member' }).expect(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).to.deep.equal(['email', 'roles']);
      expect((await ada.get(`/api/orgs/${org.slug}/invitations`).expect(200)).body.invitations).to.deep.equal([]);
    });

    it('accepts only for the invited confirmed address: another user is 403, a revoked or unknown token 400', async () => {
      const org = await team('accept-rules');
      await ada.post(`/api/orgs/${org.slug}/invitations`, { email: 'hal@example.com', roles: ['viewer'] }).expect(201);
      const token = await invitationToken('hal@example.com');
      expect((await dan.post('/api/invitations/accept', { token }).expect(403)).body.code).to.equal(
        'invitation_email_mismatch',
      );
      expect((await dan.post('/api/invitations/accept', { token: 'nope' }).expect(400)).body.code).to.equal(
        'invalid_invitation',
      );
      expect((await dan.post('/api/invitations/accept', {}).expect(400)).body.code).to.equal('bad_request');

      const { invitations } = (await ada.get(`/api/orgs/${org.slug}/invitations`).expect(200)).body;
      expect(
        (await cy.delete(`/api/orgs/${org.slug}/invitations/${invitations[0].id}`).expect(403)).body.code,
      ).to.equal('forbidden');
      await bob.delete(`/api/orgs/${org.slug}/invitations/${invitations[0].id}`).expect(204);
      await bob.delete(`/api/orgs/${org.slug}/invitations/${invitations[0].id}`).expect(404);
      await bob.delete(`/api/orgs/${org.slug}/invitations/x`).expect(404);
      const hal = await signIn('hal@example.com');
      expect((await hal.post('/api/invitations/accept', { token }).expect(400)).body.code).to.equal(
        'invalid_invitation',
      );
      await hal.get(`/api/orgs/${org.slug}`).expect(404);
    });

    it('answers 409 already_member to an invitee who became a member meanwhile, and keeps the invitation usable', async () => {
      const org = await team('meanwhile');
      await ada.post(`/api/orgs/${org.slug}/invitations`, { email: 'dan@example.com', roles: ['viewer'] }).expect(201);
      const token = await invitationToken('dan@example.com');
      await t.auth.orgs.addMember(org.id, 'dan@example.com', ['member']);
      expect((await dan.post('/api/invitations/accept', { token }).expect(409)).body.code).to.equal('already_member');
      await t.auth.orgs.removeMember(org.id, 'dan@example.com');
      expect((await dan.post('/api/invitations/accept', { token }).expect(200)).body.roles).to.deep.equal(['viewer']);
    });

    it('refuses to replace a pending invitation (revoking it) to one who may create invitations but not delete them', async () => {
      t.auth.defineOrgRole('recruiter', [
        { action: 'create', subject: 'Invitation' },
        { action: 'assign', subject: 'OrgRole', conditions: { name: 'viewer' } },
      ]);
      const org = await team('replace-rule');
      await t.auth.orgs.addMember(org.id, 'dan@example.com', ['recruiter']);
      const pending = (
        await ada.post(`/api/orgs/${org.slug}/invitations`, { email: 'kim@example.com', roles: ['admin'] }).expect(201)
      ).body.invitation;
      const refused = await dan
        .post(`/api/orgs/${org.slug}/invitations`, { email: 'KIM@example.com', roles: ['viewer'] })
        .expect(403);
      expect(refused.body.code).to.equal('forbidden');
      expect((await ada.get(`/api/orgs/${org.slug}/invitations`).expect(200)).body.invitations).to.deep.equal([
        pending,
      ]);
      // An address with no invitation pending, the recruiter may invite.
      await dan.post(`/api/orgs/${org.slug}/invitations`, { email: 'lou@example.com', roles: ['viewer'] }).expect(201);
      // One who may delete invitations replaces it.
      await bob.post(`/api/orgs/${org.slug}/invitations`, { email: 'kim@example.com', roles: ['member'] }).expect(201);
      const left = (await ada.get(`/api/orgs/${org.slug}/invitations`).expect(200)).body.invitations;
      expect(left.map((i: { email: string; roles: string[] }) => [i.email, i.roles])).to.deep.equal([
        ['lou@example.com', ['viewer']],
        ['kim@example.com', ['member']],
      ]);
    });

    it('does not let an invitation of another organization be revoked through this one', async () => {
      const one = await team('revoke-one');
      const two = await team('revoke-two');
      const { invitation } = (
        await ada.post(`/api/orgs/${two.slug}/invitations`, { email: 'ivy@example.com', roles: ['member'] }).expect(201)
      ).body;
      await ada.delete(`/api/orgs/${one.slug}/invitations/${invitation.id}`).expect(404);
      expect((await ada.get(`/api/orgs/${two.slug}/invitations`).expect(200)).body.invitations).to.have.length(1);
    });
  });

  describe('with bearer tokens', () => {
    it('acts with a token made without scopes, and refuses one with scopes (403 insufficient_scope)', async () => {
      const org = await team('tokens');
      const { token: all } = await t.auth.tokens.create('ada@example.com', { name: 'all' });
      const { token: scoped } = await t.auth.tokens.create('ada@example.com', {
        name: 'scoped',
        scopes: ['reports:read'],
      });
      const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
      expect(
        (await request(t.app).get(`${PREFIX}/api/orgs/${org.slug}/members`).set(bearer(all)).expect(200)).body.members,
      ).to.have.length(3);
      await request(t.app)
        .patch(`${PREFIX}/api/orgs/${org.slug}`)
        .set(bearer(all))
        .send({ name: 'By token' })
        .expect(200);
      expect((await request(t.app).get(`${PREFIX}/api/orgs`).set(bearer(scoped)).expect(403)).body.code).to.equal(
        'insufficient_scope',
      );
      expect(
        (await request(t.app).get(`${PREFIX}/api/orgs/${org.slug}`).set(bearer(scoped)).expect(403)).body.code,
      ).to.equal('insufficient_scope');
      // Before the organization is looked up: one that does not exist reads the same.
      expect(
        (await request(t.app).get(`${PREFIX}/api/orgs/no-such-org`).set(bearer(scoped)).expect(403)).body.code,
      ).to.equal('insufficient_scope');
    });

    it('acts with a token bound to an organization in that one only: it lists only it, and neither creates nor joins another', async () => {
      const mine = await team('bound-here');
      const other = await team('bound-elsewhere');
      const { token } = await t.auth.tokens.create('ada@example.com', { name: 'bound', org: mine.slug });
      const bound = (test: request.Test) => test.set('Authorization', `Bearer ${token}`);
      expect(
        (await bound(request(t.app).get(`${PREFIX}/api/orgs`)).expect(200)).body.orgs.map(
          (o: { slug: string }) => o.slug,
        ),
      ).to.deep.equal(['bound-here']);
      await bound(request(t.app).get(`${PREFIX}/api/orgs/${mine.slug}/members`)).expect(200);
      expect((await bound(request(t.app).get(`${PREFIX}/api/orgs/${other.slug}`)).expect(403)).body.code).to.equal(
        'forbidden',
      );
      expect(
        (
          await bound(request(t.app).post(`${PREFIX}/api/orgs`))
            .send({ name: 'By bound token' })
            .expect(403)
        ).body.code,
      ).to.equal('forbidden');
      expect(
        (
          await bound(request(t.app).post(`${PREFIX}/api/invitations/accept`))
            .send({ token: 'whatever' })
            .expect(403)
        ).body.code,
      ).to.equal('forbidden');
    });
  });
});

describe('SERVICE_AUTH_ORG_CREATION=admins', () => {
  it('lets only global admins and holders of create Organization create organizations', async () => {
    const t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_ORG_CREATION: 'admins' });
    try {
      defineDemoOrgRoles(t.auth);
      t.auth.defineRole('founder', [{ action: 'create', subject: 'Organization' }]);
      const login = async (email: string, options: { isAdmin?: boolean; roles?: string[] } = {}) => {
        await t.auth.users.create({ email, password: PASSWORD, ...options });
        return client(
          t.app,
          sessionCookieFrom(
            await request(t.app).post(`${PREFIX}/login`).send({ email, password: PASSWORD }).expect(200),
          )!,
        );
      };
      const plain = await login('plain@example.com');
      expect((await plain.post('/api/orgs', { name: 'Nope' }).expect(403)).body.code).to.equal('forbidden');
      // The page says so instead of showing the form, and a form sent anyway is told the same.
      const plainCookie = sessionCookieFrom(
        await request(t.app)
          .post(`${PREFIX}/login`)
          .send({ email: 'plain@example.com', password: PASSWORD })
          .expect(200),
      )!;
      const page = await pageGet(t.app, '/orgs').set('Cookie', plainCookie).expect(200);
      expect(page.text)
        .to.contain('Only administrators may create organizations here.')
        .and.not.contain('action="/service-auth/api/orgs"');
      const form = await formPost(t.app, '/api/orgs', { name: 'Nope', slug: '' })
        .set('Cookie', plainCookie)
        .expect(403);
      expect(form.text).to.contain('Only administrators may create organizations here.');
      await (await login('root@example.com', { isAdmin: true })).post('/api/orgs', { name: 'By admin' }).expect(201);
      await (
        await login('founder@example.com', { roles: ['founder'] })
      )
        .post('/api/orgs', { name: 'By founder' })
        .expect(201);
      expect((await plain.get('/api/orgs').expect(200)).body.orgs).to.deep.equal([]);
    } finally {
      await t.auth.close();
    }
  });
});

describe('the limits of the organization endpoints', () => {
  it('counts invitations per client with the other mails asked for, and answers 429 past it', async () => {
    const outbox = await temporaryDirectory();
    const t = await createTestApp({
      SERVICE_AUTH_MAIL_OUTBOX: outbox,
      SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD: '2 per minute',
    });
    try {
      defineDemoOrgRoles(t.auth);
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      const ada = client(
        t.app,
        sessionCookieFrom(
          await request(t.app)
            .post(`${PREFIX}/login`)
            .send({ email: 'ada@example.com', password: PASSWORD })
            .expect(200),
        )!,
      );
      await ada.post('/api/orgs', { name: 'Limited', slug: 'limited' }).expect(201);
      const first = await ada
        .post('/api/orgs/limited/invitations', { email: 'a@example.com', roles: ['member'] })
        .expect(201);
      expect(first.headers['ratelimit-remaining']).to.equal('1');
      await ada.post('/api/orgs/limited/invitations', { email: 'b@example.com', roles: ['member'] }).expect(201);
      const refused = await ada
        .post('/api/orgs/limited/invitations', { email: 'c@example.com', roles: ['member'] })
        .expect(429);
      expect(refused.body.code).to.equal('rate_limited');
      expect((await t.auth.orgs.invitations('limited')).map((i) => i.email)).to.deep.equal([
        'a@example.com',
        'b@example.com',
      ]);
    } finally {
      await t.auth.close();
      await rm(outbox, { recursive: true, force: true });
    }
  });
});
