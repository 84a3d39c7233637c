/** `auth.policies.lint()`: lint.ts on the roles an application has defined (in code and from files). */
import type { RoleDefinition } from '../role-rules.js';
import { entityProperties, entityRelations, entityShapes } from './entities.js';
import { lintRoles, type LintFinding } from './lint.js';

export interface LintReport {
  findings: LintFinding[];
}

export interface PolicyLintOptions {
  /**
   * The application's entities (schemas, lists of them, or its MikroORM): for rules on subjects
   * without the tenant field, for which relations are to-many (without them, both readings), and
   * for rule values of another type than their column.
   */
  entities?: readonly unknown[];
}

export function lintDefinitions(
  definitions: readonly RoleDefinition[],
  tenantField: string,
  { entities }: PolicyLintOptions = {},
): LintReport {
  const roles = definitions.map(({ role, org, includes, rules, source }) => ({
    role,
    org,
    includes,
    rules,
    ...(source !== undefined && { source }),
  }));
  return {
    findings: lintRoles(roles, {
      tenantField,
      ...(entities && {
        entities: entityProperties(entities),
        relations: entityRelations(entities),
        shapes: entityShapes(entities),
      }),
    }),
  };
}
