/** `auth.policies`: policy analysis in code (docs/policy-analysis.md). */
import { diffPolicies, type PolicyDiff } from './diff.js';
import { entityRelations } from './entities.js';
import type { LintReport, PolicyLintOptions } from './lint-roles.js';
import { policySetOf, type PolicySource } from './policy-sets.js';

export interface PolicyAnalysis {
  /**
   * What changes from policies `a` to `b`, each a policy file's or directory's path or a policy
   * file's content (`{ roles, orgRoles }`, or a map of global roles): per global and organization
   * role, each action and subject type (and fields) newly allowed (`grant`) or newly denied
   * (`revoke`), with a witness; and what could not be analysed. Only the two sides' roles are
   * compared (not the roles the application defines in code); organization roles are bound by
   * the application's tenant field. `entities` (schemas, lists of them, or the MikroORM) say
   * which relations are to-many; without them, each step of a dotted path is read both as one
   * object and as an array. A malformed side throws a TypeError naming the problem.
   */
  diff(a: PolicySource, b: PolicySource, options?: PolicyLintOptions): PolicyDiff;
  /** The application's roles' rules that never decide, duplicates, rules on entities without the tenant field; `entities` as for `diff`. */
  lint(options?: PolicyLintOptions): LintReport;
}

/** `tenantField`: the application's SERVICE_AUTH_TENANT_FIELD, read when asked; `lint` lints the application's roles. */
export function policyAnalysis(tenantField: () => string, lint: PolicyAnalysis['lint']): PolicyAnalysis {
  return {
    diff: (a, b, { entities } = {}) =>
      diffPolicies(
        policySetOf(a, { tenantField: tenantField() }),
        policySetOf(b, { tenantField: tenantField() }),
        entities && entityRelations(entities),
      ),
    lint,
  };
}
