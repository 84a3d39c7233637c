/**
 * `auth check`'s answer when the user lacks an attribute a rule names: a rule of the user's roles
 * naming `${user.approval_limit}`, for a user with no value for it, is left out of the ability
 * (placeholders.ts), so the answer alone ("no rule of the roles approver grants it") would not say
 * why. These are such rules for the action and subject type asked about, with the names lacking.
 */
import { attributesNamed } from '../../src/authorization/placeholders.js';
import type { RoleDefinition } from '../../src/authorization/role-rules.js';
import type { Principal, RoleRule } from '../../src/index.js';

export interface LackingAttributes {
  role: string;
  org_role?: true;
  /** The rule's place in the role's own rules, from 1. */
  index: number;
  source?: string;
  rule: RoleRule;
  /** The attributes it names that the user has no value for. */
  attributes: string[];
}

/** The rules of `roles` (global) and `orgRoles` (and the roles they include) for the question that name attributes the user lacks. */
export function rulesLackingAttributes(
  definitions: readonly RoleDefinition[],
  user: Principal,
  orgRoles: readonly string[],
  action: string,
  subject: string,
): LackingAttributes[] {
  const held = [...heldRoles(definitions, false, [...user.roles]), ...heldRoles(definitions, true, orgRoles)];
  return held.flatMap((definition) =>
    definition.rules.flatMap((rule, at): LackingAttributes[] => {
      if (!names(rule.action, action, 'manage') || !names(rule.subject as string | string[], subject, 'all')) return [];
      const attributes = attributesNamed(rule).filter(
        (name) => user.attributes?.[name] === undefined || user.attributes[name] === null,
      );
      if (attributes.length === 0) return [];
      const { role, source } = definition;
      const where = {
        role,
        ...(definition.org && { org_role: true as const }),
        index: at + 1,
        ...(source !== undefined && { source }),
      };
      return [{ ...where, rule, attributes }];
    }),
  );
}

/** The definitions of these roles and of those they include, each once. */
function heldRoles(definitions: readonly RoleDefinition[], org: boolean, roles: readonly string[]): RoleDefinition[] {
  const byName = new Map(
    definitions.filter((definition) => definition.org === org).map((definition) => [definition.role, definition]),
  );
  const found = new Map<string, RoleDefinition>();
  const visit = (name: string): void => {
    const definition = byName.get(name);
    if (!definition || found.has(name)) return;
    found.set(name, definition);
    definition.includes.forEach(visit);
  };
  roles.forEach(visit);
  return [...found.values()];
}

function names(value: string | string[], asked: string, any: string): boolean {
  return [value].flat().some((name) => name === asked || name === any);
}

/**
 * What is wrong with `--attribute` values naming an attribute nothing declares, or undefined: such
 * a name is a typo, which would otherwise read as "the user lacks the attribute".
 */
export function undeclaredAttributes(
  given: Record<string, unknown>,
  declared: ReadonlySet<string>,
): string | undefined {
  const unknown = Object.keys(given).filter((name) => !declared.has(name));
  if (unknown.length === 0) return undefined;
  const known = declared.size > 0 ? `the declared ones are ${[...declared].join(', ')}` : 'none is declared';
  return `--attribute ${unknown.join(', ')}: no such user attribute (${known})`;
}
