/**
 * `auth policy lint` and `auth.policies.lint()`: what in the roles' rules is a mistake, whatever
 * the tests say. For each rule of each role (global and organization):
 *
 * - `unsatisfiable`: its conditions admit no subject (`{ n: { $gt: 5, $lt: 3 } }`, satisfiable.ts);
 * - `overridden`: a later rule of the same role, for the same actions and subject types (or more),
 *   the same fields (or more), and conditions it implies (none, or some of its own), applies
 *   wherever it does: CASL lets the later rule decide, so this one never does;
 * - `duplicate`: the same rule as an earlier one of the role, or of a role it includes;
 * - `placeholder` and `invalid`: what a role's definition refuses, reported by rule (policy-files.ts);
 * - `no_tenant_field`: an organization role's rule on an entity without the tenant field
 *   (SERVICE_AUTH_TENANT_FIELD): the package binds it to the organization by that field, so it
 *   matches nothing (tenant.ts);
 * - `column_type`: with the entities, a literal of another type than its column, or an order
 *   operator on a column that is not a number or a date (rule-values.ts): `accessibleBy` refuses it.
 *
 * A rule found `unsatisfiable` or `overridden` never decides: removing it changes no decision
 * (test/properties proves it on generated rules).
 */
import { isDeepStrictEqual } from 'node:util';
import type { RoleRule } from '../role-rules.js';
import { valueProblems, type EntityShape } from '../rule-values.js';
import { ORGANIZATION } from '../tenant.js';
import { kindsFor, type EntityRelations } from './relations.js';
import { unsatisfiable } from './satisfiable.js';

export type LintKind =
  'unsatisfiable' | 'overridden' | 'duplicate' | 'placeholder' | 'invalid' | 'no_tenant_field' | 'column_type';

export interface LintFinding {
  kind: LintKind;
  /** The file the role came from, for roles loaded from files. */
  file?: string;
  role: string;
  /** True for an organization role. */
  org_role?: true;
  /** The rule's position in the role's own rules, from 1. */
  rule: number;
  message: string;
}

/** A role to lint: its own rules as written, null where a rule is already reported as unreadable. */
export interface LintRole {
  role: string;
  org: boolean;
  includes: readonly string[];
  rules: readonly (RoleRule | null)[];
  source?: string;
}

export interface LintOptions {
  /** SERVICE_AUTH_TENANT_FIELD (default `org_id`). */
  tenantField?: string;
  /** The application's entities, by subject type, with their properties (entities.ts): for `no_tenant_field`. */
  entities?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Their relations (entities.ts): which steps of a dotted path are to-many. Unknown steps are read both ways. */
  relations?: EntityRelations;
  /** Their columns' types (entities.ts): for `column_type`. */
  shapes?: ReadonlyMap<string, EntityShape>;
}

export function lintRoles(roles: readonly LintRole[], options: LintOptions = {}): LintFinding[] {
  const byName = new Map(roles.map((role) => [`${role.org}:${role.role}`, role]));
  return roles.flatMap((role) => lintRole(role, byName, options));
}

function lintRole(
  role: LintRole,
  byName: Map<string, LintRole>,
  { tenantField = 'org_id', entities, relations, shapes }: LintOptions,
): LintFinding[] {
  const findings: LintFinding[] = [];
  const found = (kind: LintKind, index: number, message: string) =>
    findings.push({
      kind,
      ...(role.source !== undefined && { file: role.source }),
      role: role.role,
      ...(role.org && { org_role: true as const }),
      rule: index + 1,
      message,
    });
  const included = includedRules(role, byName);
  role.rules.forEach((rule, index) => {
    if (!rule) return;
    const same = [
      ...included,
      ...role.rules.slice(0, index).map((earlier, at) => ({ rule: earlier, where: `rule ${at + 1}` })),
    ].find((earlier) => isDeepStrictEqual(earlier.rule, rule));
    if (same) found('duplicate', index, `the same rule as ${same.where}`);
    // Dead only if dead on every subject type it names (their relations may differ).
    if (
      names(rule.subject).every((type) =>
        unsatisfiable(rule.conditions as Record<string, unknown> | undefined, kindsFor(relations, type)),
      )
    ) {
      found(
        'unsatisfiable',
        index,
        `never decides: no subject meets its conditions ${JSON.stringify(rule.conditions)}`,
      );
    } else {
      const later = role.rules.findIndex(
        (other, at) => at > index && other !== null && !isDeepStrictEqual(other, rule) && covers(other, rule),
      );
      if (later >= 0)
        found('overridden', index, `never decides: rule ${later + 1}, later in the role, applies wherever it does`);
    }
    if (role.org && entities) {
      for (const type of names(rule.subject)) {
        const properties = entities.get(type);
        if (type !== ORGANIZATION && properties && !properties.has(tenantField)) {
          found(
            'no_tenant_field',
            index,
            `matches nothing: the entity ${type} has no tenant field "${tenantField}" ` +
              `(SERVICE_AUTH_TENANT_FIELD), by which an organization role's rules are bound to the ` +
              `organization`,
          );
        }
      }
    }
    for (const type of names(rule.subject)) {
      const shape = shapes?.get(type);
      if (shape) for (const { message } of valueProblems(rule.conditions, shape)) found('column_type', index, message);
    }
  });
  return findings;
}

/** The rules of the roles a role includes, transitively, with where each is. */
function includedRules(
  role: LintRole,
  byName: Map<string, LintRole>,
  seen = new Set([role.role]),
): { rule: RoleRule | null; where: string }[] {
  return role.includes.flatMap((name) => {
    const included = byName.get(`${role.org}:${name}`);
    if (!included || seen.has(name)) return [];
    seen.add(name);
    return [
      ...includedRules(included, byName, seen),
      ...included.rules.map((rule, at) => ({
        rule,
        where: `${role.org ? 'org role' : 'role'} "${name}", rule ${at + 1} (included)`,
      })),
    ];
  });
}

/** Whether `later` applies wherever `earlier` does (and so decides in its place). */
export function covers(later: RoleRule, earlier: RoleRule): boolean {
  const actions = names(later.action);
  const subjects = names(later.subject);
  if (!actions.includes('manage') && !names(earlier.action).every((action) => actions.includes(action))) return false;
  if (!subjects.includes('all') && !names(earlier.subject).every((type) => subjects.includes(type))) return false;
  if (later.fields !== undefined) {
    // CASL applies a rule with fields to a question without a field only when it is not inverted.
    if (earlier.fields === undefined || (later.inverted && !earlier.inverted)) return false;
    if (!names(earlier.fields).every((field) => names(later.fields).includes(field))) return false;
  }
  return implies(
    earlier.conditions as Record<string, unknown> | undefined,
    later.conditions as Record<string, unknown> | undefined,
  );
}

/** Whether conditions `a` imply `b`: `b` has none, or each of its entries is one of `a`'s (or of `a`'s `$and`). */
function implies(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (!b || Object.keys(b).length === 0) return true;
  if (!a) return false;
  const entries = conjuncts(a);
  return Object.entries(b).every(([key, value]) => entries.some(([k, v]) => k === key && isDeepStrictEqual(v, value)));
}

function conjuncts(conditions: Record<string, unknown>): [string, unknown][] {
  return Object.entries(conditions).flatMap(([key, value]): [string, unknown][] =>
    key === '$and' && Array.isArray(value)
      ? [
          [key, value],
          ...value.flatMap((part) =>
            part && typeof part === 'object' ? conjuncts(part as Record<string, unknown>) : [],
          ),
        ]
      : [[key, value]],
  );
}

function names(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).filter((name): name is string => typeof name === 'string');
}
