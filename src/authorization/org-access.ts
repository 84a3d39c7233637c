/**
 * Requests and questions in an organization: `auth.orgRequired(param)` (the guard's check), and
 * the ability in an organization for service code (`auth.abilityFor(user, { org })` and the rest).
 *
 * A caller who is not a member is told 404 `not_found`, exactly as for an organization that does
 * not exist, unless their global ability allows `read` on that organization (a global admin):
 * then they are in it with their global roles only. A token bound to another organization is
 * 403 `forbidden` (the caller knows that organization: they are in it).
 */
import { createMongoAbility, subject as asSubject } from '@casl/ability';
import type { Request } from 'express';
import type { Credentials } from '../authentication/credentials.js';
import { AuthError } from '../errors.js';
import type { AbilityFactory, OrgPlace } from './abilities.js';
import type { AppAbility } from './ability-types.js';
import { boundTokenRefusal } from './asker.js';
import { conditionsMatcher } from './conditions.js';
import { accessFilter, type AccessibleByOptions } from './filters.js';
import type { OrgDirectory, OrgInfo, OrgMembership, OrgName } from './org-directory.js';
import type { Principal } from './principal.js';
import { enterOrg, userOfRequest, type OrgPlaceOfRequest } from './request-state.js';
import { ScopedAbility } from './scoped-ability.js';
import { ORGANIZATION, type Tenant } from './tenant.js';
import type { UserAttributes } from './user-attributes.js';

export class OrgAccess {
  constructor(
    private readonly abilities: AbilityFactory,
    /** The organizations; a function, as the service is built after the guards. */
    private readonly directory: () => OrgDirectory,
    /** Where a user's attribute values come from (the CLI's `check` gives its own). */
    private readonly attributes: Pick<UserAttributes, 'load'>,
  ) {}

  /**
   * The check of `orgRequired(param)`: finds the organization and the membership, and puts the
   * request in it. Synchronous when memory holds both (the common case: no promise, whose
   * async-hook bookkeeping under MikroORM's AsyncLocalStorage costs more than the lookups).
   */
  enter(req: Request, credentials: Credentials, param: string): AuthError | undefined | Promise<AuthError | undefined> {
    const name = req.params[param];
    if (typeof name !== 'string') throw new TypeError(`orgRequired('${param}'): the route has no parameter :${param}`);
    // With the attributes the guard loaded, if the user's global roles name any.
    const user = userOfRequest(req) ?? credentials.user;
    const held = this.heldPlaceOf(user, name);
    if (held !== undefined) return admit(req, credentials.token, held);
    return this.placeOf(user, name).then((place) => admit(req, credentials.token, place));
  }

  /**
   * The organization and the user's membership there, or null when the organization does not
   * exist or the user may not know it (no membership and no global `read` on it).
   */
  async placeOf(user: Principal, name: OrgName): Promise<OrgPlaceOfRequest | null> {
    const org = await this.find(name);
    if (!org) return null;
    return this.placeIn(user, org, await this.directory().membership(org.id, user.id));
  }

  /** What `placeOf` answers, when memory can tell now; undefined when only `placeOf` can. */
  private heldPlaceOf(user: Principal, name: string): OrgPlaceOfRequest | null | undefined {
    const directory = this.directory();
    const org = directory.peek(name);
    if (!org) return org;
    const membership = directory.peekMembership(org.id, user.id);
    return membership === undefined ? undefined : this.placeIn(user, org, membership);
  }

  private placeIn(user: Principal, org: OrgInfo, membership: OrgMembership | null): OrgPlaceOfRequest | null {
    if (membership) return { org, membership };
    const global = this.abilities.abilityFor(user);
    return global.can('read', asSubject(ORGANIZATION, { ...org })) ? { org, membership: null } : null;
  }

  /**
   * The user's ability in the organization (global roles only where they are no member); 404 for
   * an unknown one. The user's attributes are loaded first if the roles in play, or the `scopes`
   * of a token to be asked as, name any: `user` is the principal the ability was built for, `roles`
   * the membership's there.
   */
  async abilityIn(
    user: Principal,
    name: OrgName,
    scopes?: readonly string[],
  ): Promise<{ ability: AppAbility; org: OrgInfo; user: Principal; roles: readonly string[] }> {
    const org = await this.find(name);
    if (!org) throw noSuchOrg();
    const membership = await this.directory().membership(org.id, user.id);
    const place = { org, roles: membership?.roles ?? [] };
    const attributed = await this.attributedIn(user, place, scopes);
    return { ability: this.abilities.abilityFor(attributed, place), org, user: attributed, roles: place.roles };
  }

  /** The user with their attribute values if the roles in play there (or the `scopes`) name any and they are not loaded yet. */
  async attributedIn(user: Principal, place: OrgPlace, scopes?: readonly string[]): Promise<Principal> {
    return !user.attributes && this.abilities.needsAttributes(user, place, scopes) ? this.attributes.load(user) : user;
  }

  private async find(name: OrgName): Promise<OrgInfo | null> {
    if (typeof name === 'object' && name !== null) return this.directory().find(name.id);
    if (typeof name !== 'string' && typeof name !== 'number')
      throw new TypeError('{ org }: an organization id, slug, or req.org');
    return this.directory().find(name);
  }
}

/** Puts the request in the place found, or says why not. */
function admit(req: Request, token: Credentials['token'], place: OrgPlaceOfRequest | null): AuthError | undefined {
  if (!place) return noSuchOrg();
  const refusal = boundTokenRefusal(token, place.org.id);
  if (refusal) return refusal;
  enterOrg(req, place);
  return undefined;
}

function noSuchOrg(): AuthError {
  return new AuthError('not_found', 'No such organization');
}

/**
 * `accessibleBy` in an organization: the rows the ability allows, of that organization only (the
 * tenant condition is added to the whole filter, global grants included). For `Organization`,
 * the organization roles' `all` rules are left out: they are bound by the tenant field, which an
 * organization does not have (it is named by `id`), and a filter naming it could not be run.
 */
export function orgAccessFilter(
  abilities: AbilityFactory,
  tenant: Tenant,
  { ability, org }: { ability: AppAbility; org: { id: number } },
  action: string,
  subjectType: string,
  options: AccessibleByOptions,
): Record<string, unknown> {
  const relevant = subjectType === ORGANIZATION ? withoutOrgRules(abilities, ability, 'wide') : ability;
  const roles = () => abilities.definitions();
  const describe = (rule: object) => abilities.describe(rule);
  const filter = accessFilter(relevant, action, subjectType, describe, options, roles);
  return { $and: [filter, tenant.condition(subjectType, org.id)] };
}

/** The parts of abilities without (some of) the organization roles' rules, by ability. */
const withoutOrg = { every: new WeakMap<AppAbility, AppAbility>(), wide: new WeakMap<AppAbility, AppAbility>() };

/**
 * The ability without the organization roles' rules (`every`: its global part, which alone
 * decides about a subject type without the tenant field), or without only their `all` rules
 * (`wide`); a scoped token's with its scopes kept. Made once per ability.
 */
export function withoutOrgRules(abilities: AbilityFactory, ability: AppAbility, which: 'every' | 'wide'): AppAbility {
  const held = withoutOrg[which].get(ability);
  if (held) return held;
  let part: AppAbility;
  if (ability instanceof ScopedAbility) {
    part = new ScopedAbility(withoutOrgRules(abilities, ability.owner, which), ability.scopes) as unknown as AppAbility;
  } else {
    const left = (rule: AppAbility['rules'][number]): boolean => {
      const fromOrgRole = abilities.sourceOf(rule)?.org === true;
      return !(fromOrgRole && (which === 'every' || rule.subject === 'all'));
    };
    part = createMongoAbility<AppAbility>(ability.rules.filter(left), { conditionsMatcher });
  }
  withoutOrg[which].set(ability, part);
  return part;
}
