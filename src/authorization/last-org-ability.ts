/**
 * The last ability built for a user in an organization, found again by comparing what it was built
 * from, without building the cache key of abilities.ts (a sorted copy of the roles, a JSON string)
 * on every request in an organization. Held per user object (the credential lookups keep the same
 * frozen user while it is unchanged, and a changed user is a new object), one organization each:
 * a user who moves between organizations falls back on the keyed cache, which answers the same.
 */
import type { AppAbility } from './ability-types.js';
import type { OrgRef } from './placeholders.js';

interface Held {
  orgId: number;
  slug: string;
  roles: readonly string[];
  /** The definitions' versions the ability was built with. */
  versions: readonly number[];
  ability: AppAbility;
}

export class LastOrgAbility {
  private readonly byUser = new WeakMap<object, Held>();

  /** The ability built for exactly these (user, organization, roles in this order, versions), if it is the last one. */
  find(user: object, org: OrgRef, roles: readonly string[], versions: readonly number[]): AppAbility | undefined {
    const held = this.byUser.get(user);
    if (
      !held ||
      held.orgId !== org.id ||
      held.slug !== org.slug ||
      !sameList(held.roles, roles) ||
      !sameList(held.versions, versions)
    )
      return undefined;
    return held.ability;
  }

  remember(
    user: object,
    org: OrgRef,
    roles: readonly string[],
    versions: readonly number[],
    ability: AppAbility,
  ): void {
    // A copy of the roles: the caller's list may change after this.
    this.byUser.set(user, { orgId: org.id, slug: org.slug, roles: [...roles], versions, ability });
  }
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
