/**
 * Organizations themselves: creating one (its creator its first owner), renaming, deleting, and
 * listing them. Each change, its audit record and its change-feed note commit together.
 */
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { AuthError, ValidationError } from '../errors.js';
import { ApiToken, Membership, Organization, User } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { UserRef } from '../storage/user-ref.js';
import { actorId, emitOrgEvent, holdsOwnerRole, lockedOrg, requireOrg, type OrgDeps } from './context.js';
import { slugFrom, validOrgName, validSlug } from './names.js';
import { toOrgInfo, type OrgActor, type OrgInfo, type OrgRef, type OrgSummary, type UserOrg } from './views.js';

/** What `auth.orgs.create` takes: the name, the slug if not derived from it, and who becomes its owner. */
export interface NewOrg {
  name: string;
  slug?: string;
  /** The creator, who becomes a member with SERVICE_AUTH_ORG_OWNER_ROLES. */
  owner: UserRef;
}

/** What `auth.orgs.delete` may be told. */
export interface DeleteOrgOptions {
  /**
   * Delete it only if every member holds an owner role (SERVICE_AUTH_ORG_OWNER_ROLES): otherwise 409
   * `org_has_members`, and nothing is deleted. Checked in the deleting transaction, so a member
   * who joins meanwhile is counted. Default false: it is deleted with its members.
   */
  onlyOwners?: boolean | undefined;
}

/** Derived slugs tried before giving up on a race for the same one. */
const SLUG_ATTEMPTS = 5;

export class Organizations {
  constructor(
    private readonly deps: OrgDeps,
    /** Drops the cached tokens of these users (tokens bound to a deleted organization go with it). */
    private readonly evictTokensOf: (userId: number) => void,
  ) {}

  async create(input: NewOrg, actor?: OrgActor): Promise<OrgInfo> {
    const name = validOrgName(input?.name);
    const explicit = input.slug === undefined ? undefined : validSlug(input.slug);
    if (input.owner === undefined || input.owner === null)
      throw new ValidationError([{ field: 'owner', message: 'the user who becomes its owner is required' }]);
    const { storage, audit, lookup, settings, memberships, orgCache } = this.deps;
    const em = await storage.em();
    const owner = await lookup.require(em, input.owner);
    const roles = [...settings.ownerRoles].sort();
    for (let attempt = 1; ; attempt++) {
      try {
        const org = await storage.transaction(em, async (tx) => {
          await this.assertBelowOwnedCap(tx.em, owner.id);
          const slug = explicit ?? (await freeSlug(tx.em, slugFrom(name)));
          if (explicit !== undefined && (await tx.em.count(Organization, { slug }))) throw slugTaken(slug);
          // Its creator is a member from the moment it exists.
          const createdAt = new Date();
          const org = tx.em.create(Organization, { slug, name, createdAt });
          tx.em.create(Membership, { org, user: owner.id, roles, createdAt });
          await tx.em.flush();
          await storage.changes.note(tx.em, [owner.id]);
          // Every instance forgets that its id and slug named none.
          await storage.changes.noteOrgs(tx.em, [org.id]);
          audit.record(tx, {
            type: 'org_created',
            userId: owner.id,
            email: owner.email,
            detail: { org_id: org.id, org: slug, roles: roles.join(' '), by: actorId(actor) },
          });
          tx.afterCommit(() => {
            memberships.forget([owner.id]);
            orgCache.forget(org.id);
          });
          return toOrgInfo(org);
        });
        await emitOrgEvent(this.deps, 'org_created', actor, {
          org,
          member: { user_id: owner.id, email: owner.email },
          roles,
        });
        return org;
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException)) throw error;
        // Another organization took the slug at the same moment: an explicit one is taken; a derived one moves on.
        if (explicit !== undefined) throw slugTaken(explicit);
        if (attempt >= SLUG_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * SERVICE_AUTH_MAX_ORGS_PER_USER: the organizations a user owns (holds an owner role in) are
   * bounded, else 409 `too_many_organizations` and nothing is written. The owner's row is locked
   * first (SELECT … FOR UPDATE on PostgreSQL; SQLite's transactions already take the write lock
   * as they begin), so concurrent creations for one owner count one after another and cannot go
   * past the bound, as the token cap does; other owners' creations do not wait on it. Counted
   * rather than stored, so that a membership given or taken elsewhere needs no counter kept.
   */
  private async assertBelowOwnedCap(em: EntityManager, ownerId: number): Promise<void> {
    const { settings } = this.deps;
    await em.findOne(User, { id: ownerId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const rows = await em.find(Membership, { user: ownerId }, { fields: ['roles'] });
    const owned = rows.filter((membership) => holdsOwnerRole(membership.roles, settings.ownerRoles)).length;
    if (owned >= settings.maxOwnedPerUser) {
      const more = 'delete one, or hand its ownership to someone else, first';
      const most = settings.maxOwnedPerUser;
      const organizations = `${owned} organization${owned === 1 ? '' : 's'}`;
      throw new AuthError(
        'too_many_organizations',
        `This account owns ${organizations}, the most one may (${most}); ${more}`,
      );
    }
  }

  async rename(ref: OrgRef, newName: string, actor?: OrgActor): Promise<OrgInfo> {
    const name = validOrgName(newName);
    const { storage, audit, orgCache } = this.deps;
    const em = await storage.em();
    return storage.transaction(em, async (tx) => {
      const org = await lockedOrg(tx.em, ref);
      if (org.name !== name) {
        const previous = org.name;
        org.name = name;
        await storage.changes.noteOrgs(tx.em, [org.id]);
        audit.record(tx, {
          type: 'org_renamed',
          userId: actorId(actor),
          detail: { org_id: org.id, org: org.slug, name, previous_name: previous, by: actorId(actor) },
        });
        tx.afterCommit(() => orgCache.forget(org.id));
      }
      return toOrgInfo(org);
    });
  }

  /**
   * Deletes the organization with its memberships, invitations and the tokens bound to it. Its
   * members' and those tokens' owners' cached rows are dropped everywhere.
   */
  async delete(ref: OrgRef, actor?: OrgActor, options: DeleteOrgOptions = {}): Promise<OrgSummary> {
    const { storage, audit, orgCache, memberships, settings } = this.deps;
    const em = await storage.em();
    const { org, count } = await storage.transaction(em, async (tx) => {
      const org = await lockedOrg(tx.em, ref);
      const rows = await tx.em.find(Membership, { org: org.id }, { fields: ['user', 'roles'] });
      const others = rows.filter((m) => !holdsOwnerRole(m.roles, settings.ownerRoles)).length;
      if (options.onlyOwners && others > 0)
        throw new AuthError(
          'org_has_members',
          `${org.slug} has ${others} member${others === 1 ? '' : 's'} besides its owners`,
        );
      const members = rows.map((m) => m.user.id);
      const tokenOwners = (await tx.em.find(ApiToken, { org: org.id }, { fields: ['user'] })).map(
        (token) => token.user.id,
      );
      const info = toOrgInfo(org);
      await tx.em.nativeDelete(Organization, { id: org.id });
      await storage.changes.note(tx.em, [...members, ...tokenOwners]);
      await storage.changes.noteOrgs(tx.em, [org.id]);
      audit.record(tx, {
        type: 'org_deleted',
        userId: actorId(actor),
        detail: { org_id: org.id, org: org.slug, members: members.length, by: actorId(actor) },
      });
      tx.afterCommit(() => {
        orgCache.forget(org.id);
        memberships.forget(members);
        for (const userId of new Set(tokenOwners)) this.evictTokensOf(userId);
      });
      return { org: info, count: members.length };
    });
    await emitOrgEvent(this.deps, 'org_deleted', actor, { org });
    return { ...org, members: count };
  }

  /** The user's organizations, by slug, with the roles they hold in each (a 404 `not_found` for an unknown user). */
  async listFor(ref: UserRef): Promise<UserOrg[]> {
    const em = await this.deps.storage.em();
    const user = await this.deps.lookup.require(em, ref);
    const rows = await em.find(Membership, { user: user.id }, { populate: ['org'], orderBy: { org: { slug: 'asc' } } });
    return rows.map((membership) => ({ ...toOrgInfo(membership.org), roles: [...membership.roles] }));
  }

  async get(ref: OrgRef): Promise<OrgInfo> {
    return toOrgInfo(await requireOrg(await this.deps.storage.em(), ref));
  }
}

/** `base`, or `base-2`, `base-3`, … : the first no organization has. */
async function freeSlug(em: EntityManager, base: string): Promise<string> {
  const rows = await em.find(
    Organization,
    { $or: [{ slug: base }, { slug: { $like: `${base}-%` } }] },
    { fields: ['slug'] },
  );
  const taken = new Set(rows.map((row) => row.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

function slugTaken(slug: string): AuthError {
  return new AuthError('slug_taken', `an organization with the slug ${JSON.stringify(slug)} exists`);
}
