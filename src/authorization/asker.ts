/**
 * Who asks a question of authorization, and the two rules every way of asking shares: the ability
 * of a user in a place within a credential's scopes, and the refusal of a token bound to another
 * organization. The guards (request-state.ts, org-access.ts) and the service API (asking.ts) both
 * call these, so a request and `auth.abilityFor(req.user)` can never decide differently.
 */
import type { Request } from 'express';
import { AuthError } from '../errors.js';
import type { AbilityFactory, OrgPlace } from './abilities.js';
import type { AppAbility } from './ability-types.js';
import type { OrgInfo, OrgName } from './org-directory.js';
import type { Principal, PrincipalLike } from './principal.js';

/** Who a question is about: a user, or a request a guard has passed (its user, in its organization if any). */
export type Asker = PrincipalLike | Request;

/** `{ org }`: ask in an organization (its id, its slug, or `req.org`); the answer is then a promise. */
export interface InOrg {
  org: OrgName;
}

/** Who asks, resolved (asking.ts): the user with their attributes, their ability, and where they ask. */
export interface Asked {
  /** The user the ability was built for: with the application's attribute values where their rules name any. */
  user: Principal;
  /** In the organization if any, within the token's scopes and the scopes asked with. */
  ability: AppAbility;
  /** The organization asked in, or the request's (`orgRequired`); undefined: everywhere. */
  org: OrgInfo | undefined;
  /** The organization roles the user's membership holds there (none for a non-member, or everywhere). */
  roles: readonly string[];
}

/**
 * The user's ability (in the place, if any: global roles with the membership's roles there),
 * intersected with the scopes of the token asked with, if any (scoped-ability.ts).
 */
export function abilityWithin(
  abilities: AbilityFactory,
  user: Principal,
  place: OrgPlace | undefined,
  scopes: readonly string[] | undefined,
): AppAbility {
  const ability = abilities.abilityFor(user, place);
  return scopes ? abilities.forToken(ability, user, scopes) : ability;
}

/**
 * A token bound to an organization may be used in that one only: elsewhere 403 `forbidden` (not a
 * 404: the caller knows the organization, they are in it). Nothing for any other credential.
 */
export function boundTokenRefusal(token: { org?: number | null } | undefined, orgId: number): AuthError | undefined {
  if (token?.org == null || token.org === orgId) return undefined;
  return new AuthError('forbidden', 'This token is bound to another organization');
}
