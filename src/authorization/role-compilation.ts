/**
 * How a role's rules become what it hands out, compiled once when the role is defined: a global
 * role without placeholders hands the same frozen rule objects to everyone; otherwise each call
 * fills the placeholders for the user (and organization), and an organization role's rules are
 * bound to the organization they are handed out for (tenant.ts). A rule naming an attribute the
 * user has no value for never becomes a condition that matches everything (`filled`).
 */
import { hasPlaceholders, interpolate, MissingAttribute, type PlaceholderValues } from './placeholders.js';
import type { RoleRule } from './role-rules.js';
import type { Tenant } from './tenant.js';

/** What a role hands out for these placeholder values. */
export type CompiledRole = (values: PlaceholderValues) => RoleRule[];

/**
 * The role's rules compiled: `note` is told of every rule handed out and the index, in the role's
 * own list, of the rule it came from (for `sourceOf`), and returns it.
 */
export function compileRole(
  rules: RoleRule[],
  tenant: Tenant | undefined,
  note: (rule: RoleRule, index: number) => RoleRule,
): CompiledRole {
  if (tenant) {
    // Every rule is bound to the organization it is handed out for (tenant.ts).
    return (values) =>
      rules.flatMap((rule, index) =>
        filled(rule, values)
          .flatMap((one) => tenant.bind(one, values.org!.id))
          .map((bound) => note(bound, index)),
      );
  }
  if (!hasPlaceholders(rules)) {
    const fixed = deepFreeze(rules).map(note);
    return () => fixed;
  }
  return (values) => rules.flatMap((rule, index) => filled(rule, values).map((one) => note(one, index)));
}

/**
 * The rule with the placeholders filled in, or what stands for it when it names an attribute the
 * user has no value for: nothing for a granting rule (it cannot match), and for an inverted rule
 * the refusal without its conditions (it cannot be shown not to match). Never a condition that
 * matches everything.
 */
function filled(rule: RoleRule, values: PlaceholderValues): RoleRule[] {
  try {
    return [interpolate(rule, values) as RoleRule];
  } catch (error) {
    if (!(error instanceof MissingAttribute)) throw error;
    if (!rule.inverted) return [];
    const { conditions: _dropped, ...refusal } = rule;
    return [interpolateKnown(refusal, values) as RoleRule];
  }
}

/** The refusal's remaining placeholders (in its `reason`, say) filled where they can be; left as written where not. */
function interpolateKnown(rule: RoleRule, values: PlaceholderValues): RoleRule {
  try {
    return interpolate(rule, values) as RoleRule;
  } catch (error) {
    if (error instanceof MissingAttribute) return structuredClone(rule);
    throw error;
  }
}

/** Frozen all the way down: rules handed out to everyone (and a role's rules as defined) cannot be changed by one holder. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
