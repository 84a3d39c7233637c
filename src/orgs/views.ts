/**
 * What `auth.orgs` hands out: plain objects shaped as the HTTP API answers them,
 * never an entity, and never an invitation's token.
 */
import type { Invitation, Membership, Organization } from '../storage/entities/index.js';

/** An organization: `{ id, slug, name, created_at }`. */
export interface OrgInfo {
  id: number;
  slug: string;
  name: string;
  created_at: string;
}

/** A user's membership of one organization: the organization roles they hold there. */
export interface MembershipInfo {
  roles: string[];
  created_at: string;
}

/** An organization of a user's, with the roles they hold there (`auth.orgs.listFor`). */
export interface UserOrg extends OrgInfo {
  roles: string[];
}

/** An organization with how many members it has (`auth.orgs.list`, `auth list-orgs`). */
export interface OrgSummary extends OrgInfo {
  members: number;
}

/** A member of an organization (`auth.orgs.members`). */
export interface MemberInfo {
  user_id: number;
  email: string;
  roles: string[];
  created_at: string;
}

/** A pending invitation: `{ id, email, roles, created_at, expires_at }`, never its token. */
export interface InvitationInfo {
  id: number;
  email: string;
  roles: string[];
  created_at: string;
  expires_at: string;
}

/** An invitation as its link shows it before anyone accepts: never its id or its token. */
export interface PendingInvitation {
  org: OrgInfo;
  /** As stored: trimmed and lower-cased, as users' addresses are. */
  email: string;
  roles: string[];
}

/** An organization as its id, its slug (a string of digits is an id), or an object with its id. */
export type OrgRef = number | string | { readonly id: number };

/** Who acted, for events and audit records only: a user (id or object), or null (the CLI, code). */
export type OrgActor = number | { readonly id: number } | null;

export function toOrgInfo(org: Organization): OrgInfo {
  return { id: org.id, slug: org.slug, name: org.name, created_at: org.createdAt.toISOString() };
}

export function toMembershipInfo(membership: Membership): MembershipInfo {
  return { roles: [...membership.roles], created_at: membership.createdAt.toISOString() };
}

export function toInvitationInfo(invitation: Invitation): InvitationInfo {
  return {
    id: invitation.id,
    email: invitation.email,
    roles: [...invitation.roles],
    created_at: invitation.createdAt.toISOString(),
    expires_at: invitation.expiresAt.toISOString(),
  };
}
