/**
 * The authorization half of ServiceAuth's public API: the guards, and asking what a user may do in
 * service code (an ability, a policy, the rows, the fields); who asks is resolved by
 * authorization/asking.ts for every question alike. What an application defines is
 * policy-definitions.ts, the user attributes rules name user-attribute-api.ts. One of the parts
 * ServiceAuth is made of (service-auth.ts); the parts it hands over to are built by wiring.ts.
 */
import { detectSubjectType, subject as asSubject } from '@casl/ability';
import type { FilterQuery } from '@mikro-orm/core';
import type { Request, RequestHandler } from 'express';
import { policyAnalysis, type PolicyAnalysis } from './authorization/analysis/policy-analysis.js';
import type { AppAbility } from './authorization/ability-types.js';
import { POLICY_ACTION } from './authorization/policy-rules.js';
import { lintDefinitions } from './authorization/analysis/lint-roles.js';
import type { Asked, Asker, InOrg } from './authorization/asker.js';
import { askerOf, principalOf } from './authorization/asking.js';
import { explain, type Explanation } from './authorization/explain.js';
import type { AccessibleByOptions } from './authorization/filters.js';
import type { RequireOptions } from './authorization/guards.js';
import { runPolicyTests, type PolicyTestReport } from './authorization/policy-tests.js';
import type { PrincipalLike } from './authorization/principal.js';
import type { WithScopes } from './authorization/scope-rules.js';
import { permittedFieldsIn } from './authorization/scoped-ability.js';
import type { AuthParts } from './wiring.js';

export type { Asker, InOrg } from './authorization/asker.js';

/** What the guards and the questions hand over to. */
type AuthorizationParts = Pick<AuthParts, 'guards' | 'abilities' | 'asking' | 'roleRules' | 'orgRoles' | 'policies'>;

export class AuthorizationApi {
  readonly #parts: AuthorizationParts;

  constructor(parts: AuthorizationParts) {
    this.#parts = parts;
    const { abilities, orgRoles } = parts;
    this.policies = policyAnalysis(
      () => orgRoles.tenant.field,
      (options) => lintDefinitions(abilities.definitions(), orgRoles.tenant.field, options),
    );
  }

  /**
   * Policy analysis (docs/policy-analysis.md): `auth.policies.diff(a, b)`, what a change grants;
   * `auth.policies.lint()`, rules that never decide, duplicates, rules on entities without the tenant field.
   */
  readonly policies: PolicyAnalysis;

  /**
   * Guard: the organization of the URL parameter `param` (id or slug), of which the user is a
   * member; sets `req.org`, `req.membership`, and `req.ability` in it for every later guard.
   * A non-member: 404 `not_found`, as for no such organization (unless a global rule lets them `read` it).
   */
  orgRequired(param = 'org'): RequestHandler {
    return this.#parts.guards.orgRequired(param);
  }

  /** Guard: a session or a token. */
  get loginRequired(): RequestHandler {
    return this.#parts.guards.loginRequired;
  }

  /** Guard: a valid API token (`Authorization: Bearer`); a session cookie alone does not pass. */
  get tokenRequired(): RequestHandler {
    return this.#parts.guards.tokenRequired;
  }

  /** The specification's spelling of `tokenRequired`. */
  get token_required(): RequestHandler {
    return this.tokenRequired;
  }

  /** Guard: the token carries every scope (no scopes means all; sessions are not limited by scopes). */
  requireScopes(...scopes: string[]): RequestHandler {
    return this.#parts.guards.requireScopes(...scopes);
  }

  /** Guard: the user holds every one of the roles. */
  rolesRequired(...roles: string[]): RequestHandler {
    return this.#parts.guards.rolesRequired(...roles);
  }

  /** The specification's spelling of `rolesRequired`. */
  readonly roles_required = (...roles: string[]): RequestHandler => this.rolesRequired(...roles);

  /** Guard: the user holds at least one of the roles. */
  rolesAccepted(...roles: string[]): RequestHandler {
    return this.#parts.guards.rolesAccepted(...roles);
  }

  /**
   * Guard: `{ policy }` returns true; or the ability allows `{ action, subject }` on the URL context,
   * or on what `load(req)` finds (then `req.resource`, read typed with `auth.resource<T>(req)`; null
   * is a 404, and so is a refused resource with `conceal`); `fields: 'body'` also checks every field
   * the body sets. `T` is what `load` finds: inferred from it, or named to check it.
   */
  require<T = unknown>(options: RequireOptions<T>): RequestHandler {
    return this.#parts.guards.require(options);
  }

  /**
   * The resource a `require({ action, subject, load })` guard loaded and allowed for this request,
   * as `T` (unchecked: name the type `load` returns). Throws a TypeError when no such guard ran
   * before, rather than handing the handler `undefined`.
   */
  resource<T = unknown>(req: Request): T {
    if (req.resource === undefined) {
      throw new TypeError(
        'auth.resource(req): no require({ action, subject, load }) guard loaded a resource for this request; put one before this handler',
      );
    }
    return req.resource as T;
  }

  /**
   * The CASL ability of any user (`req.user`, or `{ id, email, is_admin, roles }`), or of a
   * request a guard passed (`req.ability`: in its organization after `orgRequired`). With
   * `{ org }`, a promise of the ability in that organization (global roles and the membership's
   * organization roles); an unknown organization is a 404 AuthError.
   */
  abilityFor(who: Asker, options?: WithScopes): AppAbility;
  abilityFor(who: Asker, options: InOrg & WithScopes): Promise<AppAbility>;
  abilityFor(asked: Asker, options?: Partial<InOrg> & WithScopes): AppAbility | Promise<AppAbility> {
    const resolved = this.#parts.asking.resolve(asked, options);
    return resolved instanceof Promise ? resolved.then(({ ability }) => ability) : resolved.ability;
  }

  /** Whether the named policy allows the user in this context; fails closed like the guard. */
  can(user: PrincipalLike, policy: string, context: Record<string, unknown> = {}): boolean {
    const { policies, asking } = this.#parts;
    const who = askerOf(user);
    if (!policies.has(policy)) return policies.check(policy, principalOf(who), context);
    // A request's `req.user`: as its guard would decide, a scoped token's scopes included.
    return asking.resolve(who).ability.can(POLICY_ACTION, asSubject(policy, { ...context }));
  }

  /**
   * The rows of `subjectType` the user may `action`, as a MikroORM filter to combine with your own
   * conditions: `em.find(Report, { $and: [auth.accessibleBy(user, 'read', 'Report'), { year: 2026 }] })`.
   * No rule grants it: a filter that matches nothing however it is combined (spread, `$and`,
   * `$or`), a condition on the primary key (`options.primaryKey`, default `id`) that no row
   * satisfies. Rules that follow relations (`project.members.user_id`, `$elemMatch`) need
   * `options.em`, whose metadata says what is a relation and each column's type. A condition with no SQL form
   * throws a TypeError, and so does, with `options.em`, a rule value of another type than its column.
   */
  accessibleBy<T extends object = object>(
    who: Asker,
    action: string,
    subjectType: string,
    options?: AccessibleByOptions & WithScopes,
  ): FilterQuery<T>;
  /** In an organization: its rows only (the tenant condition on the whole filter), as a promise. */
  accessibleBy<T extends object = object>(
    who: Asker,
    action: string,
    subjectType: string,
    options: AccessibleByOptions & InOrg & WithScopes,
  ): Promise<FilterQuery<T>>;
  accessibleBy<T extends object = object>(
    asked: Asker,
    action: string,
    subjectType: string,
    options: AccessibleByOptions & Partial<InOrg> & WithScopes = {},
  ): FilterQuery<T> | Promise<FilterQuery<T>> {
    const { abilities, asking } = this.#parts;
    abilities.assertKnownNames('accessibleBy', action, subjectType);
    // A scoped token's filter is the `$and` of its owner's and its scopes' (filters.ts).
    const resolved = asking.resolve(asked, options);
    const rows = (who: Asked): FilterQuery<T> => asking.rowsOf(who, action, subjectType, options) as FilterQuery<T>;
    return resolved instanceof Promise ? resolved.then(rows) : rows(resolved);
  }

  /**
   * The fields the rules let the user `action` on the subject (a type name, or an object tagged
   * with CASL's `subject()`), sorted. A rule without `fields` grants `allFields`: by default the
   * object's own keys (none for a bare type name).
   */
  permittedFields(user: Asker, action: string, subject: string | object, allFields?: readonly string[]): string[] {
    const subjectType = typeof subject === 'string' ? subject : detectSubjectType(subject);
    this.#parts.abilities.assertKnownNames('permittedFields', action, subjectType);
    const every = allFields ?? (typeof subject === 'object' ? Object.keys(subject) : []);
    return [...new Set(permittedFieldsIn(this.#parts.asking.resolve(user).ability, action, subject, every))].sort();
  }

  /** A copy of `object` with only the keys the user may `action` on it, as a `subjectType` (for responses). */
  pickPermitted<T extends object>(user: Asker, action: string, subjectType: string, object: T): Partial<T> {
    const fields = new Set(
      this.permittedFields(user, action, asSubject(subjectType, { ...object }), Object.keys(object)),
    );
    return Object.fromEntries(Object.entries(object).filter(([key]) => fields.has(key))) as Partial<T>;
  }

  /**
   * Why the user may or may not `action` a `subjectType` with these fields (and, if given, this
   * field): `{ allowed, rule }` with the rule that decided, its role and the file it came from
   * (null when no rule applies), or `{ allowed, rule: null, policy }` for a named policy. For a
   * request, as its `req.ability` decides; with `{ org, field? }` in place of the field, in that
   * organization, as a promise.
   */
  explain(
    who: Asker,
    action: string,
    subjectType: string,
    context?: Record<string, unknown>,
    field?: string,
  ): Explanation;
  explain(
    who: Asker,
    action: string,
    subjectType: string,
    context: Record<string, unknown>,
    options: InOrg & { field?: string },
  ): Promise<Explanation>;
  explain(
    asked: Asker,
    action: string,
    subjectType: string,
    context: Record<string, unknown> = {},
    options?: string | (InOrg & { field?: string }),
  ): Explanation | Promise<Explanation> {
    const { abilities, roleRules, policies, asking } = this.#parts;
    abilities.assertKnownNames('explain', action, subjectType);
    const deps = { abilities, roles: roleRules, policies };
    // In an organization, the subject is one of its own unless the context says otherwise (or its type has no tenant field).
    const answer = (who: Asked, field: string | undefined): Explanation => {
      const subject = asking.subjectOf(who, subjectType, context);
      return explain(deps, who.user, action, subjectType, subject, field, who.ability);
    };
    if (typeof options === 'object' && options !== null) {
      return asking.resolve(asked, { org: options.org }).then((who) => answer(who, options.field));
    }
    return answer(asking.resolve(asked), options);
  }

  /**
   * Runs policy tests (a JSON file's path, or the same as an object) against this application's
   * roles and policies; a malformed file throws a PolicyTestFileError naming file and JSON path.
   */
  testPolicies(fileOrObject: string | object): PolicyTestReport {
    const { abilities, roleRules, policies } = this.#parts;
    return runPolicyTests({ abilities, roles: roleRules, policies }, fileOrObject);
  }
}
