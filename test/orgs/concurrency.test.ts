/**
 * Changes to one organization arriving at once, on SQLite and PostgreSQL (where they really run
 * side by side, on several connections): the organization's row is locked for the change, so the
 * last-owner rule, single-use invitations and unique slugs hold whatever the interleaving, and
 * the owner's row for a creation, so that the bound on owned organizations holds too. And
 * what differs between the two databases: counting members, ordering by a joined column, cascades.
 */
import { expect } from 'chai';
import { AuthError } from '../../src/errors.js';
import { ApiToken, Membership } from '../../src/storage/entities/index.js';
import { temporaryDatabase, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { newUser, orgApp } from './org-app.js';

/** Each outcome: `ok` or the AuthError's code. */
async function outcomes(work: Promise<unknown>[]): Promise<string[]> {
  const settled = await Promise.allSettled(work);
  return settled
    .map((result) => {
      if (result.status === 'fulfilled') return 'ok';
      if (result.reason instanceof AuthError) return result.reason.code;
      throw result.reason;
    })
    .sort();
}

function concurrencySuite(database: () => Promise<{ url: string; drop: () => Promise<void> }>) {
  let t: TestApp;
  let drop: () => Promise<void>;

  before(async () => {
    const made = await database();
    drop = made.drop;
    // The bound on owned organizations at 5: the most any other test here makes one owner own is 4.
    t = await orgApp({ SERVICE_AUTH_DATABASE_URL: made.url, SERVICE_AUTH_MAX_ORGS_PER_USER: 5 });
  });
  after(async () => {
    await t?.auth.close();
    await drop?.();
  });

  it('of two owners removing each other at once, one goes and the other stays (409 last_owner)', async () => {
    const [ada, bob] = [await newUser(t, 'ada'), await newUser(t, 'bob')];
    const org = await t.auth.orgs.create({ name: 'Standoff', owner: ada.id });
    await t.auth.orgs.addMember(org.id, bob.id, ['owner']);
    expect(
      await outcomes([
        t.auth.orgs.removeMember(org.id, bob.id),
        t.auth.orgs.setMemberRoles(org.id, ada.id, ['member']),
      ]),
    ).to.deep.equal(['last_owner', 'ok']);
    const owners = (await t.auth.orgs.members(org.id)).filter((member) => member.roles.includes('owner'));
    expect(owners).to.have.length(1);
  });

  it('of two owners, one deleting their account while the other is removed, one goes and the other stays (409 last_owner)', async () => {
    const [ada, bob, cy] = [await newUser(t, 'ada'), await newUser(t, 'bob'), await newUser(t, 'cy')];
    const org = await t.auth.orgs.create({ name: 'Exodus', owner: ada.id });
    await t.auth.orgs.addMember(org.id, bob.id, ['owner']);
    await t.auth.orgs.addMember(org.id, cy.id, ['member']);
    expect(await outcomes([t.auth.users.delete(ada.id), t.auth.orgs.removeMember(org.id, bob.id)])).to.deep.equal([
      'last_owner',
      'ok',
    ]);
    const members = await t.auth.orgs.members(org.id);
    expect(members.filter((member) => member.roles.includes('owner'))).to.have.length(1);
    expect(members.map((member) => member.user_id)).to.include(cy.id);
  });

  it('accepts one invitation once when it is accepted twice at once', async () => {
    const owner = await newUser(t, 'owner');
    const org = await t.auth.orgs.create({ name: 'Once', owner: owner.id });
    const cy = await newUser(t, 'cy');
    let token = '';
    t.auth.mail = { send: async (mail) => void (token = /token=([\w-]+)/.exec(mail.text)![1]!) };
    await t.auth.orgs.invite(org.id, { email: cy.email, roles: ['member'] });
    const results = await outcomes([
      t.auth.orgs.acceptInvitation(token, cy.id),
      t.auth.orgs.acceptInvitation(token, cy.id),
    ]);
    expect(results[1]).to.equal('ok');
    expect(['already_member', 'invalid_invitation']).to.include(results[0]);
    expect((await t.auth.orgs.members(org.id)).map((member) => member.user_id)).to.deep.equal([owner.id, cy.id]);
  });

  it('gives organizations created at once from one name distinct slugs, and one given slug to one of them (409 slug_taken)', async () => {
    const owner = (await newUser(t)).id;
    const derived = await Promise.all([1, 2, 3].map(() => t.auth.orgs.create({ name: 'Rush', owner })));
    expect(derived.map((org) => org.slug).sort()).to.deep.equal(['rush', 'rush-2', 'rush-3']);
    expect(
      await outcomes([1, 2].map(() => t.auth.orgs.create({ name: 'Claim', slug: 'claimed', owner }))),
    ).to.deep.equal(['ok', 'slug_taken']);
  });

  it('creates no more than SERVICE_AUTH_MAX_ORGS_PER_USER for one owner of ten creations at once (409 too_many_organizations)', async () => {
    const owner = (await newUser(t)).id;
    const results = await outcomes(
      Array.from({ length: 10 }, (_, n) => t.auth.orgs.create({ name: `Bound ${n}`, owner })),
    );
    expect(results).to.deep.equal([...Array<string>(5).fill('ok'), ...Array<string>(5).fill('too_many_organizations')]);
    expect(await t.auth.orgs.listFor(owner)).to.have.length(5);
  });

  it('lists organizations with their numbers of members, a user’s with their roles, and the members', async () => {
    const [owner, bob] = [await newUser(t), await newUser(t)];
    const org = await t.auth.orgs.create({ name: 'Counted', owner: owner.id });
    await t.auth.orgs.addMember(org.id, bob.id, ['viewer', 'member']);
    expect((await t.auth.orgs.list()).find((listed) => listed.id === org.id)).to.deep.equal({ ...org, members: 2 });
    expect(await t.auth.orgs.listFor(bob.id)).to.deep.equal([{ ...org, roles: ['member', 'viewer'] }]);
    expect((await t.auth.orgs.members(org.slug)).map((m) => [m.user_id, m.roles])).to.deep.equal([
      [owner.id, ['owner']],
      [bob.id, ['member', 'viewer']],
    ]);
  });

  it('deletes an organization with its memberships and bound tokens, through the database’s cascade', async () => {
    const [owner, bob] = [await newUser(t), await newUser(t)];
    const org = await t.auth.orgs.create({ name: 'Cascade', owner: owner.id });
    await t.auth.orgs.addMember(org.id, bob.id, ['member']);
    const em = (await t.parts.storage.em()).fork();
    const token = await t.auth.tokens.create(bob.id, { name: 'bound' });
    await em.nativeUpdate(ApiToken, { publicId: token.id }, { org: org.id });
    expect((await t.auth.tokens.verify(token.token))?.userId).to.equal(bob.id);
    await t.auth.orgs.delete(org.id);
    expect(await em.count(Membership, { org: org.id })).to.equal(0);
    expect(await t.auth.tokens.verify(token.token)).to.equal(null);
  });
}

describe('organizations changed at once [SQLite]', () => {
  concurrencySuite(async () => {
    const file = await temporaryDatabase();
    return { url: file.url, drop: file.remove };
  });
});

describePostgres('organizations changed at once', () => {
  concurrencySuite(createPostgresDatabase);
});
