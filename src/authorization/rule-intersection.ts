/**
 * A scoped token's rules as one CASL rule list (what `GET /api/abilities` hands a front end):
 * its owner's rules, each granting rule replaced, in its place, by its conjunction with each of
 * the scopes' rules that share an action and a subject type with it. Inverted rules stay as
 * they are. A front end's `createMongoAbility(rules)` then decides as the server's ScopedAbility
 * (scoped-ability.ts) does, without a second ability:
 *
 * - the first of the owner's rules that matches decides for the owner; its conjunctions are in
 *   its place, and the rules before it match nothing, nor do their conjunctions;
 * - a granting rule decides "yes" for the token when it and some scope rule both match, which is
 *   exactly when one of its conjunctions matches; an inverted one refuses, as it does the owner.
 *
 * `manage` and `all` stand for every action and subject type, so the conjunction of `manage` and
 * `read` is `read`. Conditions are joined with `$and`; fields are those both rules allow (a rule
 * without `fields` allows every field). Two rules that allow no field in common make no rule:
 * the server answers a question about no particular field with "yes" there, yet lets no field
 * be changed, and a front end is better told "no".
 */
import { fieldPatternMatcher, type MongoQuery } from '@casl/ability';
import type { AppRule } from './ability-types.js';

type Names = string[] | undefined;

export function intersectRules(owner: readonly AppRule[], scopes: readonly AppRule[]): AppRule[] {
  return owner.flatMap((rule) => (rule.inverted ? [rule] : scopes.flatMap((scope) => conjunction(rule, scope))));
}

function conjunction(rule: AppRule, scope: AppRule): AppRule[] {
  const action = common(names(rule.action), names(scope.action), 'manage');
  const subject = common(names(rule.subject), names(scope.subject), 'all');
  if (!action || !subject) return [];
  const fields = commonFields(names(rule.fields), names(scope.fields));
  if (fields?.length === 0) return [];
  const conditions = [rule.conditions, scope.conditions].filter(
    (condition): condition is MongoQuery => condition !== undefined,
  );
  return [
    {
      action: unwrap(action),
      subject: unwrap(subject),
      ...(fields && { fields: unwrap(fields) }),
      ...(conditions.length > 0 && { conditions: conditions.length === 1 ? conditions[0] : { $and: conditions } }),
      ...(rule.reason !== undefined && { reason: rule.reason }),
    } as AppRule,
  ];
}

function names(value: unknown): Names {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** The names both lists cover, `every` covering all; undefined when none. */
function common(a: Names, b: Names, every: string): string[] | undefined {
  const left = a ?? [every];
  const right = b ?? [every];
  const both = left.includes(every)
    ? right
    : right.includes(every)
      ? left
      : left.filter((name) => right.includes(name));
  return both.length > 0 ? both : undefined;
}

/** The fields both allow (undefined: every field), CASL's field patterns (`author.*`) read as CASL reads them. */
function commonFields(a: Names, b: Names): string[] | undefined {
  if (!a) return b;
  if (!b) return a;
  const inA = fieldPatternMatcher(a);
  const inB = fieldPatternMatcher(b);
  return [...new Set([...a.filter((field) => inB(field)), ...b.filter((field) => inA(field))])];
}

function unwrap(list: string[]): string | string[] {
  return list.length === 1 ? list[0]! : list;
}
