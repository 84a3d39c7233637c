/**
 * What the organization routes of the JSON API and of the pages both do: each asks the rules of
 * orgs/permissions.ts with the caller's ability in the organization (`orgRequired` put the request
 * there), then the organizations service, which makes no such check of its own. What is HTTP's
 * alone is here: who the request's asker is, a bearer token's scopes, and the answers' shape.
 *
 * A bearer token needs every scope (one made without scopes), as for the account's own tokens.
 */
import type { Request, RequestHandler } from 'express';
import type { AppAbility } from '../../authorization/ability-types.js';
import type { AuthConfig } from '../../config/config.js';
import { AuthError } from '../../errors.js';
import {
  assertMayCreateOrg,
  assertMayJoin,
  InOrgPermissions,
  inviterMayStillGrant,
  mayCreateOrg,
  visibleOrgs,
  type OrgAsker,
} from '../../orgs/permissions.js';
import type { NewOrg } from '../schemas/orgs.js';
import type { InvitationView, MemberView, MyOrgView, OrgView } from '../schemas/org-responses.js';
import type { OrgsForHttp, PendingInvitation } from './org-service.js';
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
  /** Asked when an invitation is accepted: whether its inviter may still grant its roles. */
  private readonly stillGranted = inviterMayStillGrant((userId, orgId) => this.deps.abilityIn(userId, orgId));

  constructor(private readonly deps: OrgActionsDeps) {}

  /** The guard after the login's on every organization route: a bearer token needs every scope (a session passes). */
  readonly everyScope: RequestHandler = (req, _res, next) => {
    assertEveryScope(req, SCOPES);
    next();
  };

  // ---- outside any organization ----

  /** SERVICE_AUTH_ORG_CREATION: `anyone`, or `admins` (global admins and holders of `create Organization`). */
  mayCreate(req: Request): boolean {
    return mayCreateOrg(askerOf(req), this.deps.config.orgs.creation);
  }

  async create(req: Request, input: NewOrg): Promise<OrgView> {
    assertMayCreateOrg(askerOf(req), this.deps.config.orgs.creation);
    const { name, slug } = input;
    const owner = req.user!.id;
    return this.deps.orgs.create({ name, ...(slug === undefined ? {} : { slug }), owner }, owner);
  }

  /** The caller's organizations with their roles there (a bound token's: that one only). */
  async mine(req: Request): Promise<MyOrgView[]> {
    return visibleOrgs(askerOf(req), await this.deps.orgs.listFor(req.user!.id));
  }

  async accept(req: Request, token: string): Promise<{ org: OrgView; roles: string[] }> {
    assertMayJoin(askerOf(req));
    return this.deps.orgs.acceptInvitation(token, req.user!.id, undefined, this.stillGranted);
  }

  /** What the invitation link's page shows: the invitation, if it can still be accepted. */
  invitationFor(token: string): Promise<PendingInvitation | null> {
    return this.deps.orgs.pendingInvitation(token);
  }

  // ---- in the organization of the request (after orgRequired) ----

  show(req: Request): OrgView {
    inOrg(req).assertMayOrg('read');
    return orgOf(req);
  }

  async rename(req: Request, name: string): Promise<OrgView> {
    inOrg(req).assertMayOrg('update', 'name');
    return this.deps.orgs.rename(orgOf(req).id, name, req.user!.id);
  }

  async remove(req: Request): Promise<void> {
    inOrg(req).assertMayOrg('delete');
    await this.deps.orgs.delete(orgOf(req).id, req.user!.id);
  }

  /** The members the caller may read: 403 if they may read none. */
  async members(req: Request): Promise<MemberView[]> {
    const permissions = inOrg(req);
    return permissions.readableMembers(await this.deps.orgs.members(orgOf(req).id));
  }

  /** Decided on the member's roles as the change finds them (inside its transaction), not as read before. */
  async setRoles(req: Request, userId: number, roles: string[]): Promise<MemberView> {
    const wanted = [...new Set(roles)];
    const check = inOrg(req).roleChange(wanted);
    return noSuchMember(this.deps.orgs.setMemberRoles(orgOf(req).id, userId, wanted, req.user!.id, check));
  }

  /** Removes a member; the caller themselves always may (leaving). Decided as `setRoles` is. */
  async removeMember(req: Request, userId: number): Promise<void> {
    const check = inOrg(req).removal(userId);
    await noSuchMember(this.deps.orgs.removeMember(orgOf(req).id, userId, req.user!.id, check));
  }

  async invite(req: Request, input: { email: string; roles: string[] }): Promise<InvitationView> {
    const org = orgOf(req);
    const roles = [...new Set(input.roles)];
    const email = input.email.trim().toLowerCase();
    inOrg(req).assertMayInvite(email, roles, await this.deps.orgs.invitations(org.id));
    return this.deps.orgs.invite(org.id, { email: input.email, roles }, req.user!.id);
  }

  /** The pending invitations the caller may read: 403 if they may read none. */
  async invitations(req: Request): Promise<InvitationView[]> {
    const permissions = inOrg(req);
    return permissions.readableInvitations(await this.deps.orgs.invitations(orgOf(req).id));
  }

  async revoke(req: Request, id: number): Promise<void> {
    const org = orgOf(req);
    const invitation = (await this.deps.orgs.invitations(org.id)).find((pending) => pending.id === id);
    if (!invitation) throw new AuthError('not_found', 'No such invitation pending in this organization');
    inOrg(req).assertMay('delete', 'Invitation', { ...invitation });
    await this.deps.orgs.revokeInvitation(org.id, id, req.user!.id);
  }

  // ---- what the pages show ----

  /** The organization roles the caller may grant here. */
  assignable(req: Request): string[] {
    return inOrg(req).assignable(this.deps.orgRoles.names());
  }

  may(
    req: Request,
    action: string,
    type: 'Organization' | 'Membership' | 'Invitation',
    fields: Record<string, unknown>,
    field?: string,
  ): boolean {
    return inOrg(req).may(action, type, fields, field);
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
    if (error instanceof AuthError && error.code === 'not_found') {
      throw new AuthError('not_found', 'No such member of this organization');
    }
    throw error;
  }
}

function orgOf(req: Request): OrgView {
  if (!req.org) throw new Error('an organization route without orgRequired');
  return req.org;
}

/** The request's asker as the organization rules see them: its user, ability and bearer token. */
function askerOf(req: Request): OrgAsker {
  const boundOrg = req.authMethod === 'token' ? (req.token?.org ?? null) : null;
  return { userId: req.user!.id, isAdmin: req.user!.is_admin, ability: req.ability!, boundOrg };
}

/** The rules in the organization of the request, with the caller's ability there. */
function inOrg(req: Request): InOrgPermissions {
  return new InOrgPermissions(askerOf(req), orgOf(req));
}
