/**
 * Who may do what with organizations, decided on the asker's ability. The package's JSON routes
 * and pages apply these before they ask `auth.orgs` (service.ts), which checks nothing itself: the
 * library and the CLI are operator tools. Kept here, with the organizations, so that every door
 * that acts for a user applies the same rules.
 *
 * - `read/update/delete Organization`, `read/update/delete Membership`, `create/read/delete
 *   Invitation`, on the row itself (the tenant condition of organization roles reaches only it).
 * - Granting a role (inviting, or changing a member's roles) needs `assign` on
 *   `OrgRole { name, org_id }` for every role granted; taking one away needs the same, so that an
 *   admin who may not make owners cannot demote or remove one either. 403 `forbidden` otherwise.
 * - Inviting an address with an invitation pending replaces (revokes) it: that needs `delete` on it too.
 * - Anyone may leave (remove their own membership); the last owner is 409 `last_owner`, as always.
 * - A token bound to an organization acts in that one only: it lists only it, and neither creates
 *   organizations nor accepts invitations.
 * - An invitation grants its roles in its inviter's name, so only while the inviter may still.
 */
import { subject } from '@casl/ability';
import type { AppAbility } from '../authorization/ability-types.js';
import { AuthError } from '../errors.js';
import type { GrantCheck, InvitationGrant } from './invitations.js';
import type { MemberCheck } from './members.js';
import type { InvitationInfo, MemberInfo, OrgInfo } from './views.js';

/** Who asks, as these rules need them (a request's user, ability and bearer token). */
export interface OrgAsker {
  userId: number;
  isAdmin: boolean;
  /** Global outside any organization; in the organization for the rules of `InOrgPermissions`. */
  ability: AppAbility;
  /** The organization the bearer token asking is bound to, or null (a session, an unbound token). */
  boundOrg: number | null;
}

/** SERVICE_AUTH_ORG_CREATION's values. */
export type OrgCreation = 'anyone' | 'admins';

/** A user's ability in an organization now, or null for a user who is no more. */
export type AbilityIn = (userId: number, orgId: number) => Promise<AppAbility | null>;

// ---- outside any organization ----

/** `anyone`, or `admins` (global admins and holders of `create Organization`); never a bound token. */
export function mayCreateOrg(asker: OrgAsker, creation: OrgCreation): boolean {
  if (asker.boundOrg !== null) return false;
  return creation === 'anyone' || asker.isAdmin || asker.ability.can('create', 'Organization');
}

export function assertMayCreateOrg(asker: OrgAsker, creation: OrgCreation): void {
  if (asker.boundOrg !== null) throw forbidden('A token bound to an organization cannot create another');
  if (!mayCreateOrg(asker, creation)) {
    throw forbidden('Only administrators may create organizations (SERVICE_AUTH_ORG_CREATION is admins)');
  }
}

/** Accepting an invitation: a token bound to an organization acts in that one only. */
export function assertMayJoin(asker: OrgAsker): void {
  if (asker.boundOrg !== null) throw forbidden('A token bound to an organization cannot join another');
}

/** The asker's organizations they may see: a bound token's, that one only. */
export function visibleOrgs<T extends { id: number }>(asker: OrgAsker, orgs: T[]): T[] {
  return asker.boundOrg === null ? orgs : orgs.filter((org) => org.id === asker.boundOrg);
}

/**
 * The check `auth.orgs.acceptInvitation` asks: an invitation grants its roles only while its
 * inviter may still invite with them (`create Invitation`, `assign` each role), as when they made
 * it. One made by code or the CLI (no inviter) was checked by no ability, and is not now.
 */
export function inviterMayStillGrant(abilityIn: AbilityIn): GrantCheck {
  return async ({ orgId, email, roles, invitedBy }: InvitationGrant): Promise<boolean> => {
    if (invitedBy === null) return true;
    const ability = await abilityIn(invitedBy, orgId);
    if (!ability || !ability.can('create', subject('Invitation', { org_id: orgId, email, roles }))) return false;
    return roles.every((name) => ability.can('assign', subject('OrgRole', { name, org_id: orgId })));
  };
}

// ---- in one organization ----

/** The rules for one asker in one organization, with their ability there. */
export class InOrgPermissions {
  constructor(
    private readonly asker: OrgAsker,
    private readonly org: OrgInfo,
  ) {}

  /** On the organization's row, or a member's, or an invitation's (`org_id` added). */
  may(action: string, type: string, fields: Record<string, unknown>, field?: string): boolean {
    return this.can(action, type, { ...fields, org_id: this.org.id }, field);
  }

  assertMay(action: string, type: string, fields: Record<string, unknown>, field?: string): void {
    if (!this.may(action, type, fields, field)) throw refused(action, type);
  }

  /** On the organization itself (read, rename: `update` of `name`, delete). */
  assertMayOrg(action: string, field?: string): void {
    if (!this.can(action, 'Organization', { ...this.org }, field)) throw refused(action, 'Organization');
  }

  /** The members they may read: 403 if they may read none. */
  readableMembers(members: MemberInfo[]): MemberInfo[] {
    if (!this.asker.ability.can('read', 'Membership')) {
      throw forbidden('Your roles here do not allow reading the members');
    }
    return members.filter((member) => this.may('read', 'Membership', { ...member }));
  }

  /** The pending invitations they may read: 403 if they may read none. */
  readableInvitations(invitations: InvitationInfo[]): InvitationInfo[] {
    if (!this.asker.ability.can('read', 'Invitation')) {
      throw forbidden('Your roles here do not allow reading the invitations');
    }
    return invitations.filter((invitation) => this.may('read', 'Invitation', { ...invitation }));
  }

  /** Of `names` (the organization roles defined), those they may grant here. */
  assignable(names: readonly string[]): string[] {
    return names.filter((name) => this.mayAssign(name));
  }

  assertMayAssign(roles: readonly string[]): void {
    const refusedRoles = roles.filter((name) => !this.mayAssign(name));
    if (refusedRoles.length) {
      const named = refusedRoles.map((name) => JSON.stringify(name)).join(', ');
      throw forbidden(`Your roles here do not allow assigning ${named}`);
    }
  }

  /**
   * The check for `setMemberRoles`, asked with the member as the change finds them (inside its
   * transaction), not as read before: `update` of their `roles`, and `assign` of each role gained or lost.
   */
  roleChange(wanted: readonly string[]): MemberCheck {
    return (member) => {
      this.assertMay('update', 'Membership', { ...member }, 'roles');
      const gained = wanted.filter((role) => !member.roles.includes(role));
      const lost = member.roles.filter((role) => !wanted.includes(role));
      this.assertMayAssign([...gained, ...lost]);
    };
  }

  /** The check for `removeMember`: anyone may leave; removing another needs `delete` and `assign` of their roles. */
  removal(userId: number): MemberCheck {
    const self = userId === this.asker.userId;
    return (member) => {
      if (self) return;
      this.assertMay('delete', 'Membership', { ...member });
      this.assertMayAssign(member.roles);
    };
  }

  /** Inviting: `create Invitation`, `assign` each role, and `delete` on each pending one it replaces. */
  assertMayInvite(email: string, roles: readonly string[], pending: readonly InvitationInfo[]): void {
    this.assertMay('create', 'Invitation', { email, roles });
    this.assertMayAssign(roles);
    for (const replaced of pending.filter((invitation) => invitation.email === email)) {
      this.assertMay('delete', 'Invitation', { ...replaced });
    }
  }

  private mayAssign(name: string): boolean {
    return this.asker.ability.can('assign', subject('OrgRole', { name, org_id: this.org.id }));
  }

  private can(action: string, type: string, fields: Record<string, unknown>, field?: string): boolean {
    return this.asker.ability.can(action, subject(type, fields), field);
  }
}

function refused(action: string, type: string): AuthError {
  return forbidden(`Your roles here do not allow ${action} on ${type}`);
}

function forbidden(detail: string): AuthError {
  return new AuthError('forbidden', detail);
}
