/**
 * Scopes (`auth.defineScope`): what a token made with them may do at most, as CASL rules in the
 * role rules' schema (`${user.*}` placeholders included). A scoped token's ability is its owner's
 * intersected with the union of its scopes' rules (scoped-ability.ts).
 *
 * A scope only grants: an inverted rule is refused, because the union of the scopes' rules must
 * not depend on the order a token lists them in (a refusal in one scope would take away what
 * another grants). Take away in roles, or leave the grant out of the scope.
 *
 * Before any scope is defined, scopes are labels (`requireScopes`), as they were: a token's
 * ability is its owner's. Once one is, every scope a token names must be defined to grant
 * anything; a token that names only undefined ones (made before) can do nothing.
 */
import type { AttributeNames } from './attribute-names.js';
import type { Principal } from './principal.js';
import { RoleRules, type RoleRule, type RuleSource } from './role-rules.js';
import { checkRules } from './rule-schema.js';
import { SCOPE_NAME } from './scope-name.js';

/**
 * `{ scopes }`: ask as a token with these scopes would (service code without a request): the
 * user's ability intersected with the scopes' rules. A request decides with its own token's.
 */
export interface WithScopes {
  scopes?: readonly string[];
}

export interface ScopeInfo {
  name: string;
  description: string;
}

/** Compiled and traced as roles are: a scope is a role no user holds, handed out by name. */
class ScopeRoleRules extends RoleRules {
  rulesOf(names: readonly string[], user: Principal): RoleRule[] {
    return this.collectAll(names, { user });
  }
}

export class ScopeRules {
  private readonly rules: ScopeRoleRules;
  private readonly descriptions = new Map<string, string>();

  /** `attributes`: the user attribute names declared, which scopes' rules may name too. */
  constructor(attributes?: AttributeNames) {
    this.rules = new ScopeRoleRules(undefined, attributes);
  }

  /** The user attribute names the rules may name. */
  get attributes(): AttributeNames {
    return this.rules.attributes;
  }

  /** Whether the rules of these scopes name a user attribute. */
  namesAttributes(scopes: readonly string[]): boolean {
    return this.rules.namesAttributes(scopes);
  }
  /** Bumped on every change, so cached abilities know they are stale. */
  get version(): number {
    return this.rules.version;
  }

  /** Defines (or replaces) a scope; throws a TypeError naming what is wrong with it. */
  define(name: string, rules: readonly RoleRule[], description: string, source?: string): void {
    if (typeof name !== 'string' || !SCOPE_NAME.test(name))
      throw new TypeError(
        `defineScope(name, rules, description): the name must match [a-z0-9:._-]{1,64}, as a ` +
          `token's scopes do (got ${JSON.stringify(name)})`,
      );
    const scope = `scope "${name}"`;
    if (typeof description !== 'string' || description.trim() === '')
      throw new TypeError(`${scope}: the description must be a non-empty string (the tokens page shows it)`);
    checkRules(scope, rules, { attributes: this.rules.attributes.names });
    const inverted = rules.findIndex((rule) => rule.inverted === true);
    if (inverted >= 0)
      throw new TypeError(
        `${scope}, rule ${inverted + 1}: "inverted": a scope only grants (take away in a role, or ` +
          `leave the grant out)`,
      );
    this.rules.define(name, rules, source === undefined ? {} : { source });
    this.descriptions.set(name, description.trim());
  }

  has(name: string): boolean {
    return this.descriptions.has(name);
  }

  /** Whether any scope is defined: from then on, scopes bind (and undefined ones are refused). */
  get any(): boolean {
    return this.descriptions.size > 0;
  }

  /** The defined scopes, sorted by name, with their descriptions. */
  list(): ScopeInfo[] {
    return [...this.descriptions]
      .map(([name, description]) => ({ name, description }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** The union of the scopes' rules, interpolated for the token's owner; an undefined scope grants nothing. */
  rulesFor(scopes: readonly string[], user: Principal): RoleRule[] {
    return this.rules.rulesOf(scopes, user);
  }

  /** The scope and position a rule handed out by `rulesFor` came from (`role` is the scope's name). */
  sourceOf(rule: object): RuleSource | undefined {
    return this.rules.sourceOf(rule);
  }
}
