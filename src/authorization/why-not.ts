/**
 * Why not: for a refusal, each rule that could have allowed the action on that subject type, and
 * what stopped it: the first of its conditions the subject fails (the field, the operator, the
 * value the rule wants and the subject's), or the inverted rule that refused although it matched.
 * A condition is tested as the ability tests it (the same matcher), one operator at a time, in the
 * order the rule writes them; a field the subject lacks fails (matcher.ts).
 */
import type { AppAbility } from './ability-types.js';
import { conditionsMatcher } from './conditions.js';
import { valueAt, type AppRuleOf } from './decision.js';

/** The first condition of a rule that the subject does not meet. */
export interface FailedCondition {
  /** The field (a dotted path), or null for `$or` / `$nor` over whole conditions. */
  field: string | null;
  /** The operator, as the rule writes it (`$eq` for a plain value). */
  operator: string;
  /** The value the rule wants. */
  expected: unknown;
  /** The subject's value (absent when the subject lacks the field: then `missing`). */
  actual?: unknown;
  missing?: true;
  /**
   * For a path through a list, each element's value, named by its place (`members[0].user_id`),
   * `value` absent where the element has none; an empty list is named with the value `[]`.
   */
  elements?: { path: string; value?: unknown }[];
}

/** One rule that could have allowed it: the condition it failed, or the deciding (inverted) rule that refused. */
export interface RuleNotApplied<R> {
  rule: R;
  failed?: FailedCondition;
  refused_by?: R;
}

/** The allowing rules for the action on the subject type, in the order they were defined, and why each did not allow. */
export function whyNot(
  ability: AppAbility,
  action: string,
  subjectType: string,
  object: Record<string, unknown>,
  field: string | undefined,
  deciding: AppRuleOf | null,
): RuleNotApplied<AppRuleOf>[] {
  const rules = [...ability.rulesFor(action, subjectType as never, field)].reverse() as AppRuleOf[];
  return rules
    .filter((rule) => !rule.inverted)
    .map((rule) => {
      const failed = rule.conditions
        ? firstFailedCondition(rule.conditions as Record<string, unknown>, object)
        : undefined;
      if (failed) return { rule, failed };
      return deciding && deciding !== rule ? { rule, refused_by: deciding } : { rule };
    });
}

/** The first condition (in the order written) that `object` does not meet, or undefined if it meets them all. */
export function firstFailedCondition(
  conditions: Record<string, unknown>,
  object: Record<string, unknown>,
): FailedCondition | undefined {
  for (const [key, value] of Object.entries(conditions)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) {
        const failed = firstFailedCondition(part as Record<string, unknown>, object);
        if (failed) return failed;
      }
      continue;
    }
    if (key.startsWith('$')) {
      if (!matches({ [key]: value }, object)) return { field: null, operator: key, expected: value };
      continue;
    }
    const elements = elementsAt(object, key);
    const missing = !elements && valueAt(object, key) === undefined;
    for (const [operator, expected] of operatorsOf(value)) {
      if (operator === '$options') continue;
      const test =
        operator === '$regex' && isOperators(value) && value['$options'] !== undefined
          ? { $regex: expected, $options: value['$options'] }
          : { [operator]: expected };
      if (missing) return { field: key, operator, expected, missing: true };
      if (!matches({ [key]: test }, object)) {
        return { field: key, operator, expected, actual: valuesAt(object, key), ...(elements && { elements }) };
      }
    }
  }
  return undefined;
}

function matches(query: Record<string, unknown>, object: Record<string, unknown>): boolean {
  return conditionsMatcher(query as never)(object);
}

/** `{ $gt: 1, $lt: 5 }` as its operators; a plain value as `$eq`. */
function operatorsOf(value: unknown): [string, unknown][] {
  return isOperators(value) ? Object.entries(value) : [['$eq', value]];
}

function isOperators(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof RegExp) &&
    !(value instanceof Date) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((key) => key.startsWith('$'))
  );
}

/** The value at a dotted path, through lists as CASL reads them (each element's value). */
function valuesAt(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split('.')) {
    if (Array.isArray(value))
      value = value.flatMap((item) =>
        item !== null && typeof item === 'object' ? [(item as Record<string, unknown>)[key]] : [],
      );
    else value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/**
 * The values at a dotted path element by element, when it goes through a list (`members.user_id`
 * on `members: [{ user_id: 5 }]`); else undefined.
 */
function elementsAt(object: unknown, path: string): NonNullable<FailedCondition['elements']> | undefined {
  const keys = path.split('.');
  const found: NonNullable<FailedCondition['elements']> = [];
  let throughList = false;
  const walk = (value: unknown, at: number, place: string): void => {
    if (at === keys.length) {
      found.push(value === undefined ? { path: place } : { path: place, value });
    } else if (Array.isArray(value)) {
      throughList = true;
      if (value.length === 0) found.push({ path: place, value: [] });
      value.forEach((item, index) => walk(item, at, `${place}[${index}]`));
    } else {
      const next =
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[keys[at]!] : undefined;
      walk(next, at + 1, at === 0 ? keys[0]! : `${place}.${keys[at]}`);
    }
  };
  walk(object, 0, '');
  return throughList ? found : undefined;
}
