/**
 * The application's own user attributes in rules (`${user.team}`), in ServiceAuth's public API:
 * declaring them and their resolver, loading a user's values for service code, and dropping
 * what every instance holds of them (authorization/user-attributes.ts). One of the parts
 * ServiceAuth is made of (service-auth.ts).
 */
import { toPrincipal, type Principal, type PrincipalLike } from './authorization/principal.js';
import { askerOf } from './authorization/asking.js';
import { isGuardedRequest, setAttributedUser, userOfRequest } from './authorization/request-state.js';
import type { UserAttributeResolver } from './authorization/user-attributes.js';
import type { Request } from 'express';
import type { AuthParts } from './wiring.js';

export class UserAttributeApi {
  readonly #parts: Pick<AuthParts, 'userAttributes'>;

  constructor(parts: Pick<AuthParts, 'userAttributes'>) {
    this.#parts = parts;
  }

  /**
   * Declares the application's own user attributes, which rules then name as `${user.team}`, and
   * (now or later) the resolver that gives a user's values: strings, finite numbers or booleans;
   * one left out (or null) makes the conditions naming it deny for that user. Declare the names
   * before defining a role that names them. Values are read once per user and held with the
   * user's abilities until `auth.invalidateUser(user)` (or any change to their credentials).
   * Declaring again adds names; a new resolver replaces the old one. See docs/authorization.md.
   */
  defineUserAttributes(names: readonly string[], resolver?: UserAttributeResolver): void {
    this.#parts.userAttributes.define(names, resolver);
  }

  /**
   * The user with the application's attribute values (`defineUserAttributes`), read with its
   * resolver or held: pass it to `abilityFor`, `accessibleBy`, `explain` and the rest when the
   * user's roles name attributes. For a request, also gives its `req.ability` the values (a route
   * behind `loginRequired` only, say). A user that carries `attributes` already is returned as it
   * is. Rejects with an AuthError `attributes_unavailable` (503) when the resolver fails.
   */
  async loadUserAttributes(asked: PrincipalLike | Request): Promise<Principal> {
    const { userAttributes } = this.#parts;
    // `req.user` stands for its request (request-state.ts): its values go onto the request too.
    const who = askerOf(asked);
    if (!isGuardedRequest(who)) return userAttributes.load(toPrincipal(who as PrincipalLike));
    const attributed = await userAttributes.load(userOfRequest(who)!);
    setAttributedUser(who, attributed);
    return attributed;
  }

  /**
   * Drops the user's attribute values and abilities held by every instance (within a second
   * elsewhere, through the change feed; here at once): call it when what the resolver reads for
   * them changed. Their next request reads the values again.
   */
  async invalidateUser(user: PrincipalLike | number): Promise<void> {
    await this.#parts.userAttributes.invalidate(typeof user === 'number' ? user : toPrincipal(user).id);
  }
}
