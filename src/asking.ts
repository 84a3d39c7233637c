/**
 * Who asks a question of the authorization API: a request a guard passed, its `req.user` (which
 * stands for the request), or a user object of service code; and the ability of any of them in an
 * organization. Used by authorization-api.ts and enforcement-api.ts alike, so that every door
 * resolves the asker the same way.
 */
import type { Request } from 'express';
import type { AppAbility } from './authorization/abilities.js';
import type { OrgName } from './authorization/org-directory.js';
import { toPrincipal, type Principal, type PrincipalLike } from './authorization/principal.js';
import { isGuardedRequest, requestOfUser, userOfRequest } from './authorization/request-state.js';
import { AuthError } from './errors.js';
import type { AuthParts } from './wiring.js';

/** Who a question is about: a user, or a request a guard has passed (its user, in its organization if any). */
export type Asker = PrincipalLike | Request;

/** `{ org }`: ask in an organization (its id, its slug, or `req.org`); the answer is then a promise. */
export interface InOrg {
  org: OrgName;
}

/**
 * The ability in an organization of a user, or of a request's user: a request whose token is bound
 * to another organization is refused there, 403 `forbidden`, as `orgRequired` refuses it; a scoped
 * token's ability there is within its scopes, as `req.ability` is.
 */
export async function abilityIn(parts: AuthParts, who: Asker, org: OrgName, scopes?: readonly string[]): Promise<{ ability: AppAbility; org: { id: number }; user: Principal }> {
  const token = isGuardedRequest(who) && who.authMethod === 'token' ? who.token : undefined;
  // The user's attributes are loaded here if the roles in play, or the scopes, name any.
  const place = await parts.orgAccess.abilityIn(principalOf(who), org, token?.scopes ?? scopes);
  if (!token) return place;
  if (token.org != null && token.org !== place.org.id) throw new AuthError('forbidden', 'This token is bound to another organization');
  return { ...place, ability: parts.abilities.forToken(place.ability, place.user, token.scopes) };
}

/**
 * The request itself when given its `req.user` (request-state.ts binds each to its request), so
 * that the user decides exactly as the request: its token's scopes and organization, its place.
 * Any other user object asks without a credential's limits (service code, `auth.users.*`).
 */
export function askerOf(who: Asker): Asker {
  return requestOfUser(who) ?? who;
}

/** The user of a request a guard passed (with the attributes it loaded), or the user given. */
export function principalOf(who: Asker): Principal {
  return isGuardedRequest(who) ? userOfRequest(who)! : toPrincipal(who as PrincipalLike);
}
