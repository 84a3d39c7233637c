/**
 * What an application defines: named policies, roles, organization roles and scopes, in code or
 * from policy files. One of the parts ServiceAuth is made of (service-auth.ts).
 */
import { fileURLToPath } from 'node:url';
import type { RawRuleOf } from '@casl/ability';
import type { AppAbility } from './authorization/ability-types.js';
import type { Policy } from './authorization/policies.js';
import { loadRuleFiles } from './authorization/rule-files.js';
import type { RoleOptions, RoleRule } from './authorization/role-rules.js';
import type { ScopeInfo } from './authorization/scope-rules.js';
import type { AuthParts } from './wiring.js';

/**
 * A rule as `defineRole`, `defineOrgRole` and `defineScope` take it: CASL's raw rule, its actions
 * and subject types those the application registered (`AbilityTypes`, with `manage` and `all`),
 * so that `{ action: 'raed' }` does not compile; any string when it registered none.
 */
export type DefinedRule = RawRuleOf<AppAbility>;

/** What defining needs: the registries the definitions go to. */
type DefinitionParts = Pick<AuthParts, 'policies' | 'roleRules' | 'orgRoles' | 'scopes'>;

export class PolicyDefinitions {
  readonly #parts: DefinitionParts;

  constructor(parts: DefinitionParts) {
    this.#parts = parts;
  }

  /**
   * Defines (or replaces) a named policy: a synchronous `(user, context) => boolean`, where the
   * context is the route's URL parameters (canonical integers as numbers). Only `true` allows.
   */
  definePolicy(name: string, policy: Policy): void {
    this.#parts.policies.define(name, policy);
  }

  /** The specification's spelling of `definePolicy`. */
  readonly define_policy = (name: string, policy: Policy): void => this.definePolicy(name, policy);

  /**
   * Defines (or replaces) what a role permits, as CASL raw rules with `${user.*}` placeholders;
   * `{ includes: ['viewer'] }` gives it another role's rules first. A cycle throws a TypeError.
   */
  defineRole(name: string, rules: readonly DefinedRule[], options: Pick<RoleOptions, 'includes'> = {}): void {
    this.#parts.roleRules.define(name, rules, options.includes ? { includes: options.includes } : {});
  }

  /**
   * Defines (or replaces) an organization role, held by members of an organization: rules as for
   * `defineRole` (`${org.id}` and `${org.slug}` too), or `{ includes, rules }`. The package binds
   * every rule to the organization (SERVICE_AUTH_TENANT_FIELD): it reaches nothing outside it.
   */
  defineOrgRole(
    name: string,
    definition: readonly DefinedRule[] | { includes?: readonly string[]; rules: readonly DefinedRule[] },
    options: Pick<RoleOptions, 'includes'> = {},
  ): void {
    const { rules, includes } =
      definition && !Array.isArray(definition) && typeof definition === 'object'
        ? (definition as { includes?: readonly string[]; rules: readonly RoleRule[] })
        : { rules: definition as readonly RoleRule[], includes: options.includes };
    this.#parts.orgRoles.define(name, rules, includes ? { includes } : {});
  }

  /**
   * Defines (or replaces) a scope: what a token made with it may do at most, as granting CASL
   * rules (the role rules' schema), described for the tokens page. A scoped token's ability is its
   * owner's intersected with its scopes' rules; once any scope is defined, an undefined one grants
   * nothing and cannot be given to a new token (422 `unknown_scope`). See docs/tokens.md.
   */
  defineScope(name: string, rules: readonly DefinedRule[], description: string): void {
    this.#parts.scopes.define(name, rules, description);
  }

  /** The defined scopes, sorted by name, with their descriptions. */
  get scopes(): ScopeInfo[] {
    return this.#parts.scopes.list();
  }

  /**
   * Loads role rules from a JSON file (role name to rule list, or `{ roles, orgRoles, scopes }`)
   * or every .json file of a directory; returns the global role names it defined.
   */
  loadPolicies(path: string | URL): string[] {
    const { roleRules, orgRoles, scopes } = this.#parts;
    return loadRuleFiles(roleRules, path instanceof URL ? fileURLToPath(path) : path, orgRoles, scopes);
  }
}
