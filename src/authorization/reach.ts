/**
 * How far an ability reaches over a subject type, whatever the subject: every one (`all`), some
 * (`some`: only through conditions or fields), or none. The admin console lets in those whose
 * rules reach every subject of a type (a role's `read User` without conditions, or `manage all`),
 * and the policy explorer's matrix shows each role's reach: one question, one answer for both.
 *
 * Read from CASL's own `rulesFor` (highest priority first), without looking at any subject: a
 * rule with neither conditions nor fields decides for every subject; above a whole grant, only a
 * refusal with conditions or fields makes the answer `some` (it takes some subjects away: a grant
 * above adds nothing to all of them); above a whole refusal, a grant with conditions or fields does
 * (it adds some).
 */
import { createMongoAbility } from '@casl/ability';
import type { AppAbility, AppRule } from './ability-types.js';
import { conditionsMatcher } from './conditions.js';
import type { RoleDefinition } from './role-rules.js';
import { UNTENANTED } from './tenant.js';

export type Reach = 'all' | 'some' | 'none';

/** The ability's reach over `action` on `subjectType` (and, if given, the field). */
export function reachOf(ability: AppAbility, action: string, subjectType: string, field?: string): Reach {
  let refusedSome = false;
  let someAllowed = false;
  for (const rule of ability.rulesFor(action, subjectType as never, field)) {
    // With no field asked about, a rule limited to fields reaches only those fields.
    const whole = !rule.conditions && (!rule.fields || field !== undefined);
    if (whole) {
      if (rule.inverted) return someAllowed ? 'some' : 'none';
      return refusedSome ? 'some' : 'all';
    }
    // Only a refusal above takes subjects away from a grant below; a grant above adds to it.
    if (rule.inverted) refusedSome = true;
    else someAllowed = true;
  }
  return someAllowed ? 'some' : 'none';
}

/** One role's reach over every action and subject type the roles name. */
export interface RoleReach {
  role: string;
  /** An organization role: its rules reach its own organization's subjects only. */
  org: boolean;
  /** `reach[subject][action]`. */
  reach: Record<string, Record<string, Reach>>;
}

/**
 * The matrix of roles × subject types × actions, from the roles as defined (included roles'
 * rules first, as `RoleRules` hands them out; placeholders unfilled, which does not change
 * whether a rule has conditions). `manage` and `all` are CASL's wildcards: they reach the
 * other names, and are not rows or columns of their own. An organization role reaches no subject
 * type without the tenant field (`User`, tenant.ts), whatever its rules say.
 */
export function roleMatrix(
  definitions: readonly RoleDefinition[],
  actions: Iterable<string>,
  subjects: Iterable<string>,
): RoleReach[] {
  const named = (names: Iterable<string>, wildcard: string) => [...names].filter((name) => name !== wildcard).sort();
  const actionList = named(actions, 'manage');
  const subjectList = named(subjects, 'all');
  return definitions.map((definition) => {
    const byName = new Map(
      definitions.filter((other) => other.org === definition.org).map((other) => [other.role, other]),
    );
    const ability = createMongoAbility<AppAbility>(rulesWithIncludes(definition, byName) as never[], {
      conditionsMatcher,
    });
    const reach: Record<string, Record<string, Reach>> = {};
    for (const subject of subjectList) {
      const none = definition.org && UNTENANTED.has(subject);
      reach[subject] = Object.fromEntries(
        actionList.map((action) => [action, none ? 'none' : reachOf(ability, action, subject)]),
      );
    }
    return { role: definition.role, org: definition.org, reach };
  });
}

/** A role's rules with those of the roles it includes first (transitively, each once), as role-rules.ts collects them. */
function rulesWithIncludes(
  definition: RoleDefinition,
  byName: Map<string, RoleDefinition>,
  seen = new Set<string>(),
): AppRule[] {
  if (seen.has(definition.role)) return [];
  seen.add(definition.role);
  const included = definition.includes.flatMap((name) => {
    const role = byName.get(name);
    return role ? rulesWithIncludes(role, byName, seen) : [];
  });
  return [...included, ...definition.rules];
}
