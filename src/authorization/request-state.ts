/**
 * How the guards hand what they found to the rest of the request: `req.user`, `req.authMethod`,
 * `req.token`, `req.impersonator`, `req.ability`, and after `orgRequired` `req.org` and `req.membership` (typed in
 * express-request.ts). The organization stays for every later guard of the request, whose
 * `req.ability` is then the ability in it.
 *
 * Express gives every request its prototype anew (Object.setPrototypeOf), after which each
 * property added to the request is slow; on a guarded route four of them cost a few percent of
 * the whole request, and even one (a symbol) about a microsecond. So a guard adds none: what it
 * found is kept in a WeakMap keyed by the request (gone with it), and the names are accessors on
 * the request's prototype that read it. `req.ability` is built only when something asks for it.
 * Assigning any of them (as another library might `req.user = …`) stores a plain own property.
 */
import type { Request } from 'express';
import type { AbilityFactory } from './abilities.js';
import type { AppAbility } from './ability-types.js';
import { abilityWithin } from './asker.js';
import type { Credentials } from '../authentication/credentials.js';
import type { OrgMembership, OrgInfo } from './org-directory.js';
import type { Principal } from './principal.js';
import type { AuthUser } from '../users/auth-user.js';

const INSTALLED = Symbol.for('service-auth.request-accessors');
/** Shared by every copy of the package loaded in the process, as the accessors are. */
const STATES: WeakMap<object, RequestState> = ((globalThis as Record<symbol, WeakMap<object, RequestState>>)[
  Symbol.for('service-auth.request-states')
] ??= new WeakMap());

/** The organization a request is in (`orgRequired`), and the caller's membership there (null: none). */
export interface OrgPlaceOfRequest {
  org: OrgInfo;
  membership: OrgMembership | null;
}

interface RequestState {
  credentials: Credentials;
  /** Whether a later guard may take `credentials` as they are (false after a login or logout in the request). */
  current: boolean;
  abilities: AbilityFactory;
  ability: AppAbility | undefined;
  place: OrgPlaceOfRequest | undefined;
  /** The user with the application's attributes, once a guard (or `auth.loadUserAttributes(req)`) loaded them. */
  attributed: Principal | undefined;
  /** `req.user`: the user, bound to this request (boundUser), made when first read. */
  bound: AuthUser | undefined;
}

/** Each `req.user` handed out, and the request whose credential it carries. */
const BOUND_USERS = new WeakMap<object, Request>();

/**
 * The request whose `req.user` this is, if it is one: the authorization API then decides as for the
 * request (its token's scopes and organization, the organization a guard put it in), so that
 * passing `req.user` can never widen what `req` may do (docs/authorization.md).
 */
export function requestOfUser(value: unknown): Request | undefined {
  return value !== null && typeof value === 'object' ? BOUND_USERS.get(value) : undefined;
}

/**
 * A copy of the user for one request: the same fields and prototype (so `instanceof AuthUser`,
 * `toJSON` and spreading behave as before), but its own identity, which `requestOfUser` maps back
 * to the request. The cached user object is shared by every request of that user (a session and a
 * scoped token at once), so it cannot itself say which credential it came with.
 */
function boundUser(user: AuthUser, req: Request): AuthUser {
  const copy = Object.freeze(Object.assign(Object.create(Object.getPrototypeOf(user) as object) as AuthUser, user));
  BOUND_USERS.set(copy, req);
  return copy;
}

type StatefulRequest = Request & { [INSTALLED]?: true };

export function attachCredentials(req: Request, credentials: Credentials, abilities: AbilityFactory): void {
  const stateful = req as StatefulRequest;
  const state = STATES.get(req);
  // A later guard handed the credentials an earlier one attached (`credentialsOf`): the ability built stays.
  if (state?.credentials === credentials && state.abilities === abilities) return;
  if (stateful[INSTALLED] !== true) installAccessors(Object.getPrototypeOf(req) as object);
  // A later guard of the same request keeps its organization, and the attributes loaded for its user.
  const attributed = state?.attributed?.id === credentials.user.id ? state.attributed : undefined;
  STATES.set(req, {
    credentials,
    current: true,
    abilities,
    ability: undefined,
    place: state?.place,
    attributed,
    bound: undefined,
  });
}

/**
 * The credentials an earlier guard of the request resolved, for a later guard: looking them up
 * again (the cookie parsed, its hash, the cache) would find the same, unless the request logged
 * in or out meanwhile (`forgetCredentials`). Only a guard of the same instance (`abilities`) takes them.
 */
export function credentialsOf(req: Request, abilities: AbilityFactory): Credentials | undefined {
  const state = STATES.get(req);
  return state?.current && state.abilities === abilities ? state.credentials : undefined;
}

/** The request's credentials changed (CredentialResolver.forget): its next guard looks them up again. */
export function forgetCredentials(req: Request): void {
  const state = STATES.get(req);
  if (state) state.current = false;
}

/** The request's user as the ability sees it: with their attributes once loaded, else `req.user`. */
export function userOfRequest(req: Request): Principal | undefined {
  const state = STATES.get(req);
  return state && (state.attributed ?? state.credentials.user);
}

/** Gives the request's user their attribute values: `req.ability` is from now on built with them. */
export function setAttributedUser(req: Request, user: Principal): void {
  const state = STATES.get(req);
  if (!state) throw new TypeError('setAttributedUser: the request has no credentials');
  state.attributed = user;
  state.ability = undefined;
}

/** Puts the request in an organization (`orgRequired`): `req.ability` is from now on the ability there. */
export function enterOrg(req: Request, place: OrgPlaceOfRequest): void {
  const state = STATES.get(req);
  if (!state) throw new TypeError('enterOrg: the request has no credentials');
  state.place = place;
  state.ability = undefined;
}

/** The organization the request is in, if a guard put it in one. */
export function orgOfRequest(req: Request): OrgPlaceOfRequest | undefined {
  return STATES.get(req)?.place;
}

/** Whether `value` is a request a guard has passed (it carries credentials), rather than a user. */
export function isGuardedRequest(value: unknown): value is Request {
  return value !== null && typeof value === 'object' && STATES.has(value);
}

/**
 * How each instance (by its AbilityFactory) makes `req.em`, once the application registered its ORM
 * (`auth.enforce`): the enforcement room's, handed the request, which reads its ability and organization.
 */
const REQUEST_EMS = new WeakMap<AbilityFactory, (req: Request) => unknown>();

export function setRequestEm(abilities: AbilityFactory, make: (req: Request) => unknown): void {
  REQUEST_EMS.set(abilities, make);
}

const READERS: Record<string, (state: RequestState, req: Request) => unknown> = {
  user: (state: RequestState, req: Request) => (state.bound ??= boundUser(state.credentials.user, req)),
  authMethod: (state: RequestState) => state.credentials.method,
  token: (state: RequestState) => state.credentials.token,
  impersonator: (state: RequestState) => state.credentials.impersonator,
  ability: (state: RequestState) => (state.ability ??= abilityOf(state)),
  org: (state: RequestState) => state.place?.org,
  membership: (state: RequestState) => state.place?.membership,
  em: (state: RequestState, req: Request) => {
    const make = REQUEST_EMS.get(state.abilities);
    if (!make) throw new TypeError('req.em: register your MikroORM first, with auth.enforce(orm)');
    return make(req);
  },
};

/** The user's ability (in the organization, if any), intersected with a token's scopes (asker.ts). */
function abilityOf({ abilities, credentials, place, attributed }: RequestState): AppAbility {
  const inOrg = place && { org: place.org, roles: place.membership?.roles ?? [] };
  return abilityWithin(abilities, attributed ?? credentials.user, inOrg, credentials.token?.scopes);
}

function installAccessors(prototype: object): void {
  for (const [name, read] of Object.entries(READERS)) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      get(this: StatefulRequest) {
        const state = STATES.get(this);
        return state ? read(state, this) : undefined;
      },
      set(this: Request, value: unknown) {
        Object.defineProperty(this, name, { value, writable: true, configurable: true, enumerable: true });
      },
    });
  }
  Object.defineProperty(prototype, INSTALLED, { value: true });
}
