/**
 * The members of an organization and their roles: adding, changing and removing them, and the
 * last-owner rule (docs/organizations.md): every organization keeps a member holding one of
 * SERVICE_AUTH_ORG_OWNER_ROLES, so removing or demoting the last one is 409 `last_owner`. Each
 * change runs with the organization's row locked, notes the member in the change feed (their
 * cached memberships, and abilities, drop everywhere), and is recorded in its own transaction.
 */
import type { AuditDetail } from '../audit/records.js';
import { AuthError } from '../errors.js';
import { Invitation, Membership, type Organization, type User } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Transaction } from '../storage/storage.js';
import type { UserRef } from '../storage/user-ref.js';
import { actorId, emitOrgEvent, holdsOwnerRole, lockedOrg, type OrgDeps } from './context.js';
import { validOrgRoles } from './names.js';
import { toOrgInfo, type MemberInfo, type OrgActor, type OrgRef } from './views.js';

/** Decides, inside a change's transaction, whether the change may be made to the member as they are now; throws to refuse. */
export type MemberCheck = (member: MemberInfo) => void;

/** Who a member is, for records and events. */
interface Person {
  id: number;
  email: string;
}

export class Members {
  constructor(private readonly deps: OrgDeps) {}

  async add(ref: OrgRef, userRef: UserRef, roles: readonly string[], actor?: OrgActor): Promise<MemberInfo> {
    const names = validOrgRoles(roles, this.deps.knownOrgRole);
    const { storage, lookup } = this.deps;
    const em = await storage.em();
    const user = await lookup.require(em, userRef);
    const { org, member } = await storage.transaction(em, async (tx) => {
      const org = await lockedOrg(tx.em, ref);
      return { org: toOrgInfo(org), member: await this.join(tx, org, user, names, actor) };
    });
    await emitOrgEvent(this.deps, 'member_added', actor, {
      org,
      member: { user_id: user.id, email: user.email },
      roles: names,
    });
    return member;
  }

  /**
   * Makes the user a member in the caller's transaction, the organization locked: 409
   * `already_member` if they are one. `how` goes into the audit record (an invitation's id).
   */
  async join(
    tx: Transaction,
    org: Organization,
    user: Person,
    roles: string[],
    actor?: OrgActor,
    how: AuditDetail = {},
  ): Promise<MemberInfo> {
    if (await tx.em.count(Membership, { org: org.id, user: user.id })) {
      throw new AuthError('already_member', `${user.email} is a member of ${org.slug} already`);
    }
    const membership = tx.em.create(Membership, { org, user: user.id, roles });
    await tx.em.flush();
    await this.noted(tx, user.id);
    this.record(tx, 'member_added', org, user, { roles: roles.join(' '), by: actorId(actor), ...how });
    return toMemberInfo(membership, user);
  }

  /**
   * Replaces the member's roles (a 404 `not_found` for a non-member; 409 `last_owner` for the last
   * owner losing theirs). `check`, if given, is asked first with the member as they are inside the
   * transaction (the organization locked), and throws to refuse: who may make the change is
   * decided on the roles it replaces, not on roles read before another change committed.
   */
  async setRoles(
    ref: OrgRef,
    userRef: UserRef,
    roles: readonly string[],
    actor?: OrgActor,
    check?: MemberCheck,
  ): Promise<MemberInfo> {
    const names = validOrgRoles(roles, this.deps.knownOrgRole);
    const { storage, lookup, settings } = this.deps;
    const em = await storage.em();
    const user = await lookup.require(em, userRef);
    const { org, member, changed } = await storage.transaction(em, async (tx) => {
      const org = await lockedOrg(tx.em, ref);
      const membership = await this.membershipOf(tx.em, org, user);
      check?.(toMemberInfo(membership, user));
      const previous = [...membership.roles].sort();
      const changed = previous.join(' ') !== names.join(' ');
      if (changed) {
        if (holdsOwnerRole(previous, settings.ownerRoles) && !holdsOwnerRole(names, settings.ownerRoles))
          await this.assertAnotherOwner(tx.em, org, user);
        membership.roles = names;
        await this.noted(tx, user.id);
        this.record(tx, 'member_roles_changed', org, user, {
          roles: names.join(' '),
          previous_roles: previous.join(' '),
          by: actorId(actor),
        });
      }
      return { org: toOrgInfo(org), member: toMemberInfo(membership, user), changed };
    });
    if (changed)
      await emitOrgEvent(this.deps, 'member_roles_changed', actor, {
        org,
        member: { user_id: user.id, email: user.email },
        roles: names,
      });
    return member;
  }

  /** Removes the member (a 404 `not_found` for a non-member; 409 `last_owner` for the last owner); `check` as for `setRoles`. */
  async remove(ref: OrgRef, userRef: UserRef, actor?: OrgActor, check?: MemberCheck): Promise<void> {
    const { storage, lookup, settings } = this.deps;
    const em = await storage.em();
    const user = await lookup.require(em, userRef);
    const { org, roles } = await storage.transaction(em, async (tx) => {
      const org = await lockedOrg(tx.em, ref);
      const membership = await this.membershipOf(tx.em, org, user);
      check?.(toMemberInfo(membership, user));
      const roles = [...membership.roles].sort();
      if (holdsOwnerRole(roles, settings.ownerRoles)) await this.assertAnotherOwner(tx.em, org, user);
      await tx.em.nativeDelete(Membership, { id: membership.id });
      await this.noted(tx, user.id);
      this.record(tx, 'member_removed', org, user, { roles: roles.join(' '), by: actorId(actor) });
      return { org: toOrgInfo(org), roles };
    });
    await emitOrgEvent(this.deps, 'member_removed', actor, {
      org,
      member: { user_id: user.id, email: user.email },
      roles,
    });
  }

  /**
   * The user's memberships end, in the transaction deleting the account: refused with 409
   * `last_owner` for an organization where they are the last owner and others are members (an
   * organization they are alone in stays, with no member, for an operator to give an owner or delete).
   * The invitations they made and are still pending are revoked.
   */
  async leaveAll(tx: Transaction, user: Person): Promise<void> {
    const { settings } = this.deps;
    // What they invited to can no longer be granted in their name (docs/organizations.md#invitations).
    await tx.em.nativeUpdate(
      Invitation,
      { invitedBy: user.id, acceptedAt: null, revokedAt: null },
      { revokedAt: new Date() },
    );
    const rows = await tx.em.find(Membership, { user: user.id }, { orderBy: { org: 'asc' } });
    if (rows.length === 0) return;
    for (const membership of rows) {
      const org = await lockedOrg(tx.em, membership.org.id);
      if (!holdsOwnerRole(membership.roles, settings.ownerRoles)) continue;
      const others = await tx.em.find(Membership, { org: org.id, user: { $ne: user.id } }, { fields: ['roles'] });
      if (others.length > 0 && !others.some((other) => holdsOwnerRole(other.roles, settings.ownerRoles)))
        throw lastOwner(org, user);
    }
    await tx.em.nativeDelete(Membership, { user: user.id });
    await this.noted(tx, user.id);
    for (const membership of rows) {
      this.record(tx, 'member_removed', membership.org, user, {
        roles: [...membership.roles].sort().join(' '),
        by: null,
        because: 'user_deleted',
      });
    }
  }

  private async membershipOf(em: EntityManager, org: Organization, user: Person): Promise<Membership> {
    // Read afresh: the entity manager may hold the row as it was before the organization was locked.
    const membership = await em.findOne(Membership, { org: org.id, user: user.id }, { refresh: true });
    if (!membership) throw new AuthError('not_found', `${user.email} is not a member of ${org.slug}`);
    return membership;
  }

  private async assertAnotherOwner(em: EntityManager, org: Organization, user: Person): Promise<void> {
    const others = await em.find(Membership, { org: org.id, user: { $ne: user.id } }, { fields: ['roles'] });
    if (!others.some((other) => holdsOwnerRole(other.roles, this.deps.settings.ownerRoles))) throw lastOwner(org, user);
  }

  /** The member's cached memberships drop everywhere (the feed), and here once this commits. */
  private async noted(tx: Transaction, userId: number): Promise<void> {
    await this.deps.storage.changes.note(tx.em, [userId]);
    tx.afterCommit(() => this.deps.memberships.forget([userId]));
  }

  private record(
    tx: Transaction,
    type: 'member_added' | 'member_removed' | 'member_roles_changed',
    org: Organization,
    user: Person,
    detail: AuditDetail,
  ): void {
    this.deps.audit.record(tx, {
      type,
      userId: user.id,
      email: user.email,
      detail: { org_id: org.id, org: org.slug, ...detail },
    });
  }
}

function toMemberInfo(membership: Membership, user: Person | User): MemberInfo {
  return {
    user_id: user.id,
    email: user.email,
    roles: [...membership.roles].sort(),
    created_at: membership.createdAt.toISOString(),
  };
}

function lastOwner(org: Organization, user: Person): AuthError {
  return new AuthError(
    'last_owner',
    `${user.email} is the last owner of ${org.slug}: give another member an owner role first, ` +
      `or delete the organization`,
  );
}
