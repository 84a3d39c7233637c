/**
 * The user's attribute values as part of an ability's cache key. Rules that name a user attribute
 * (`${user.team}`) decide by its values, so an ability built from them is cached by them too; and
 * a synchronous path that would need values nobody loaded refuses, rather than answer by guesswork.
 */
import type { Principal } from './principal.js';

/**
 * The user's attribute values as part of a cache key, or the TypeError of a sync path that would
 * need values nobody loaded (`what` says which rules name them).
 */
export function attributesOf(user: Principal, what: string): string {
  if (!user.attributes) {
    throw new TypeError(
      `${what} name user attributes (\${user.…}), which are not loaded for user ${user.id}: use ` +
        `the principal that await auth.loadUserAttributes(user) returns (or await it on the ` +
        `request), or ask with { org }, which loads them`,
    );
  }
  return JSON.stringify(Object.entries(user.attributes).sort(([a], [b]) => (a < b ? -1 : 1)));
}
