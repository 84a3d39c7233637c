/**
 * The one resolution of who asks a question of the authorization API (`auth.abilityFor`,
 * `accessibleBy`, `explain`, `em`, `can`, `permittedFields`, and the CLI's `check`): from a request
 * a guard passed, its `req.user` (which stands for that request), or a user object of service
 * code, to the user, their ability and the organization they ask in. A request brings its
 * credential's limits (the impersonated user is the one asking, a token's scopes and the
 * organization it is bound to, the organization `orgRequired` put it in); asking `{ org }` adds
 * the ability there, `{ scopes }` narrows it further. Where they ask is applied here too: the
 * subject of a question and the rows of a filter belong to that organization (tenant.ts).
 */
import type { AbilityFactory } from './abilities.js';
import { abilityWithin, boundTokenRefusal, type Asked, type Asker, type InOrg } from './asker.js';
import { accessFilter, type AccessFilter, type AccessibleByOptions } from './filters.js';
import { orgAccessFilter, type OrgAccess } from './org-access.js';
import { toPrincipal, type Principal, type PrincipalLike } from './principal.js';
import { isGuardedRequest, orgOfRequest, requestOfUser, userOfRequest } from './request-state.js';
import type { WithScopes } from './scope-rules.js';
import type { Tenant } from './tenant.js';

export interface AskingDeps {
  abilities: AbilityFactory;
  orgAccess: OrgAccess;
  tenant: Tenant;
}

export class Asking {
  constructor(private readonly deps: AskingDeps) {}

  /**
   * Who asks, with `{ org }` in that organization (a promise: it is looked up; an unknown one, or
   * one the user may not know, is a 404 AuthError; a request whose token is bound to another is a
   * 403, as `orgRequired` refuses it), and within `{ scopes }` if given.
   */
  resolve(asked: Asker, options?: WithScopes): Asked;
  resolve(asked: Asker, options: InOrg & WithScopes): Promise<Asked>;
  resolve(asked: Asker, options: Partial<InOrg> & WithScopes): Asked | Promise<Asked>;
  resolve(asked: Asker, options: Partial<InOrg> & WithScopes = {}): Asked | Promise<Asked> {
    const { abilities } = this.deps;
    const who = askerOf(asked);
    const { scopes } = options;
    if (options.org !== undefined) return this.resolveIn(who, options as InOrg & WithScopes);
    if (!isGuardedRequest(who)) {
      const user = toPrincipal(who as PrincipalLike);
      return { user, ability: abilityWithin(abilities, user, undefined, scopes), org: undefined, roles: [] };
    }
    // The request's own ability (request-state.ts), built with `abilityWithin` as well.
    const user = userOfRequest(who)!;
    const place = orgOfRequest(who);
    const ability = scopes ? abilities.forToken(who.ability!, user, scopes) : who.ability!;
    return { user, ability, org: place?.org, roles: place?.membership?.roles ?? [] };
  }

  /** The subject of a question, in the organization asked in unless the context names its tenant field itself. */
  subjectOf(asked: Asked, subjectType: string, context: Record<string, unknown>): Record<string, unknown> {
    return asked.org ? { ...this.deps.tenant.stamp(subjectType, asked.org.id), ...context } : context;
  }

  /** `accessibleBy`: the rows the ability allows, in the organization asked in only (the tenant condition on all). */
  rowsOf(asked: Asked, action: string, subjectType: string, options: AccessibleByOptions): AccessFilter {
    const { abilities, tenant } = this.deps;
    const { ability, org } = asked;
    if (org) return orgAccessFilter(abilities, tenant, { ability, org }, action, subjectType, options);
    const describe = (rule: object): string => abilities.describe(rule);
    return accessFilter(ability, action, subjectType, describe, options, () => abilities.definitions());
  }

  private async resolveIn(who: Asker, { org, scopes }: InOrg & WithScopes): Promise<Asked> {
    const { abilities, orgAccess } = this.deps;
    const token = isGuardedRequest(who) && who.authMethod === 'token' ? who.token : undefined;
    // The user's attributes are loaded here if the roles in play, or the scopes, name any.
    const place = await orgAccess.abilityIn(principalOf(who), org, token?.scopes ?? scopes);
    const refusal = boundTokenRefusal(token, place.org.id);
    if (refusal) throw refusal;
    const { user, roles } = place;
    const within = token ? abilities.forToken(place.ability, user, token.scopes) : place.ability;
    return { user, ability: scopes ? abilities.forToken(within, user, scopes) : within, org: place.org, roles };
  }
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
