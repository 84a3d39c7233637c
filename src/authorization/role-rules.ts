/**
 * What each role permits, as CASL raw rules (`{ action, subject, conditions?, fields?, inverted?,
 * reason? }`), defined in code (`auth.defineRole`, `auth.defineOrgRole`) or loaded from JSON files
 * (rule-files.ts). Global roles and organization roles are two registries of this one kind; an
 * organization role's rules may use `${org.*}` and are bound to the organization (tenant.ts).
 *
 * A role may include others: their rules come first, so that the including role's own rules, which
 * CASL weighs above earlier ones, can take away (an inverted rule) what an included role grants.
 * Includes are transitive; a definition that would close a cycle is refused; an included role that
 * is never defined grants nothing. Organization roles are a subclass (org-role-rules.ts).
 *
 * Each role is compiled once, when defined (role-compilation.ts): a global role without
 * placeholders hands out the same rule objects to everyone. Every rule handed out can be traced to
 * the role that defined it, its position there and the file it came from (`sourceOf`), for error
 * messages and explanations.
 */
import type { AppRule } from './ability-types.js';
import { compileRole, deepFreeze, type CompiledRole } from './role-compilation.js';
import { attributesNamed, type PlaceholderValues } from './placeholders.js';
import type { Principal } from './principal.js';
import { checkIncludes, checkRules } from './rule-schema.js';
import type { Tenant } from './tenant.js';
import { AttributeNames } from './attribute-names.js';

export type RoleRule = AppRule;

export interface RoleOptions {
  /** Roles whose rules this one has too (before its own). */
  includes?: readonly string[];
  /** The file the role was loaded from, for messages. */
  source?: string;
}

/** Where a rule came from. */
export interface RuleSource {
  role: string;
  /** 1-based, in the role's own list. */
  index: number;
  source?: string;
  /** Set for a rule of an organization role. */
  org?: true;
}

interface Role {
  includes: readonly string[];
  rulesFor: CompiledRole;
  /** As defined, for copying into another registry (policy diff's `--app`). */
  definition: { rules: RoleRule[]; options: RoleOptions };
  /** The rules as defined (placeholders not filled, not bound to an organization), for analysis. */
  rules: readonly RoleRule[];
  /** The user attributes its own rules name (`${user.team}`). */
  attributes: readonly string[];
  source?: string;
}

/** A role as it was defined, for analysis (coverage, lint, the names rules use). */
export interface RoleDefinition {
  role: string;
  /** True for an organization role. */
  org: boolean;
  includes: readonly string[];
  /** Its own rules, as defined: placeholders not filled, no tenant condition. */
  rules: readonly RoleRule[];
  /** The file it was loaded from. */
  source?: string;
}

export class RoleRules {
  private readonly roles = new Map<string, Role>();
  private readonly sources = new WeakMap<object, RuleSource>();
  /** Bumped on every change, so cached abilities know they are stale. */
  version = 0;

  /** Whether any role, as ever defined here, named a user attribute. */
  private someRoleNamesAttributes = false;

  /**
   * `tenant`: organization roles, whose rules are bound to the organization they are handed out
   * for; `attributes`: the user attribute names declared, which rules may name (shared with the
   * other registries of the application).
   */
  constructor(
    protected readonly tenant?: Tenant,
    readonly attributes: AttributeNames = new AttributeNames(),
  ) {}

  /** Defines (or replaces) a role; throws a TypeError naming what is wrong with it. */
  define(name: string, rules: readonly RoleRule[], options: RoleOptions = {}): void {
    const org = this.tenant !== undefined;
    if (typeof name !== 'string' || name === '')
      throw new TypeError(`${org ? 'defineOrgRole' : 'defineRole'}(name, rules): name must be a non-empty string`);
    const role = `${org ? 'org role' : 'role'} "${name}"`;
    checkRules(role, rules, { org, attributes: this.attributes.names });
    const includes = checkIncludes(role, options.includes);
    const cycle = this.cycleThrough(name, includes);
    if (cycle) throw new TypeError(`${role} would include itself: ${cycle.join(' -> ')}`);
    const copy = structuredClone(rules) as RoleRule[];
    const own = deepFreeze(structuredClone(rules) as RoleRule[]);
    const attributes = attributesNamed(rules);
    if (attributes.length > 0) this.someRoleNamesAttributes = true;
    this.roles.set(name, {
      includes,
      rulesFor: this.compile(name, copy, options.source),
      definition: { rules: copy, options: { ...options, includes } },
      rules: own,
      attributes,
      ...(options.source !== undefined && { source: options.source }),
    });
    this.version++;
  }

  has(name: string): boolean {
    return this.roles.has(name);
  }

  /** The defined roles' names, in the order they were first defined. */
  names(): string[] {
    return [...this.roles.keys()];
  }

  /** Defines every role of `other` here too, as it was defined there (with the attribute names it knows). */
  copyFrom(other: RoleRules): void {
    this.attributes.declare([...other.attributes.names]);
    for (const [name, { definition }] of other.roles) this.define(name, definition.rules, definition.options);
  }

  /** Every role as defined, in the order they were first defined. */
  definitions(): RoleDefinition[] {
    return [...this.roles].map(([role, { includes, rules, source }]) => ({
      role,
      org: this.tenant !== undefined,
      includes,
      rules,
      ...(source !== undefined && { source }),
    }));
  }

  /** The rules the user's roles grant, included roles' first, interpolated for the user. */
  rulesFor(user: Principal): RoleRule[] {
    return this.collectAll(user.roles, { user });
  }

  /** Whether the rules of these roles (their included roles' too) name a user attribute: then they need the user's values. */
  namesAttributes(names: Iterable<string>, seen?: Set<string>): boolean {
    if (!this.someRoleNamesAttributes) return false; // most applications: asked on every guarded request, no set made
    seen ??= new Set<string>();
    for (const name of names) {
      const role = this.roles.get(name);
      if (!role || seen.has(name)) continue;
      seen.add(name);
      if (role.attributes.length > 0 || this.namesAttributes(role.includes, seen)) return true;
    }
    return false;
  }

  /** The role, position and file a rule handed out by `rulesFor` came from. */
  sourceOf(rule: object): RuleSource | undefined {
    return this.sources.get(rule);
  }

  protected collectAll(names: Iterable<string>, values: PlaceholderValues): RoleRule[] {
    const rules: RoleRule[] = [];
    for (const role of names) this.collect(role, values, rules, new Set());
    return rules;
  }

  private collect(name: string, values: PlaceholderValues, into: RoleRule[], seen: Set<string>): void {
    const role = this.roles.get(name);
    if (!role || seen.has(name)) return;
    seen.add(name);
    for (const included of role.includes) this.collect(included, values, into, seen);
    into.push(...role.rulesFor(values));
  }

  /** The path from `name` back to itself through the includes, if defining it so would close one. */
  private cycleThrough(name: string, includes: readonly string[], path: string[] = [name]): string[] | undefined {
    for (const included of includes) {
      if (included === name) return [...path, included];
      if (path.includes(included)) continue;
      const found = this.cycleThrough(name, this.roles.get(included)?.includes ?? [], [...path, included]);
      if (found) return found;
    }
    return undefined;
  }

  /** The role's rules compiled (role-compilation.ts), each rule handed out traced to its position. */
  private compile(role: string, rules: RoleRule[], source: string | undefined): CompiledRole {
    const from = (index: number): RuleSource => ({
      role,
      index: index + 1,
      ...(source !== undefined && { source }),
      ...(this.tenant && { org: true as const }),
    });
    return compileRole(rules, this.tenant, (rule, index) => {
      this.sources.set(rule, from(index));
      return rule;
    });
  }
}
