/**
 * The two reads every request in an organization makes (`orgRequired`): the organization by id or
 * slug, and the caller's membership of it. Both are held until the change feed names what they
 * hold (storage/change-feed.ts), so a change made on another instance or by the CLI shows within a
 * second, without a query per request:
 *
 * - an organization until the feed names it (created, renamed or deleted: `noteOrgs`); that there is none
 *   by an id or slug too, until the feed names any organization (one created is noted), so that a
 *   stranger's request for an organization that does not exist costs no more work than for one
 *   that exists (no query either way), which would tell them apart;
 * - a user's memberships, all of them at once (one indexed query), until the feed names the user
 *   (added, removed, their roles changed, the organization deleted: every member is noted).
 *
 * A change made through this instance drops its copies at once (`forget…`, after the commit).
 */
import type { ChangeFeed } from '../storage/change-feed.js';
import { Membership, Organization } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import { RowCache } from '../storage/row-cache.js';
import { isIdString, isOrgRef } from './names.js';
import { toMembershipInfo, toOrgInfo, type MembershipInfo, type OrgInfo } from './views.js';

/** Held for an id or slug that names no organization. */
const MISSING = Object.freeze({ missing: true as const });

export class OrgCache {
  /** Keyed `#<id>` or by slug (a slug never starts with `#`). */
  private readonly rows: RowCache<string, OrgInfo | typeof MISSING>;

  constructor(em: () => Promise<EntityManager>, changes: ChangeFeed) {
    this.rows = new RowCache(changes, async (key) => {
      const where = key.startsWith('#') ? { id: Number(key.slice(1)) } : { slug: key };
      const org = await (await em()).fork().findOne(Organization, where, { disableIdentityMap: true });
      return org ? toOrgInfo(org) : MISSING;
    });
    changes.onOrgChange((orgId) => this.forget(orgId));
  }

  /** The organization by id or slug (a string of digits is an id), or null. */
  async find(ref: number | string): Promise<OrgInfo | null> {
    const key = keyOf(ref);
    return copyOf(key === undefined ? undefined : await this.rows.fetch(key));
  }

  /**
   * What `find` would answer, if memory can tell now (the row held, the change feed fresh);
   * undefined if only `find` can. The guards' hot path: no promise, no await.
   */
  peek(ref: number | string): OrgInfo | null | undefined {
    const key = keyOf(ref);
    if (key === undefined) return null;
    const org = this.rows.peek(key);
    return org === undefined ? undefined : copyOf(org);
  }

  /** Drops the organization (null: every one) after it changed, and every "none such" (it may be a new one). */
  forget(orgId: number | null): void {
    this.rows.deleteWhere((org) => org === MISSING || orgId === null || (org as OrgInfo).id === orgId);
  }
}

export class MembershipCache {
  /** By user: each of their memberships by organization id. */
  private readonly rows: RowCache<number, Map<number, MembershipInfo>>;

  constructor(em: () => Promise<EntityManager>, changes: ChangeFeed) {
    this.rows = new RowCache(changes, async (userId) => {
      const memberships = await (await em()).fork().find(Membership, { user: userId }, { disableIdentityMap: true });
      return new Map(memberships.map((membership) => [membership.org.id, toMembershipInfo(membership)]));
    });
    changes.onChange((userId) => (userId === null ? this.rows.deleteWhere(() => true) : this.rows.delete(userId)));
  }

  /** The user's membership of the organization, or null. */
  async find(orgId: number, userId: number): Promise<MembershipInfo | null> {
    if (!Number.isSafeInteger(orgId) || !Number.isSafeInteger(userId)) return null;
    return membershipCopy((await this.rows.fetch(userId))?.get(orgId));
  }

  /** What `find` would answer, if memory can tell now; undefined if only `find` can (as `OrgCache.peek`). */
  peek(orgId: number, userId: number): MembershipInfo | null | undefined {
    if (!Number.isSafeInteger(orgId) || !Number.isSafeInteger(userId)) return null;
    const memberships = this.rows.peek(userId);
    return memberships === undefined ? undefined : membershipCopy(memberships.get(orgId));
  }

  forget(userIds: Iterable<number>): void {
    for (const userId of userIds) this.rows.delete(userId);
  }
}

// Copies: the caller may keep or change what it is given without touching what is held.

function copyOf(org: OrgInfo | typeof MISSING | undefined): OrgInfo | null {
  return org && org !== MISSING ? { ...(org as OrgInfo) } : null;
}

function membershipCopy(held: MembershipInfo | undefined): MembershipInfo | null {
  return held ? { roles: [...held.roles], created_at: held.created_at } : null;
}

/** The cache key for an id or a slug; undefined for what can name no organization. */
function keyOf(ref: number | string): string | undefined {
  if (typeof ref === 'number') return Number.isSafeInteger(ref) && ref > 0 ? `#${ref}` : undefined;
  if (typeof ref !== 'string') return undefined;
  if (!isOrgRef(ref)) return undefined;
  return isIdString(ref) ? `#${Number(ref)}` : ref;
}
