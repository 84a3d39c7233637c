/**
 * One CASL ability per principal: the rules of the user's roles, plus every named policy as a
 * rule whose subject type is the policy's name, action `satisfy`, and whose condition calls the
 * policy with the user and the subject (the route context: policy-rules.ts). Abilities are cached
 * per user and rebuilt only when the user's roles or flags, or the definitions, change. The
 * ability's type, and how an application registers its names, are in ability-types.ts.
 *
 * In an organization, the membership's organization roles come between the two: global rules
 * first, then the organization's (bound to it: tenant.ts), then the global rules again from the
 * first global refusal on, then the policies. CASL lets a later rule win, so an organization's
 * own refusal (an inverted rule of an org role) holds for its rows even against a global role's
 * grant (the organization's policy is the more specific one, and it can reach nothing outside
 * the organization), and a global refusal holds in every organization, against an org role's
 * `manage all` too (a ban is a ban). Cached per (user, organization, roles).
 *
 * Rules that name the application's user attributes (`${user.team}`) need the user's values: a
 * principal that carries them (`auth.loadUserAttributes`, or a guard, loaded them). Asking for an
 * ability whose roles (or a token's scopes) name one, for a user without them, is a TypeError
 * saying to load them: the answer would otherwise depend on values nobody read. The values are
 * part of what the ability is cached by (attribute-key.ts).
 */
import { createMongoAbility } from '@casl/ability';
import { LRUCache } from 'lru-cache';
import type { AppAbility, AppRule } from './ability-types.js';
import { attributesOf } from './attribute-key.js';
import { conditionsMatcher } from './conditions.js';
import type { OrgRef } from './placeholders.js';
import type { PolicyRegistry } from './policies.js';
import { POLICY_ACTION, policyRules } from './policy-rules.js';
import type { Principal } from './principal.js';
import { knownNames, unknownNameProblem, type KnownNames } from './known-names.js';
import type { RoleDefinition, RoleRules, RuleSource } from './role-rules.js';
import type { OrgRoleRules } from './org-role-rules.js';
import { intersectRules } from './rule-intersection.js';
import { IndexedAbility } from './indexed-ability.js';
import { UNTENANTED } from './tenant.js';
import { LastOrgAbility } from './last-org-ability.js';
import { rulesInOrgOrder, servedInOrgOrder } from './org-rule-order.js';
import { ScopedAbility } from './scoped-ability.js';
import type { ScopeRules } from './scope-rules.js';

/** Where an ability is asked for: an organization, and the roles the user's membership holds there (none for a non-member). */
export interface OrgPlace {
  org: OrgRef;
  roles: readonly string[];
}

export class AbilityFactory {
  /** Made on first use: lru-cache allocates arrays for `max` entries up front. */
  private held: LRUCache<string, AppAbility> | undefined;
  private known: { versions: string; names: KnownNames } | undefined;
  /** The same user object (cached for a while by the credential lookups) skips building the key. */
  private readonly byUser = new WeakMap<Principal, { roles: number; policies: number; ability: AppAbility }>();
  /** The same for a request in an organization (last-org-ability.ts). */
  private readonly lastInOrg = new LastOrgAbility();

  constructor(
    private readonly roles: RoleRules,
    private readonly policies: PolicyRegistry,
    private readonly orgRoles?: OrgRoleRules,
    private readonly scopes?: ScopeRules,
  ) {}

  /** A scoped token's abilities, per owner's ability (itself per user and organization) and scope list. */
  private readonly scoped = new WeakMap<AppAbility, Map<string, AppAbility>>();

  /**
   * The ability of a token with these scopes, whose owner's ability (everywhere, or in an
   * organization) is `ability`: that ability intersected with the union of the scopes' rules
   * (scoped-ability.ts). A token without scopes, and any token before a scope is defined, has its
   * owner's ability. Cached per (owner's ability, scope definitions, scopes).
   */
  forToken(ability: AppAbility, user: Principal, scopes: readonly string[] | undefined): AppAbility {
    const registry = this.scopes;
    if (!scopes || scopes.length === 0 || !registry?.any) return ability;
    let byScopes = this.scoped.get(ability);
    if (!byScopes) this.scoped.set(ability, (byScopes = new Map()));
    const attributes = registry.namesAttributes(scopes) ? attributesOf(user, 'the scopes of this token') : '';
    const key = `${registry.version} ${scopes.join(' ')} ${attributes}`;
    let scoped = byScopes.get(key);
    if (!scoped) {
      const granted = createMongoAbility<AppAbility>(registry.rulesFor(scopes, user), { conditionsMatcher });
      scoped = new ScopedAbility(ability, granted) as unknown as AppAbility;
      byScopes.set(key, scoped);
    }
    return scoped;
  }

  /** The user's ability, everywhere (global roles), or in an organization. */
  abilityFor(user: Principal, place?: OrgPlace): AppAbility {
    if (place) return this.abilityIn(user, place);
    const roles = this.roles.version;
    const policies = this.policies.version;
    const known = this.byUser.get(user);
    if (known && known.roles === roles && known.policies === policies) return known.ability;
    const attributes = this.roles.namesAttributes(user.roles) ? attributesOf(user, 'the user’s roles') : '';
    // Everything an ability depends on: the definitions, and who the user is and holds.
    const key = JSON.stringify([
      roles,
      policies,
      user.id,
      user.is_admin,
      user.email,
      [...user.roles].sort(),
      attributes,
    ]);
    const cache = (this.held ??= new LRUCache<string, AppAbility>({ max: 10_000 }));
    let ability = cache.get(key);
    if (!ability) {
      ability = new IndexedAbility([
        ...this.roles.rulesFor(user),
        ...policyRules(this.policies, user),
      ]) as unknown as AppAbility;
      cache.set(key, ability);
    }
    this.byUser.set(user, { roles, policies, ability });
    return ability;
  }

  /** The ability in an organization: global rules, the membership's organization rules, the policies. */
  private abilityIn(user: Principal, { org, roles }: OrgPlace): AppAbility {
    const orgRoles = this.orgRoles;
    if (!orgRoles || roles.length === 0) return this.abilityFor(user);
    const versions = [this.roles.version, orgRoles.version, this.policies.version];
    const last = this.lastInOrg.find(user, org, roles, versions);
    if (last) return last;
    // By name, as global roles are (a user's roles come sorted): the rules, and so the decisions
    // and the cache key, do not depend on the order the membership lists them in.
    const held = [...new Set(roles)].sort();
    const named = this.roles.namesAttributes(user.roles) || orgRoles.namesAttributes(held);
    const attributes = named ? attributesOf(user, 'the user’s roles in this organization') : '';
    const key = JSON.stringify([
      ...versions,
      user.id,
      user.is_admin,
      user.email,
      [...user.roles].sort(),
      org.id,
      org.slug,
      held,
      attributes,
    ]);
    const cache = (this.held ??= new LRUCache<string, AppAbility>({ max: 10_000 }));
    let ability = cache.get(key);
    if (!ability) {
      const orgRules = orgRoles.rulesIn(user, org, held);
      const rules = [...rulesInOrgOrder(this.roles.rulesFor(user), orgRules), ...policyRules(this.policies, user)];
      // Organization roles reach no subject type without the tenant field (tenant.ts).
      ability = new IndexedAbility(rules, { rules: new Set(orgRules), types: UNTENANTED }) as unknown as AppAbility;
      cache.set(key, ability);
    }
    this.lastInOrg.remember(user, org, roles, versions, ability);
    return ability;
  }

  /**
   * Whether the user's roles (in the organization, with its membership's roles), or the token's
   * scopes, name a user attribute: then the user's values must be loaded before asking.
   */
  needsAttributes(user: Principal, place?: OrgPlace, scopes?: readonly string[]): boolean {
    if (this.roles.namesAttributes(user.roles)) return true;
    if (place && this.orgRoles?.namesAttributes(place.roles)) return true;
    return (
      scopes !== undefined && scopes.length > 0 && this.scopes?.any === true && this.scopes.namesAttributes(scopes)
    );
  }

  /** Every role as defined: global roles, then organization roles. */
  definitions(): RoleDefinition[] {
    return [...this.roles.definitions(), ...(this.orgRoles?.definitions() ?? [])];
  }

  /** The actions and subject types some rule or policy names, as the definitions stand now. */
  knownNames(): KnownNames {
    const versions = `${this.roles.version}/${this.orgRoles?.version}/${this.policies.version}`;
    if (this.known?.versions !== versions)
      this.known = { versions, names: knownNames(this.definitions(), this.policies.names(), POLICY_ACTION) };
    return this.known.names;
  }

  /** A TypeError, `call` naming where, for an action or subject type that no rule or policy names (typos-are-errors, known-names.ts). */
  assertKnownNames(call: string, action: string, subjectType: string): void {
    const problem = unknownNameProblem(this.knownNames(), action, subjectType);
    if (problem) throw new TypeError(`${call}: ${problem}`);
  }

  /** The role, position and file a rule of an ability came from (a global role's or an organization role's). */
  sourceOf(rule: object): RuleSource | undefined {
    return this.roles.sourceOf(rule) ?? this.orgRoles?.sourceOf(rule);
  }

  /** The scope and position a rule of a scoped token's ability came from (`role` names the scope). */
  scopeOf(rule: object): RuleSource | undefined {
    return this.scopes?.sourceOf(rule);
  }

  /** How a rule of an ability reads in a message: its role, position and file, or its policy. */
  describe(rule: object): string {
    const scope = this.scopeOf(rule);
    if (scope) return `scope "${scope.role}", rule ${scope.index}${scope.source ? ` (${scope.source})` : ''}`;
    const source = this.sourceOf(rule);
    if (source)
      return `${source.org ? 'org role' : 'role'} "${source.role}", rule ${source.index}${source.source ? ` (${source.source})` : ''}`;
    const { subject } = rule as { subject?: unknown };
    return this.policies.has(String(subject)) ? `policy "${String(subject)}"` : 'a rule';
  }

  /**
   * The rules a front end can use, deciding as the ability does: the roles' (policies are code and
   * stay on the server); in an organization, as `abilityIn` has them (servedInOrgOrder); for a token
   * with scopes (once defined), intersected with its scopes' (rule-intersection.ts).
   */
  serializableRules(user: Principal, place?: OrgPlace, scopes?: readonly string[]): AppRule[] {
    const held = place && this.orgRoles && place.roles.length > 0 ? [...new Set(place.roles)].sort() : [];
    if (this.roles.namesAttributes(user.roles) || (held.length > 0 && this.orgRoles!.namesAttributes(held)))
      attributesOf(user, 'the user’s roles');
    const global = this.roles.rulesFor(user);
    const rules = held.length > 0 ? servedInOrgOrder(global, this.orgRoles!.rulesIn(user, place!.org, held)) : global;
    if (!scopes || scopes.length === 0 || !this.scopes?.any) return rules;
    return intersectRules(rules, this.scopes.rulesFor(scopes, user));
  }
}
