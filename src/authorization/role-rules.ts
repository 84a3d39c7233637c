/**
 * What each role permits, as CASL raw rules (`{ action, subject, conditions?, fields?, inverted?,
 * reason? }`), defined in code (`auth.defineRole`) or loaded from JSON files (`auth.loadPolicies`).
 *
 * Rules may name the user with `${user.id}`, `${user.email}` and `${user.is_admin}`. A value that is
 * exactly one placeholder keeps the field's type (`{ authorId: '${user.id}' }` compares with the
 * number 7, not "7"); placeholders inside longer strings are replaced as text. Each role is
 * compiled once, when defined: a role without placeholders hands out the same rules to everyone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { AppRule } from './abilities.js';
import type { Principal } from './principal.js';

export type RoleRule = AppRule;

const PLACEHOLDER = /\$\{user\.([A-Za-z_]+)\}/g;
const WHOLE_PLACEHOLDER = /^\$\{user\.([A-Za-z_]+)\}$/;
const USER_FIELDS = {
  id: (user: Principal) => user.id,
  email: (user: Principal) => user.email,
  is_admin: (user: Principal) => user.is_admin,
} as const;
type UserField = keyof typeof USER_FIELDS;

type Compiled = (user: Principal) => RoleRule[];

export class RoleRules {
  private readonly roles = new Map<string, Compiled>();
  /** Bumped on every change, so cached abilities know they are stale. */
  version = 0;

  /** Defines (or replaces) a role's rules; throws a TypeError naming what is wrong with them. */
  define(name: string, rules: readonly RoleRule[]): void {
    if (typeof name !== 'string' || name === '') throw new TypeError('defineRole(name, rules): name must be a non-empty string');
    if (!Array.isArray(rules)) throw new TypeError(`defineRole('${name}', rules): rules must be an array of CASL rules`);
    rules.forEach((rule, index) => validateRule(rule, `role "${name}", rule ${index + 1}`));
    this.roles.set(name, compile(structuredClone(rules) as RoleRule[]));
    this.version++;
  }

  /**
   * Loads a JSON file mapping role names to rule lists, or every `.json` file of a directory (in
   * name order). Returns the role names defined. Errors name the file.
   */
  load(path: string): string[] {
    const files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((file) => extname(file) === '.json')
          .sort()
          .map((file) => join(path, file))
      : [path];
    const defined: string[] = [];
    for (const file of files) {
      let document: unknown;
      try {
        document = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new TypeError(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
      }
      if (document === null || typeof document !== 'object' || Array.isArray(document)) {
        throw new TypeError(`${file}: expected an object mapping role names to lists of rules`);
      }
      for (const [role, rules] of Object.entries(document)) {
        try {
          this.define(role, rules as RoleRule[]);
        } catch (error) {
          throw new TypeError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
        }
        defined.push(role);
      }
    }
    return defined;
  }

  /** The rules the user's roles grant, interpolated for the user. Roles without rules grant nothing. */
  rulesFor(user: Principal): RoleRule[] {
    const rules: RoleRule[] = [];
    for (const role of user.roles) {
      const compiled = this.roles.get(role);
      if (compiled) rules.push(...compiled(user));
    }
    return rules;
  }
}

function compile(rules: RoleRule[]): Compiled {
  if (!JSON.stringify(rules).includes('${user.')) {
    const fixed = deepFreeze(rules);
    return () => fixed;
  }
  return (user) => interpolate(rules, user) as RoleRule[];
}

function interpolate(value: unknown, user: Principal): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) return USER_FIELDS[whole[1] as UserField](user);
    return value.replace(PLACEHOLDER, (_match, field: string) => String(USER_FIELDS[field as UserField](user)));
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, user));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, user)]));
  }
  return value;
}

function validateRule(rule: unknown, where: string): void {
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) throw new TypeError(`${where}: a rule must be an object`);
  const { action, subject, conditions, fields, inverted, reason, ...rest } = rule as Record<string, unknown>;
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length) throw new TypeError(`${where}: unknown key ${unknownKeys.map((k) => JSON.stringify(k)).join(', ')}`);
  if (!isNameOrNames(action)) throw new TypeError(`${where}: "action" must be a string or a list of strings`);
  if (!isNameOrNames(subject)) throw new TypeError(`${where}: "subject" must be a string or a list of strings`);
  if (conditions !== undefined && (conditions === null || typeof conditions !== 'object' || Array.isArray(conditions))) {
    throw new TypeError(`${where}: "conditions" must be an object`);
  }
  if (conditions !== undefined && JSON.stringify(conditions).includes('"$where"')) {
    throw new TypeError(`${where}: "$where" is not allowed in conditions; use definePolicy for code`);
  }
  if (fields !== undefined && !isNameOrNames(fields)) throw new TypeError(`${where}: "fields" must be a string or a list of strings`);
  if (inverted !== undefined && typeof inverted !== 'boolean') throw new TypeError(`${where}: "inverted" must be a boolean`);
  if (reason !== undefined && typeof reason !== 'string') throw new TypeError(`${where}: "reason" must be a string`);
  for (const match of JSON.stringify(rule).matchAll(PLACEHOLDER)) {
    if (!(match[1]! in USER_FIELDS)) {
      throw new TypeError(`${where}: unknown placeholder \${user.${match[1]}}; use \${user.id}, \${user.email} or \${user.is_admin}`);
    }
  }
}

function isNameOrNames(value: unknown): boolean {
  if (typeof value === 'string') return value !== '';
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== '');
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
