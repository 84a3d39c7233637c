/**
 * The authorization half of ServiceAuth's public API: defining roles and policies, the guards, and
 * asking what a user may do in service code (an ability, a policy, the rows, the fields).
 * ServiceAuth extends it; the parts it hands over to are built by wiring.ts.
 */
import { fileURLToPath } from 'node:url';
import { subject as asSubject } from '@casl/ability';
import { permittedFieldsOf } from '@casl/ability/extra';
import type { FilterQuery } from '@mikro-orm/core';
import type { RequestHandler } from 'express';
import { POLICY_ACTION, type AppAbility } from './authorization/abilities.js';
import { explain, type Explanation } from './authorization/explain.js';
import { accessFilter, type AccessibleByOptions } from './authorization/filters.js';
import type { RequireOptions } from './authorization/guards.js';
import type { Policy } from './authorization/policies.js';
import { runPolicyTests, type PolicyTestReport } from './authorization/policy-tests.js';
import { toPrincipal, type PrincipalLike } from './authorization/principal.js';
import { loadRuleFiles } from './authorization/rule-files.js';
import type { RoleOptions, RoleRule } from './authorization/role-rules.js';
import type { AuthParts } from './wiring.js';

/** Where a ServiceAuth keeps its parts: a registered symbol, so that another copy of the package finds them. */
export const PARTS = Symbol.for('service-auth.parts');

export abstract class AuthorizationApi {
  protected readonly [PARTS]: AuthParts;

  constructor(parts: AuthParts) {
    this[PARTS] = parts;
  }

  /**
   * Defines (or replaces) a named policy: a synchronous `(user, context) => boolean`, where the
   * context is the route's URL parameters (canonical integers as numbers). Only `true` allows.
   */
  definePolicy(name: string, policy: Policy): void {
    this[PARTS].policies.define(name, policy);
  }

  /** The specification's spelling of `definePolicy`. */
  readonly define_policy = (name: string, policy: Policy): void => this.definePolicy(name, policy);

  /**
   * Defines (or replaces) what a role permits, as CASL raw rules with `${user.*}` placeholders;
   * `{ includes: ['viewer'] }` gives it another role's rules first. A cycle throws a TypeError.
   */
  defineRole(name: string, rules: readonly RoleRule[], options: Pick<RoleOptions, 'includes'> = {}): void {
    this[PARTS].roleRules.define(name, rules, options.includes ? { includes: options.includes } : {});
  }

  /** Loads role rules from a JSON file (role name to rule list) or every .json file of a directory. */
  loadPolicies(path: string | URL): string[] {
    return loadRuleFiles(this[PARTS].roleRules, path instanceof URL ? fileURLToPath(path) : path);
  }

  /** Guard: a session or a token. */
  get loginRequired(): RequestHandler {
    return this[PARTS].guards.loginRequired;
  }

  /** Guard: a valid API token (`Authorization: Bearer`); a session cookie alone does not pass. */
  get tokenRequired(): RequestHandler {
    return this[PARTS].guards.tokenRequired;
  }

  /** The specification's spelling of `tokenRequired`. */
  get token_required(): RequestHandler {
    return this.tokenRequired;
  }

  /** Guard: the token carries every scope (no scopes means all; sessions are not limited by scopes). */
  requireScopes(...scopes: string[]): RequestHandler {
    return this[PARTS].guards.requireScopes(...scopes);
  }

  /** Guard: the user holds every one of the roles. */
  rolesRequired(...roles: string[]): RequestHandler {
    return this[PARTS].guards.rolesRequired(...roles);
  }

  /** The specification's spelling of `rolesRequired`. */
  readonly roles_required = (...roles: string[]): RequestHandler => this.rolesRequired(...roles);

  /** Guard: the user holds at least one of the roles. */
  rolesAccepted(...roles: string[]): RequestHandler {
    return this[PARTS].guards.rolesAccepted(...roles);
  }

  /**
   * Guard: `{ policy }` returns true; or the ability allows `{ action, subject }` on the URL context,
   * or on what `load(req)` finds (then `req.resource`; null is a 404); `fields: 'body'` also checks
   * every field the body sets.
   */
  require(options: RequireOptions): RequestHandler {
    return this[PARTS].guards.require(options);
  }

  /** The CASL ability of any user (`req.user`, or `{ id, email, is_admin, roles }`). */
  abilityFor(user: PrincipalLike): AppAbility {
    return this[PARTS].abilities.abilityFor(toPrincipal(user));
  }

  /** Whether the named policy allows the user in this context; fails closed like the guard. */
  can(user: PrincipalLike, policy: string, context: Record<string, unknown> = {}): boolean {
    const { policies, abilities } = this[PARTS];
    const principal = toPrincipal(user);
    if (!policies.has(policy)) return policies.check(policy, principal, context);
    return abilities.abilityFor(principal).can(POLICY_ACTION, asSubject(policy, { ...context }));
  }

  /**
   * The rows of `subjectType` the user may `action`, as a MikroORM filter to combine with your own
   * conditions: `em.find(Report, { $and: [auth.accessibleBy(user, 'read', 'Report'), { year: 2026 }] })`.
   * No rule grants it: a filter that matches nothing however it is combined (spread, `$and`,
   * `$or`), a condition on the primary key (`options.primaryKey`, default `id`) that no row
   * satisfies. Rules that follow relations (`project.members.user_id`, `$elemMatch`) need
   * `options.em`, whose metadata says what is a relation. A condition with no SQL form throws a TypeError.
   */
  accessibleBy<T extends object = object>(user: PrincipalLike, action: string, subjectType: string, options: AccessibleByOptions = {}): FilterQuery<T> {
    const { abilities } = this[PARTS];
    return accessFilter(this.abilityFor(user), action, subjectType, (rule) => abilities.describe(rule), options) as FilterQuery<T>;
  }

  /**
   * The fields the rules let the user `action` on the subject (a type name, or an object tagged
   * with CASL's `subject()`), sorted. A rule without `fields` grants `allFields`: by default the
   * object's own keys (none for a bare type name).
   */
  permittedFields(user: PrincipalLike, action: string, subject: string | object, allFields?: readonly string[]): string[] {
    const every = allFields ?? (typeof subject === 'object' ? Object.keys(subject) : []);
    const fields = permittedFieldsOf(this.abilityFor(user), action, subject, { fieldsFrom: (rule) => rule.fields ?? [...every] });
    return [...new Set(fields)].sort();
  }

  /** A copy of `object` with only the keys the user may `action` on it, as a `subjectType` (for responses). */
  pickPermitted<T extends object>(user: PrincipalLike, action: string, subjectType: string, object: T): Partial<T> {
    const fields = new Set(this.permittedFields(user, action, asSubject(subjectType, { ...object }), Object.keys(object)));
    return Object.fromEntries(Object.entries(object).filter(([key]) => fields.has(key))) as Partial<T>;
  }

  /**
   * Why the user may or may not `action` a `subjectType` with these fields (and, if given, this
   * field): `{ allowed, rule }` with the rule that decided, its role and the file it came from
   * (null when no rule applies), or `{ allowed, rule: null, policy }` for a named policy.
   */
  explain(user: PrincipalLike, action: string, subjectType: string, context: Record<string, unknown> = {}, field?: string): Explanation {
    const { abilities, roleRules, policies } = this[PARTS];
    return explain({ abilities, roles: roleRules, policies }, toPrincipal(user), action, subjectType, context, field);
  }

  /**
   * Runs policy tests (a JSON file's path, or the same as an object) against this application's
   * roles and policies; a malformed file throws a PolicyTestFileError naming file and JSON path.
   */
  testPolicies(fileOrObject: string | object): PolicyTestReport {
    const { abilities, roleRules, policies } = this[PARTS];
    return runPolicyTests({ abilities, roles: roleRules, policies }, fileOrObject);
  }
}
