/**
 * What each role permits, as CASL raw rules (`{ action, subject, conditions?, fields?, inverted?,
 * reason? }`), defined in code (`auth.defineRole`) or loaded from JSON files (rule-files.ts).
 *
 * A role may include others: their rules come first, so that the including role's own rules, which
 * CASL weighs above earlier ones, can take away (an inverted rule) what an included role grants.
 * Includes are transitive; a definition that would close a cycle is refused; an included role that
 * is never defined grants nothing.
 *
 * Each role is compiled once, when defined: a role without placeholders hands out the same rule
 * objects to everyone. Every rule handed out can be traced to the role that defined it, its
 * position there and the file it came from (`sourceOf`), for error messages and explanations.
 */
import type { AppRule } from './abilities.js';
import { hasPlaceholders, interpolate } from './placeholders.js';
import type { Principal } from './principal.js';
import { checkIncludes, checkRules } from './rule-schema.js';

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
}

interface Role {
  includes: readonly string[];
  rulesFor: (user: Principal) => RoleRule[];
}

export class RoleRules {
  private readonly roles = new Map<string, Role>();
  private readonly sources = new WeakMap<object, RuleSource>();
  /** Bumped on every change, so cached abilities know they are stale. */
  version = 0;

  /** Defines (or replaces) a role; throws a TypeError naming what is wrong with it. */
  define(name: string, rules: readonly RoleRule[], options: RoleOptions = {}): void {
    if (typeof name !== 'string' || name === '') throw new TypeError('defineRole(name, rules): name must be a non-empty string');
    checkRules(name, rules);
    const includes = checkIncludes(name, options.includes);
    const cycle = this.cycleThrough(name, includes);
    if (cycle) throw new TypeError(`role "${name}" would include itself: ${cycle.join(' -> ')}`);
    this.roles.set(name, { includes, rulesFor: this.compile(name, structuredClone(rules) as RoleRule[], options.source) });
    this.version++;
  }

  /** The rules the user's roles grant, included roles' first, interpolated for the user. */
  rulesFor(user: Principal): RoleRule[] {
    const rules: RoleRule[] = [];
    for (const role of user.roles) this.collect(role, user, rules, new Set());
    return rules;
  }

  /** The role, position and file a rule handed out by `rulesFor` came from. */
  sourceOf(rule: object): RuleSource | undefined {
    return this.sources.get(rule);
  }

  private collect(name: string, user: Principal, into: RoleRule[], seen: Set<string>): void {
    const role = this.roles.get(name);
    if (!role || seen.has(name)) return;
    seen.add(name);
    for (const included of role.includes) this.collect(included, user, into, seen);
    into.push(...role.rulesFor(user));
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

  private compile(role: string, rules: RoleRule[], source: string | undefined): (user: Principal) => RoleRule[] {
    const note = (rule: RoleRule, index: number): RoleRule => {
      this.sources.set(rule, source === undefined ? { role, index: index + 1 } : { role, index: index + 1, source });
      return rule;
    };
    if (!hasPlaceholders(rules)) {
      const fixed = deepFreeze(rules).map(note);
      return () => fixed;
    }
    return (user) => rules.map((rule, index) => note(interpolate(rule, user) as RoleRule, index));
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
