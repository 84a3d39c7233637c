/**
 * The organization rules in their own room, asked directly with an ability: what the JSON routes
 * and the pages both apply (their HTTP behaviour is tested in http-api.test.ts, pages.test.ts,
 * assign-property.test.ts and invitation-grants.test.ts). Each refusal is the 403 `forbidden` a
 * caller sees.
 */
import { createMongoAbility, type MongoAbility, type RawRuleOf } from '@casl/ability';
import { expect } from 'chai';
import { AuthError } from '../../src/errors.js';
import type { MemberInfo, OrgInfo } from '../../src/orgs/views.js';
import {
  assertMayCreateOrg,
  assertMayJoin,
  InOrgPermissions,
  inviterMayStillGrant,
  mayCreateOrg,
  visibleOrgs,
  type OrgAsker,
} from '../../src/orgs/permissions.js';

const ORG: OrgInfo = { id: 7, slug: 'acme', name: 'Acme', created_at: '2026-01-01T00:00:00.000Z' };

/** The demo's admin: manages members and invitations, assigns admin, member and viewer, never owner. */
const ADMIN: RawRuleOf<MongoAbility>[] = [
  { action: 'manage', subject: ['Membership', 'Invitation'], conditions: { org_id: ORG.id } },
  {
    action: 'assign',
    subject: 'OrgRole',
    conditions: { org_id: ORG.id, name: { $in: ['admin', 'member', 'viewer'] } },
  },
];

function asker(rules: RawRuleOf<MongoAbility>[], more: Partial<OrgAsker> = {}): OrgAsker {
  return { userId: 1, isAdmin: false, ability: createMongoAbility(rules), boundOrg: null, ...more };
}

function member(userId: number, roles: string[]): MemberInfo {
  return { user_id: userId, email: `user${userId}@example.com`, roles, created_at: ORG.created_at };
}

function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).to.be.instanceOf(AuthError);
    expect((error as AuthError).code).to.equal('forbidden');
    return (error as AuthError).message;
  }
  throw new Error('expected a 403 forbidden');
}

describe('who may do what in an organization (orgs/permissions)', () => {
  it('lets an admin make admins but neither make, demote nor remove an owner', () => {
    const admin = new InOrgPermissions(asker(ADMIN), ORG);
    expect(() => admin.roleChange(['admin'])(member(2, ['member']))).not.to.throw();
    expect(refusal(() => admin.roleChange(['owner'])(member(2, ['member'])))).to.include('"owner"');
    expect(refusal(() => admin.roleChange(['member'])(member(2, ['owner'])))).to.include('"owner"');
    expect(refusal(() => admin.removal(2)(member(2, ['owner'])))).to.include('"owner"');
    expect(admin.assignable(['owner', 'admin', 'member'])).to.deep.equal(['admin', 'member']);
  });

  it('lets anyone leave, and no one without `delete Membership` remove another', () => {
    const viewer = new InOrgPermissions(asker([{ action: 'read', subject: 'Membership' }]), ORG);
    expect(() => viewer.removal(1)(member(1, ['viewer']))).not.to.throw();
    expect(refusal(() => viewer.removal(2)(member(2, ['viewer'])))).to.equal(
      'Your roles here do not allow delete on Membership',
    );
  });

  it('asks `delete` on a pending invitation that an invitation to the same address replaces', () => {
    const inviter = asker([
      { action: 'create', subject: 'Invitation' },
      { action: 'assign', subject: 'OrgRole' },
    ]);
    const pending = [{ id: 3, email: 'bo@example.com', roles: ['viewer'], created_at: '', expires_at: '' }];
    const permissions = new InOrgPermissions(inviter, ORG);
    expect(() => permissions.assertMayInvite('al@example.com', ['viewer'], pending)).not.to.throw();
    const replacing = () => permissions.assertMayInvite('bo@example.com', ['viewer'], pending);
    expect(refusal(replacing)).to.include('delete on Invitation');
  });

  it('keeps a token bound to an organization in that one: it creates none, joins none, lists only it', () => {
    const bound = asker([{ action: 'manage', subject: 'all' }], { isAdmin: true, boundOrg: ORG.id });
    expect(mayCreateOrg(bound, 'anyone')).to.equal(false);
    expect(refusal(() => assertMayCreateOrg(bound, 'anyone'))).to.include('cannot create another');
    expect(refusal(() => assertMayJoin(bound))).to.include('cannot join another');
    expect(visibleOrgs(bound, [{ id: 6 }, { id: ORG.id }])).to.deep.equal([{ id: ORG.id }]);
  });

  it('lets only admins and holders of `create Organization` create one under SERVICE_AUTH_ORG_CREATION=admins', () => {
    expect(mayCreateOrg(asker([]), 'anyone')).to.equal(true);
    expect(refusal(() => assertMayCreateOrg(asker([]), 'admins'))).to.include('Only administrators');
    expect(mayCreateOrg(asker([], { isAdmin: true }), 'admins')).to.equal(true);
    expect(mayCreateOrg(asker([{ action: 'create', subject: 'Organization' }]), 'admins')).to.equal(true);
  });

  it("grants an invitation's roles only while its inviter may still invite with them", async () => {
    const abilities = new Map([
      [1, createMongoAbility(ADMIN.concat({ action: 'create', subject: 'Invitation' }))],
      [2, createMongoAbility([{ action: 'create', subject: 'Invitation' }])],
    ]);
    const stillGranted = inviterMayStillGrant(async (userId) => abilities.get(userId) ?? null);
    const grant = { orgId: ORG.id, email: 'bo@example.com', roles: ['admin'] };
    expect(await stillGranted({ ...grant, invitedBy: 1 })).to.equal(true);
    expect(await stillGranted({ ...grant, invitedBy: 2 }), 'may invite, may not assign admin').to.equal(false);
    expect(await stillGranted({ ...grant, invitedBy: 3 }), 'the inviter is no more').to.equal(false);
    expect(await stillGranted({ ...grant, invitedBy: null }), 'made by code or the CLI').to.equal(true);
  });
});
