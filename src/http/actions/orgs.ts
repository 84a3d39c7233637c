/**
 * What the organization routes of the JSON API and of the pages both do: each
 * checks the caller's ability in the organization (`orgRequired` put the request there), then asks
 * the organizations service, which makes no such check of its own.
 *
 * - `read/update/delete Organization`, `read/update/delete Membership`, `create/read/delete
 *   Invitation`, on the row itself (the tenant condition of organization roles reaches only it).
 * - Granting a role (inviting, or changing a member's roles) needs `assign` on
 *   `OrgRole { name, org_id }` for every role granted; taking one away needs the same, so that an
 *   admin who may not make owners cannot demote or remove one either. 403 `forbidden` otherwise.
 * - Inviting an address with an invitation pending replaces (revokes) it: that needs `delete` on it too.
 * - Anyone may leave (remove their own membership); the last owner is 409 `last_owner`, as always.
 * - A bearer token needs every scope (one made without scopes), as for the account's own tokens; a
 *   token bound to an organization acts in that one only: it lists only it, and neither creates
 *   organizations nor accepts invitations.
 */
import { subject } from '@casl/ability';
import type { Request, RequestHandler } from 'express';
import type { AppAbility } from '../../authorization/abilities.js';
import type { AuthConfig } from '../../config/config.js';
import { AuthError } from '../../errors.js';
import type { NewOrg } from '../schemas/orgs.js';
import type { InvitationView, MemberView, MyOrgView, OrgView } from '../schemas/org-responses.js';
import type { InvitationGrant, OrgsForHttp, PendingInvitation } from './org-service.js';
import { assertEveryScope } from './tokens.js';

export interface OrgActionsDeps {
  config: AuthConfig;
  orgs: OrgsForHttp;
  /** The organization roles the application defines, in the order it defined them. */
  orgRoles: { names(): string[] };
  /** The user's ability in the organization now (global roles only if no member), or null for a user who is no more. */
  abilityIn(userId: number, orgId: number): Promise<AppAbility | null>;
}

const SCOPES = 'Organizations need a token made without scopes (one that carries every scope)';

export class OrgActions {
  constructor(private readonly deps: OrgActionsDeps) {}

  /** The guard after the login's on every organization route: a bearer token needs every scope (a session passes). */
  readonly everyScope: RequestHandler = (req, _res, next) => {
    assertEveryScope(req, SCOPES);
    next();
  };

  // ---- outside any organization ----

  /** SERVICE_AUTH_ORG_CREATION: `anyone`, or `admins` (global admins and holders of `create Organization`). */
  mayCreate(req: Request): boolean {
    if (boundOrg(req) !== null) return false;
    if (this.deps.config.orgs.creation === 'anyone') return true;
    return req.user!.is_admin || req.ability!.can('create', 'Organization');
  }

  async create(req: Request, input: NewOrg): Promise<OrgView> {
    if (boundOrg(req) !== null) throw forbidden('A token bound to an organization cannot create another');
    if (!this.mayCreate(req)) throw forbidden('Only administrators may create organizations (SERVICE_AUTH_ORG_CREATION is admins)');
    const { name, slug } = input;
    return this.deps.orgs.create({ name, ...(slug === undefined ? {} : { slug }), owner: req.user!.id }, req.user!.id);
  }

  /** The caller's organizations with their roles there (a bound token's: that one only). */
  async mine(req: Request): Promise<MyOrgView[]> {
    const bound = boundOrg(req);
    const orgs = await this.deps.orgs.listFor(req.user!.id);
    return bound === null ? orgs : orgs.filter((org) => org.id === bound);
  }

  async accept(req: Request, token: string): Promise<{ org: OrgView; roles: string[] }> {
    if (boundOrg(req) !== null) throw forbidden('A token bound to an organization cannot join another');
    return this.deps.orgs.acceptInvitation(token, req.user!.id, undefined, (grant) => this.inviterMayStillGrant(grant));
  }

  /**
   * An invitation grants its roles in its inviter's name: only while the inviter may still invite
   * with them (`create Invitation`, `assign` each role), as when they made it. One made by code or
   * the CLI (no inviter) was checked by no ability, and is not now.
   */
  private async inviterMayStillGrant({ orgId, email, roles, invitedBy }: InvitationGrant): Promise<boolean> {
    if (invitedBy === null) return true;
    const ability = await this.deps.abilityIn(invitedBy, orgId);
    if (!ability || !ability.can('create', subject('Invitation', { org_id: orgId, email, roles }))) return false;
    return roles.every((name) => ability.can('assign', subject('OrgRole', { name, org_id: orgId })));
  }

  /** What the invitation link's page shows: the invitation, if it can still be accepted. */
  invitationFor(token: string): Promise<PendingInvitation | null> {
    return this.deps.orgs.pendingInvitation(token);
  }

  // ---- in the organization of the request (after orgRequired) ----

  show(req: Request): OrgView {
    const org = orgOf(req);
    assertCan(req, 'read', 'Organization', { ...org });
    return org;
  }

  async rename(req: Request, name: string): Promise<OrgView> {
    const org = orgOf(req);
    assertCan(req, 'update', 'Organization', { ...org }, 'name');
    return this.deps.orgs.rename(org.id, name, req.user!.id);
  }

  async remove(req: Request): Promise<void> {
    const org = orgOf(req);
    assertCan(req, 'delete', 'Organization', { ...org });
    await this.deps.orgs.delete(org.id, req.user!.id);
  }

  /** The members the caller may read: 403 if they may read none. */
  async members(req: Request): Promise<MemberView[]> {
    const org = orgOf(req);
    if (!req.ability!.can('read', 'Membership')) throw forbidden('Your roles here do not allow reading the members');
    const members = await this.deps.orgs.members(org.id);
    return members.filter((member) => can(req, 'read', 'Membership', membershipFields(org.id, member)));
  }

  /** Decided on the member's roles as the change finds them (inside its transaction), not as read before. */
  async setRoles(req: Request, userId: number, roles: string[]): Promise<MemberView> {
    const org = orgOf(req);
    const wanted = [...new Set(roles)];
    const check = (member: MemberView) => {
      assertCan(req, 'update', 'Membership', membershipFields(org.id, member), 'roles');
      const changed = [...wanted.filter((role) => !member.roles.includes(role)), ...member.roles.filter((role) => !wanted.includes(role))];
      this.assertMayAssign(req, changed);
    };
    return noSuchMember(this.deps.orgs.setMemberRoles(org.id, userId, wanted, req.user!.id, check));
  }

  /** Removes a member; the caller themselves always may (leaving). Decided as `setRoles` is. */
  async removeMember(req: Request, userId: number): Promise<void> {
    const org = orgOf(req);
    const self = userId === req.user!.id;
    const check = (member: MemberView) => {
      if (self) return;
      assertCan(req, 'delete', 'Membership', membershipFields(org.id, member));
      this.assertMayAssign(req, member.roles);
    };
    await noSuchMember(this.deps.orgs.removeMember(org.id, userId, req.user!.id, check));
  }

  async invite(req: Request, input: { email: string; roles: string[] }): Promise<InvitationView> {
    const org = orgOf(req);
    const roles = [...new Set(input.roles)];
    const email = input.email.trim().toLowerCase();
    assertCan(req, 'create', 'Invitation', { org_id: org.id, email, roles });
    this.assertMayAssign(req, roles);
    // A pending invitation to the address is replaced, that is revoked: that needs `delete` on it.
    for (const replaced of (await this.deps.orgs.invitations(org.id)).filter((pending) => pending.email === email)) {
      assertCan(req, 'delete', 'Invitation', { ...replaced, org_id: org.id });
    }
    return this.deps.orgs.invite(org.id, { email: input.email, roles }, req.user!.id);
  }

  /** The pending invitations the caller may read: 403 if they may read none. */
  async invitations(req: Request): Promise<InvitationView[]> {
    const org = orgOf(req);
    if (!req.ability!.can('read', 'Invitation')) throw forbidden('Your roles here do not allow reading the invitations');
    const invitations = await this.deps.orgs.invitations(org.id);
    return invitations.filter((invitation) => can(req, 'read', 'Invitation', { ...invitation, org_id: org.id }));
  }

  async revoke(req: Request, id: number): Promise<void> {
    const org = orgOf(req);
    const invitation = (await this.deps.orgs.invitations(org.id)).find((pending) => pending.id === id);
    if (!invitation) throw new AuthError('not_found', 'No such invitation pending in this organization');
    assertCan(req, 'delete', 'Invitation', { ...invitation, org_id: org.id });
    await this.deps.orgs.revokeInvitation(org.id, id, req.user!.id);
  }

  // ---- what the pages show ----

  /** The organization roles the caller may grant here. */
  assignable(req: Request): string[] {
    const org = orgOf(req);
    return this.deps.orgRoles.names().filter((name) => req.ability!.can('assign', subject('OrgRole', { name, org_id: org.id })));
  }

  may(req: Request, action: string, type: 'Organization' | 'Membership' | 'Invitation', fields: Record<string, unknown>, field?: string): boolean {
    return can(req, action, type, { ...fields, org_id: orgOf(req).id }, field);
  }

  private assertMayAssign(req: Request, roles: readonly string[]): void {
    const org = orgOf(req);
    const refused = roles.filter((name) => !req.ability!.can('assign', subject('OrgRole', { name, org_id: org.id })));
    if (refused.length) throw forbidden(`Your roles here do not allow assigning ${refused.map((name) => JSON.stringify(name)).join(', ')}`);
  }
}

/** A path's `:user_id` or `:id`: a positive integer, else nothing of ours (404). */
export function idParameter(req: Request, name: string, what: string): number {
  const text = String(req.params[name]);
  if (!/^[1-9]\d{0,14}$/.test(text)) throw new AuthError('not_found', `No such ${what}`);
  return Number(text);
}

/**
 * The service's 404 for a user who is no member (or no user at all) names them: over HTTP it is
 * one answer for every id, which tells no one whether the id is a user's, or whose address it has.
 */
async function noSuchMember<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AuthError && error.code === 'not_found') throw new AuthError('not_found', 'No such member of this organization');
    throw error;
  }
}

function orgOf(req: Request): OrgView {
  if (!req.org) throw new Error('an organization route without orgRequired');
  return req.org;
}

/** The organization a bearer token is bound to, or null (a session, an unbound token). */
function boundOrg(req: Request): number | null {
  return req.authMethod === 'token' ? (req.token?.org ?? null) : null;
}

function membershipFields(orgId: number, member: MemberView): Record<string, unknown> {
  return { ...member, org_id: orgId };
}

function can(req: Request, action: string, type: string, fields: Record<string, unknown>, field?: string): boolean {
  return req.ability!.can(action, subject(type, { ...fields }), field);
}

function assertCan(req: Request, action: string, type: string, fields: Record<string, unknown>, field?: string): void {
  if (!can(req, action, type, fields, field)) throw forbidden(`Your roles here do not allow ${action} on ${type}`);
}

function forbidden(detail: string): AuthError {
  return new AuthError('forbidden', detail);
}
