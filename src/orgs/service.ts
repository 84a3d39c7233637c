/**
 * `auth.orgs`: organizations, their members and their roles there, and invitations
 * (docs/organizations.md). The HTTP API and the CLI both go through here, so the rules hold
 * the same way everywhere. No check of who may do what: that is decided on the asker's ability by
 * permissions.ts, which the HTTP routes and pages apply before they come here (the `check` and
 * `stillGranted` callbacks carry it into the transaction); code and the CLI act as operators. An
 * optional `actor` (the acting user, or null for the CLI or code) is only what events and audit
 * records name.
 */
import type { Storage, Transaction } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import { MembershipCache, OrgCache } from './caches.js';
import type { OrgDeps } from './context.js';
import { listMembers, listOrgs } from './listing.js';
import { Invitations, type GrantCheck, type InvitationDeps, type NewInvitation } from './invitations.js';
import { Members, type MemberCheck } from './members.js';
import { Organizations, type DeleteOrgOptions, type NewOrg } from './organizations.js';
import type {
  InvitationInfo,
  MemberInfo,
  MembershipInfo,
  OrgActor,
  OrgInfo,
  OrgRef,
  OrgSummary,
  PendingInvitation,
  UserOrg,
} from './views.js';

export type OrgServiceDeps = Omit<InvitationDeps, 'members' | 'orgCache' | 'memberships'> & {
  /** Drops a user's cached tokens (those bound to a deleted organization go with it). */
  evictTokensOf: (userId: number) => void;
};

export class OrgService {
  private readonly orgCache: OrgCache;
  private readonly membershipCache: MembershipCache;
  private readonly organizations: Organizations;
  private readonly members_: Members;
  private readonly invitations_: Invitations;

  private readonly storage: Storage;

  constructor(deps: OrgServiceDeps) {
    this.storage = deps.storage;
    const em = () => deps.storage.em();
    this.orgCache = new OrgCache(em, deps.storage.changes);
    this.membershipCache = new MembershipCache(em, deps.storage.changes);
    const shared: OrgDeps = { ...deps, orgCache: this.orgCache, memberships: this.membershipCache };
    this.organizations = new Organizations(shared, deps.evictTokensOf);
    this.members_ = new Members(shared);
    this.invitations_ = new Invitations({ ...deps, ...shared, members: this.members_ });
  }

  // ---- the hot path: held in memory, changes elsewhere seen within a second ----

  /** The organization by id or slug (a string of digits is an id), or null. */
  find(idOrSlug: string | number): Promise<OrgInfo | null> {
    return this.orgCache.find(idOrSlug);
  }

  /** The user's membership of the organization (its roles there), or null for a non-member. */
  membership(orgId: number, userId: number): Promise<MembershipInfo | null> {
    return this.membershipCache.find(orgId, userId);
  }

  /** `find`'s answer if memory can tell now, else undefined (`orgRequired` then waits for `find`). */
  peek(idOrSlug: string | number): OrgInfo | null | undefined {
    return this.orgCache.peek(idOrSlug);
  }

  /** `membership`'s answer if memory can tell now, else undefined. */
  peekMembership(orgId: number, userId: number): MembershipInfo | null | undefined {
    return this.membershipCache.peek(orgId, userId);
  }

  // ---- organizations ----

  /**
   * Creates the organization, its `owner` a member with SERVICE_AUTH_ORG_OWNER_ROLES. The slug is
   * derived from the name unless given (a taken derived slug gets a numeric suffix; a taken given
   * one is 409 `slug_taken`). Event `org_created`.
   */
  create(input: NewOrg, actor?: OrgActor): Promise<OrgInfo> {
    return this.organizations.create(input, actor);
  }

  /** The organization, or a 404 `not_found`; read from the database, unlike `find`. */
  get(ref: OrgRef): Promise<OrgInfo> {
    return this.organizations.get(ref);
  }

  /** Every organization (or one page: `offset`, `limit`), by slug, with its number of members. */
  list(page?: { offset: number; limit: number }): Promise<OrgSummary[]> {
    return listOrgs(this.storage, page);
  }

  /** The user's organizations, by slug, with their roles in each. */
  listFor(user: UserRef): Promise<UserOrg[]> {
    return this.organizations.listFor(user);
  }

  rename(ref: OrgRef, name: string, actor?: OrgActor): Promise<OrgInfo> {
    return this.organizations.rename(ref, name, actor);
  }

  /**
   * Deletes it with its memberships, invitations and the tokens bound to it; answers it as it was,
   * with its number of members. `{ onlyOwners: true }`: 409 `org_has_members` instead if a member
   * holds no owner role. Event `org_deleted`.
   */
  delete(ref: OrgRef, actor?: OrgActor, options?: DeleteOrgOptions): Promise<OrgSummary> {
    return this.organizations.delete(ref, actor, options);
  }

  // ---- members ----

  /** The members, oldest first, with their roles. */
  members(ref: OrgRef): Promise<MemberInfo[]> {
    return listMembers(this.storage, ref);
  }

  /** Makes the user a member with these roles (409 `already_member`, 422 `unknown_role`). Event `member_added`. */
  addMember(ref: OrgRef, user: UserRef, roles: readonly string[], actor?: OrgActor): Promise<MemberInfo> {
    return this.members_.add(ref, user, roles, actor);
  }

  /**
   * Replaces a member's roles (409 `last_owner` for the last owner losing theirs). Event
   * `member_roles_changed`. `check` is asked with the member as they are when the change is
   * written (the organization locked), and throws to refuse it.
   */
  setMemberRoles(
    ref: OrgRef,
    user: UserRef,
    roles: readonly string[],
    actor?: OrgActor,
    check?: MemberCheck,
  ): Promise<MemberInfo> {
    return this.members_.setRoles(ref, user, roles, actor, check);
  }

  /** Removes a member (409 `last_owner` for the last owner). Event `member_removed`. `check` as for `setMemberRoles`. */
  removeMember(ref: OrgRef, user: UserRef, actor?: OrgActor, check?: MemberCheck): Promise<void> {
    return this.members_.remove(ref, user, actor, check);
  }

  // ---- invitations ----

  /** Invites an address with these roles and mails it the link. Event `invitation_created`. */
  invite(ref: OrgRef, input: NewInvitation, actor?: OrgActor): Promise<InvitationInfo> {
    return this.invitations_.invite(ref, input, actor);
  }

  /** The pending invitations, oldest first (never their tokens). */
  invitations(ref: OrgRef): Promise<InvitationInfo[]> {
    return this.invitations_.list(ref);
  }

  /** Revokes a pending invitation by its id (a number, or a string of digits); another id is a 404 `not_found`. */
  revokeInvitation(ref: OrgRef, id: number | string, actor?: OrgActor): Promise<void> {
    return this.invitations_.revoke(ref, id, actor);
  }

  /**
   * The pending invitation whose link carries this token (its organization, address and roles),
   * or null for a token unknown, used, revoked or expired. Reading only: nothing is accepted.
   */
  pendingInvitation(token: string): Promise<PendingInvitation | null> {
    return this.invitations_.pending(token);
  }

  /**
   * The user joins with the invitation's roles. Events `member_added`, `invitation_accepted`.
   * `stillGranted`, if given, may refuse it (400 `invalid_invitation`): the HTTP API asks whether
   * the inviter may still assign the roles it grants.
   */
  acceptInvitation(
    token: string,
    user: UserRef,
    actor?: OrgActor,
    stillGranted?: GrantCheck,
  ): Promise<{ org: OrgInfo; roles: string[] }> {
    return this.invitations_.accept(token, user, actor, stillGranted);
  }

  /** @internal The user's memberships end, in the transaction deleting the account (409 `last_owner`). */
  leaveAll(tx: Transaction, user: { id: number; email: string }): Promise<void> {
    return this.members_.leaveAll(tx, user);
  }
}
