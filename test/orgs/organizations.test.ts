/**
 * `auth.orgs` on SQLite: organizations, slugs, members and their roles, the last-owner rule, and
 * what a refused change leaves behind (nothing). One application for the file: each test makes
 * its own users and organizations.
 */
import { expect } from 'chai';
import { ApiToken, Invitation, Membership, Organization } from '../../src/storage/entities/index.js';
import request from 'supertest';
import { login } from '../accounts/accounts.js';
import { PASSWORD, type TestApp } from '../helpers/app.js';
import { PROBLEM } from '../helpers/problems.js';
import { newUser, orgApp, refusal } from './org-app.js';

describe('auth.orgs.create with SERVICE_AUTH_ORG_CREATION=admins', () => {
  it('creates for any owner: the setting limits HTTP requests only, not code', async () => {
    const t = await orgApp({ SERVICE_AUTH_ORG_CREATION: 'admins' });
    try {
      const plain = await newUser(t, 'plain');
      const org = await t.auth.orgs.create({ name: 'By code', owner: plain.id }, plain);
      expect(await t.auth.orgs.membership(org.id, plain.id)).to.deep.include({ roles: ['owner'] });
    } finally {
      await t.auth.close();
    }
  });
});

describe('organizations', () => {
  let t: TestApp;

  before(async () => {
    t = await orgApp();
  });
  after(async () => {
    await t.auth.close();
  });

  /** What the organization tables and the audit log hold, to show that a refusal changed nothing. */
  async function snapshot() {
    const em = (await t.parts.storage.em()).fork();
    return {
      orgs: await em.count(Organization, {}),
      memberships: (await em.find(Membership, {}, { orderBy: { id: 'asc' } })).map((m) => [
        m.org.id,
        m.user.id,
        m.roles,
      ]),
      invitations: await em.count(Invitation, {}),
      records: (await t.auth.audit.query({ limit: 1 }))[0]?.id,
    };
  }

  describe('creating, finding, renaming, deleting', () => {
    it('makes the creator a member with the owner roles; find answers by id, by slug and by a string of digits', async () => {
      const ada = await newUser(t, 'ada');
      const org = await t.auth.orgs.create({ name: 'Globex', owner: ada.id });
      expect(org).to.include({ slug: 'globex', name: 'Globex' });
      expect(Date.parse(org.created_at)).to.be.closeTo(Date.now(), 60_000);
      for (const ref of [org.id, 'globex', String(org.id)])
        expect(await t.auth.orgs.find(ref), String(ref)).to.deep.equal(org);
      expect(await t.auth.orgs.get('globex')).to.deep.equal(org);
      expect(await t.auth.orgs.membership(org.id, ada.id)).to.deep.include({ roles: ['owner'] });
      expect(await t.auth.orgs.members(org.slug)).to.deep.equal([
        { user_id: ada.id, email: ada.email, roles: ['owner'], created_at: org.created_at },
      ]);
    });

    it('derives the slug from the name (lower case, accents dropped, never digits alone), with a numeric suffix when taken', async () => {
      const owner = (await newUser(t)).id;
      const slugs = [];
      for (const name of ['Café Crème', 'café crème!', 'CAFÉ CRÈME', '2024', '!!', 'x'.repeat(100)])
        slugs.push((await t.auth.orgs.create({ name, owner })).slug);
      expect(slugs).to.deep.equal(['cafe-creme', 'cafe-creme-2', 'cafe-creme-3', 'org-2024', 'org', 'x'.repeat(40)]);
    });

    it('refuses a taken slug (409 slug_taken), a malformed slug or name (400 bad_request) and an unknown owner (404), writing nothing', async () => {
      const owner = (await newUser(t)).id;
      await t.auth.orgs.create({ name: 'Initech', slug: 'initech', owner });
      const before = await snapshot();
      await refusal(t.auth.orgs.create({ name: 'Initech again', slug: 'initech', owner }), 'slug_taken');
      for (const slug of ['I', 'Initech', 'ini tech', '12345', 'a'.repeat(49), 'ini_tech']) {
        const error = await refusal(t.auth.orgs.create({ name: 'Fine', slug, owner }), 'bad_request');
        expect(error.errors).to.deep.equal([
          { field: 'slug', message: `${JSON.stringify(slug)} is not a slug (2 to 48 of a-z 0-9 -, not digits alone)` },
        ]);
      }
      for (const name of ['', '   ', 'x'.repeat(101), 'tab\there', 42 as unknown as string]) {
        const error = await refusal(t.auth.orgs.create({ name, owner }), 'bad_request');
        expect(error.errors?.[0]).to.include({ field: 'name' });
      }
      await refusal(t.auth.orgs.create({ name: 'Nobody’s', owner: 'nobody@example.com' }), 'not_found');
      expect((await refusal(t.auth.orgs.create({ name: 'Ownerless' } as never), 'bad_request')).errors).to.deep.equal([
        { field: 'owner', message: 'the user who becomes its owner is required' },
      ]);
      expect(await snapshot()).to.deep.equal(before);
    });

    it('finds nothing for what names no organization', async () => {
      for (const ref of [999_999, 0, -1, 1.5, '999999', 'no-such-org', 'Not A Slug', '', '#1'])
        expect(await t.auth.orgs.find(ref), String(ref)).to.equal(null);
      await refusal(t.auth.orgs.get('no-such-org'), 'not_found');
    });

    it('renames, keeping the slug; the new name shows in find at once', async () => {
      const owner = await newUser(t);
      const org = await t.auth.orgs.create({ name: 'Umbrella', owner: owner.id });
      expect(await t.auth.orgs.find(org.id)).to.include({ name: 'Umbrella' });
      expect(await t.auth.orgs.rename(org.slug, '  Umbrella Corp  ', owner)).to.deep.equal({
        ...org,
        name: 'Umbrella Corp',
      });
      expect(await t.auth.orgs.find(org.slug)).to.deep.equal({ ...org, name: 'Umbrella Corp' });
      const [record] = await t.auth.audit.query({ type: 'org_renamed', limit: 1 });
      expect(record).to.deep.include({
        userId: owner.id,
        detail: {
          actor: 'api',
          org_id: org.id,
          org: 'umbrella',
          name: 'Umbrella Corp',
          previous_name: 'Umbrella',
          by: owner.id,
        },
      });
      await refusal(t.auth.orgs.rename(org.id, ''), 'bad_request');
    });

    it('deletes the organization with its memberships, invitations and bound tokens, and nothing of another', async () => {
      const [owner, member] = [await newUser(t), await newUser(t)];
      const doomed = await t.auth.orgs.create({ name: 'Doomed', owner: owner.id });
      const kept = await t.auth.orgs.create({ name: 'Kept', owner: owner.id });
      await t.auth.orgs.addMember(doomed.id, member.id, ['member']);
      await t.auth.orgs.invite(doomed.id, { email: 'someone@example.com', roles: ['viewer'] });
      const bound = await t.auth.tokens.create(member.id, { name: 'bound' });
      const unbound = await t.auth.tokens.create(member.id, { name: 'unbound' });
      const em = (await t.parts.storage.em()).fork();
      await em.nativeUpdate(ApiToken, { publicId: bound.id }, { org: doomed.id });

      expect(await t.auth.orgs.delete(doomed.slug)).to.deep.equal({ ...doomed, members: 2 });
      expect(await t.auth.orgs.find(doomed.id)).to.equal(null);
      expect(await t.auth.orgs.membership(doomed.id, member.id)).to.equal(null);
      expect(await em.count(Membership, { org: doomed.id })).to.equal(0);
      expect(await em.count(Invitation, { org: doomed.id })).to.equal(0);
      expect((await t.auth.tokens.list({ user: member.id })).map((token) => token.id)).to.deep.equal([unbound.id]);
      expect(await t.auth.orgs.find(kept.id)).to.deep.equal(kept);
      expect(await t.auth.orgs.members(kept.id)).to.have.length(1);
      await refusal(t.auth.orgs.delete(doomed.id), 'not_found');
    });

    it('with onlyOwners, deletes an organization only while all its members are owners (409 org_has_members), counting one who joins meanwhile', async () => {
      const [owner, coOwner, member] = [await newUser(t), await newUser(t), await newUser(t)];
      const org = await t.auth.orgs.create({ name: 'Owners only', owner: owner.id });
      await t.auth.orgs.addMember(org.id, coOwner.id, ['owner', 'admin']);
      await t.auth.orgs.addMember(org.id, member.id, ['member']);
      const before = await snapshot();
      const refused = await refusal(t.auth.orgs.delete(org.id, null, { onlyOwners: true }), 'org_has_members');
      expect(refused.message).to.equal('owners-only has 1 member besides its owners');
      expect(await snapshot()).to.deep.equal(before);
      await t.auth.orgs.removeMember(org.id, member.id);
      expect(await t.auth.orgs.delete(org.id, null, { onlyOwners: true })).to.deep.equal({ ...org, members: 2 });

      // A member added at the same moment is either counted (the delete refused) or too late (404): never deleted unseen.
      for (let round = 0; round < 5; round++) {
        const raced = await t.auth.orgs.create({ name: `Raced ${round}`, owner: owner.id });
        const [added, deleted] = await Promise.allSettled([
          t.auth.orgs.addMember(raced.id, member.id, ['member']),
          t.auth.orgs.delete(raced.id, null, { onlyOwners: true }),
        ]);
        if (deleted.status === 'fulfilled') {
          expect(added.status).to.equal('rejected');
          expect((added as PromiseRejectedResult).reason.code).to.equal('not_found');
        } else {
          expect(deleted.reason.code).to.equal('org_has_members');
          expect(await t.auth.orgs.membership(raced.id, member.id)).to.deep.include({ roles: ['member'] });
        }
      }
    });

    it('lists every organization with its number of members, and a user’s organizations with their roles there', async () => {
      const [owner, member] = [await newUser(t), await newUser(t)];
      const b = await t.auth.orgs.create({ name: 'Listed B', owner: owner.id });
      const a = await t.auth.orgs.create({ name: 'Listed A', owner: owner.id });
      await t.auth.orgs.addMember(b.id, member.id, ['viewer', 'member']);
      const all = await t.auth.orgs.list();
      expect(all.map((org) => org.slug)).to.deep.equal([...all.map((org) => org.slug)].sort());
      expect(all.filter((org) => org.slug.startsWith('listed-'))).to.deep.equal([
        { ...a, members: 1 },
        { ...b, members: 2 },
      ]);
      expect(await t.auth.orgs.listFor(member.email)).to.deep.equal([{ ...b, roles: ['member', 'viewer'] }]);
      expect(await t.auth.orgs.listFor(owner)).to.deep.equal([
        { ...a, roles: ['owner'] },
        { ...b, roles: ['owner'] },
      ]);
      await refusal(t.auth.orgs.listFor('nobody@example.com'), 'not_found');
    });
  });

  describe('members and their roles', () => {
    it('adds a member with roles (sorted, each once), seen by membership at once; a member twice is 409 already_member', async () => {
      const [owner, bob] = [await newUser(t), await newUser(t)];
      const org = await t.auth.orgs.create({ name: 'Members', owner: owner.id });
      expect(await t.auth.orgs.membership(org.id, bob.id)).to.equal(null);
      const member = await t.auth.orgs.addMember(org.slug, bob.email, ['viewer', 'member', 'viewer']);
      expect(member).to.deep.include({ user_id: bob.id, email: bob.email, roles: ['member', 'viewer'] });
      expect(await t.auth.orgs.membership(org.id, bob.id)).to.deep.equal({
        roles: ['member', 'viewer'],
        created_at: member.created_at,
      });
      const before = await snapshot();
      await refusal(t.auth.orgs.addMember(org.id, bob.id, ['admin']), 'already_member');
      expect(await snapshot()).to.deep.equal(before);
    });

    it('refuses unknown roles (422 unknown_role), malformed or no roles (400 bad_request), unknown users and organizations (404), writing nothing', async () => {
      const [owner, bob] = [await newUser(t), await newUser(t)];
      const org = await t.auth.orgs.create({ name: 'Strict', owner: owner.id });
      const before = await snapshot();
      const unknown = await refusal(
        t.auth.orgs.addMember(org.id, bob.id, ['member', 'overlord', 'czar']),
        'unknown_role',
      );
      expect(unknown.message).to.equal('no organization role named "czar", "overlord"');
      for (const roles of [[], ['has space'], [''], [42], 'member', null]) {
        const error = await refusal(t.auth.orgs.addMember(org.id, bob.id, roles as string[]), 'bad_request');
        expect(error.errors?.[0]).to.include({ field: 'roles' });
      }
      await refusal(t.auth.orgs.setMemberRoles(org.id, owner.id, ['overlord']), 'unknown_role');
      await refusal(t.auth.orgs.addMember(org.id, 'nobody@example.com', ['member']), 'not_found');
      await refusal(t.auth.orgs.addMember('no-such-org', bob.id, ['member']), 'not_found');
      expect(await snapshot()).to.deep.equal(before);
    });

    it('keeps an owner: demoting or removing the last one is 409 last_owner; with two, either may go', async () => {
      const [ada, bob, cy] = [await newUser(t), await newUser(t), await newUser(t)];
      const org = await t.auth.orgs.create({ name: 'Owned', owner: ada.id });
      await t.auth.orgs.addMember(org.id, cy.id, ['member']);
      const before = await snapshot();
      await refusal(t.auth.orgs.setMemberRoles(org.id, ada.id, ['admin']), 'last_owner');
      const lastOwner = await refusal(t.auth.orgs.removeMember(org.id, ada.id), 'last_owner');
      expect(lastOwner.message).to.equal(
        `${ada.email} is the last owner of owned: give another member an owner role first, or delete the organization`,
      );
      expect(await snapshot()).to.deep.equal(before);

      await t.auth.orgs.addMember(org.id, bob.id, ['owner']);
      expect(await t.auth.orgs.setMemberRoles(org.id, ada.id, ['admin', 'member'])).to.deep.include({
        roles: ['admin', 'member'],
      });
      expect(await t.auth.orgs.membership(org.id, ada.id)).to.deep.include({ roles: ['admin', 'member'] });
      await refusal(t.auth.orgs.removeMember(org.id, bob.id), 'last_owner');
      await t.auth.orgs.removeMember(org.id, cy.id);
      expect(await t.auth.orgs.membership(org.id, cy.id)).to.equal(null);
      await refusal(t.auth.orgs.removeMember(org.id, cy.id), 'not_found');
      await refusal(t.auth.orgs.setMemberRoles(org.id, cy.id, ['member']), 'not_found');
      expect((await t.auth.orgs.members(org.id)).map((m) => [m.email, m.roles])).to.deep.equal([
        [ada.email, ['admin', 'member']],
        [bob.email, ['owner']],
      ]);
    });
  });

  describe('deleting a user', () => {
    it('ends their memberships', async () => {
      const [owner, bob] = [await newUser(t), await newUser(t)];
      const org = await t.auth.orgs.create({ name: 'Leavers', owner: owner.id });
      await t.auth.orgs.addMember(org.id, bob.id, ['member']);
      await t.auth.users.delete(bob.id);
      expect((await t.auth.orgs.members(org.id)).map((m) => m.user_id)).to.deep.equal([owner.id]);
      const [record] = await t.auth.audit.query({ type: 'member_removed', limit: 1 });
      expect(record).to.deep.include({
        userId: bob.id,
        detail: { actor: 'api', org_id: org.id, org: 'leavers', roles: 'member', by: null, because: 'user_deleted' },
      });
    });

    it('refuses to delete the last owner of an organization with other members (409 last_owner), changing nothing', async () => {
      const [owner, bob] = [await newUser(t), await newUser(t)];
      const org = await t.auth.orgs.create({ name: 'Kept Owner', owner: owner.id });
      await t.auth.orgs.addMember(org.id, bob.id, ['member']);
      const token = await t.auth.tokens.create(owner.id, { name: 'still here' });
      const before = await snapshot();
      await refusal(t.auth.users.delete(owner.id), 'last_owner');
      expect(await snapshot()).to.deep.equal(before);
      expect(await t.auth.users.findById(owner.id)).to.not.equal(null);
      expect(await t.auth.tokens.verify(token.token)).to.not.equal(null);
    });

    it('answers DELETE /me of such an owner with 409 last_owner, as problem details, and keeps the account', async () => {
      const [owner, bob] = [await newUser(t), await newUser(t)];
      const org = await t.auth.orgs.create({ name: 'Kept Over HTTP', owner: owner.id });
      await t.auth.orgs.addMember(org.id, bob.id, ['member']);
      const cookie = await login(t, owner.email);
      const response = await request(t.app)
        .delete('/service-auth/me')
        .set('Cookie', cookie)
        .send({ password: PASSWORD })
        .expect(409)
        .expect('Content-Type', PROBLEM);
      expect(response.body).to.include({
        code: 'last_owner',
        detail: `${owner.email} is the last owner of kept-over-http: give another member an owner role first, or delete the organization`,
      });
      await request(t.app).get('/service-auth/me').set('Cookie', cookie).expect(200);
    });

    it('deletes an organization’s only member; the organization stays, with no members', async () => {
      const owner = await newUser(t);
      const org = await t.auth.orgs.create({ name: 'Alone', owner: owner.id });
      await t.auth.users.delete(owner.id);
      expect(await t.auth.orgs.find(org.id)).to.deep.equal(org);
      expect(await t.auth.orgs.members(org.id)).to.deep.equal([]);
    });
  });
});
