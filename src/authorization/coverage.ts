/**
 * Policy test coverage: which rules of each role (global and organization) no test decided. A
 * test decides by one rule, the one `explain` names (CASL's `relevantRuleFor`), whether it allows
 * or denies; a rule that never decides any test is untested: changing it would fail no test.
 * A rule counts for the role that defines it (an included role's rules count for that role).
 */
import type { Explanation } from './explain.js';
import type { RoleDefinition, RoleRule } from './role-rules.js';

export interface RoleCoverage {
  role: string;
  /** True for an organization role. */
  org_role?: true;
  /** The file it was loaded from. */
  source?: string;
  /** How many rules it has, and how many tests decided. */
  rules: number;
  covered: number;
  /** The rules no test decided: their position in the role (from 1) and the rule. */
  uncovered: { index: number; rule: RoleRule }[];
}

export interface Coverage {
  covered: number;
  total: number;
  /** covered / total × 100; 100 when there are no rules. */
  percent: number;
  roles: RoleCoverage[];
}

/** The coverage of the roles by the tests whose explanations are given (of one file or many). */
export function coverageOf(
  definitions: Iterable<RoleDefinition>,
  results: Iterable<{ explanation: Explanation }>,
): Coverage {
  const decided = new Set<string>();
  for (const { explanation } of results) {
    const rule = explanation.rule;
    if (rule?.role != null && rule.index !== undefined)
      decided.add(keyOf(rule.role, rule.org_role === true, rule.index));
  }
  const roles = [...definitions].map(({ role, org, source, rules }): RoleCoverage => {
    const uncovered = rules.flatMap((rule, position) =>
      decided.has(keyOf(role, org, position + 1)) ? [] : [{ index: position + 1, rule }],
    );
    return {
      role,
      ...(org && { org_role: true as const }),
      ...(source !== undefined && { source }),
      rules: rules.length,
      covered: rules.length - uncovered.length,
      uncovered,
    };
  });
  const total = roles.reduce((sum, role) => sum + role.rules, 0);
  const covered = roles.reduce((sum, role) => sum + role.covered, 0);
  return { covered, total, percent: total === 0 ? 100 : (covered / total) * 100, roles };
}

function keyOf(role: string, org: boolean, index: number): string {
  return JSON.stringify([org, role, index]);
}
