/**
 * What the HTTP layer asks of the organizations service (`auth.orgs`, src/orgs/service.ts), which
 * checks no permissions: actions/orgs.ts applies orgs/permissions.ts, through the callbacks some of
 * these take.
 */
import type { GrantCheck } from '../../orgs/invitations.js';
import type { InvitationView, MemberView, MyOrgView, OrgView } from '../schemas/org-responses.js';

export interface OrgsForHttp {
  create(input: { name: string; slug?: string; owner: number }, actor: number): Promise<OrgView>;
  listFor(userId: number): Promise<MyOrgView[]>;
  rename(orgId: number, name: string, actor: number): Promise<OrgView>;
  delete(orgId: number, actor: number): Promise<unknown>;
  members(orgId: number): Promise<MemberView[]>;
  /** `check` is asked with the member as they are when the change is written, and throws to refuse. */
  setMemberRoles(
    orgId: number,
    userId: number,
    roles: string[],
    actor: number,
    check?: (member: MemberView) => void,
  ): Promise<MemberView>;
  removeMember(orgId: number, userId: number, actor: number, check?: (member: MemberView) => void): Promise<void>;
  invite(orgId: number, input: { email: string; roles: string[] }, actor: number): Promise<InvitationView>;
  /** The pending ones. */
  invitations(orgId: number): Promise<InvitationView[]>;
  revokeInvitation(orgId: number, id: number, actor: number): Promise<void>;
  /** `stillGranted` may refuse it (400 `invalid_invitation`): asked whether the inviter may still grant its roles. */
  acceptInvitation(
    token: string,
    userId: number,
    actor?: number,
    stillGranted?: GrantCheck,
  ): Promise<{ org: OrgView; roles: string[] }>;
  /** A pending invitation by its link's token, or null; accepts nothing. */
  pendingInvitation(token: string): Promise<PendingInvitation | null>;
}

/** What the invitation link's page shows: never the invitation's id or token. */
export interface PendingInvitation {
  org: OrgView;
  email: string;
  roles: string[];
}
