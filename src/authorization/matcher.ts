/**
 * When a rule applies to an object: the one place every door decides it (the abilities' CASL
 * matcher on the server, `createClientAbility` in the browser, the analyses' brute force). It is
 * browser-safe: it imports CASL and ucast only; how a step of a path is read (MikroORM entities on
 * the server, plain objects in the browser) is given to it.
 *
 * A rule applies when (docs/authorization.md, "How a rule applies"):
 *
 * - every field its conditions name is there on the object: to the end of its path, or to a
 *   `null` relation on the way; through a list (a to-many relation), on every element. A rule
 *   naming a field the object lacks does not apply, whatever its operators (`$ne` included), and
 *   the next rule decides; `$exists` is the one test of a field's presence, and asks for none;
 * - every value it compares a field with (`$eq`, `$ne`, `$in`, `$nin`, `$all`, `$lt`, `$lte`,
 *   `$gt`, `$gte`) has the type of the field's value (a number, a bigint, a string, a boolean, a
 *   date; `null` goes with any): no JavaScript coercion, `'1'` is not `1`; a rule comparing a field
 *   with a value of another type does not apply;
 * - and then its conditions hold, as CASL and ucast read them, with comparisons strict by type.
 *
 * Inside `$elemMatch`, the same holds for each element. Nothing here throws on data (a `null`
 * element of a list, a `null` relation on a path).
 */
import { buildMongoQueryMatcher } from '@casl/ability';
import { $and, $nor, $not, $or, $where, and, elemMatch, eq, ITSELF, nor, not, or, where } from '@ucast/mongo2js';
import type { Condition, FieldCondition } from '@ucast/mongo2js';

/** One step of a dotted path: the value of `field` on `object` (undefined when the object is none). */
export type Step = (object: Record<string, unknown> | null | undefined, field: string) => unknown;

/** A step on plain objects (the browser's, and `GET /api/abilities`'s subjects). */
export const plainStep: Step = (object, field) => (object === null || object === undefined ? undefined : object[field]);

export type ConditionsMatcher = ReturnType<typeof buildMongoQueryMatcher>;

type Kind = 'null' | 'number' | 'bigint' | 'string' | 'boolean' | 'date' | 'object' | 'regexp';

function kindOf(value: unknown): Kind {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'number':
      return 'number';
    // A bigint is its own kind: `7n === 7` is false, and a number never equals one (nor in SQL: column-types.ts).
    case 'bigint':
      return 'bigint';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    default:
      return value instanceof Date ? 'date' : value instanceof RegExp ? 'regexp' : 'object';
  }
}

/**
 * ucast's comparison, strict by type: values of two types are neither equal nor ordered (NaN:
 * ucast's `eq`, `lt`, `lte`, `gt`, `gte` all test for 0, -1 or 1). Dates compare by their time.
 */
export function strictCompare<T>(a: T, b: T): 0 | 1 | -1 {
  if (a === b) return 0;
  const kind = kindOf(a);
  if (kind !== kindOf(b) || kind === 'null' || kind === 'object' || kind === 'regexp') return Number.NaN as 0;
  const [x, y] = kind === 'date' ? [(a as Date).getTime(), (b as Date).getTime()] : [a, b];
  // NaN is neither below, above nor equal to any number: not equal to it either.
  return x < y ? -1 : x > y ? 1 : x === y ? 0 : (Number.NaN as 0);
}

/** The operators that compare a field with the rule's value (a list of values for `in`, `nin`, `all`). */
const COMPARING = new Set(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'nin', 'all']);

/** What a rule asks of an object besides its conditions: a path that must be there, its values of one type. */
interface Need {
  path: readonly string[];
  /**
   * The type the path's values must have (`null` goes with any); undefined: presence only;
   * `mixed`: values of several types, which no value has.
   */
  kind: Kind | 'mixed' | undefined;
}

/** The needs of a condition tree: every field condition's, but `$exists`'s and what `$elemMatch` asks of its elements. */
function needsOf(condition: Condition, into: Need[] = []): Need[] {
  const { field, value, operator } = condition as FieldCondition;
  if (typeof field === 'string' || field === ITSELF) {
    if (field === ITSELF || operator === 'exists') return into;
    const values = !COMPARING.has(operator) ? [] : Array.isArray(value) ? value : [value];
    const kinds = new Set(values.map(kindOf).filter((kind) => kind !== 'null' && kind !== 'regexp'));
    into.push({
      path: field.split('.'),
      kind: kinds.size === 0 ? undefined : kinds.size === 1 ? [...kinds][0] : 'mixed',
    });
    return into;
  }
  if (Array.isArray(value)) for (const child of value as Condition[]) needsOf(child, into);
  return into;
}

/** Whether every need is met on the object. */
function meets(needs: readonly Need[], object: unknown, step: Step): boolean {
  for (let i = 0; i < needs.length; i++) if (!reach(object, needs[i]!, 0, step)) return false;
  return true;
}

/** Whether the need's path (from `at` on) is there on `value`, with values of its type at the end (on each element of a list). */
function reach(value: unknown, need: Need, at: number, step: Step): boolean {
  const { path, kind } = need;
  if (at === path.length) {
    if (value === undefined) return false;
    if (kind === undefined || value === null) return true;
    if (!Array.isArray(value)) return kindOf(value) === kind;
    for (const item of value as unknown[])
      if (item !== null && item !== undefined && kindOf(item) !== kind) return false;
    return true;
  }
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (!reach(item, need, at, step)) return false;
    return true;
  }
  if (typeof value !== 'object') return false;
  return reach(step(value as Record<string, unknown>, path[at]!), need, at + 1, step);
}

/** Needs per condition tree, computed once (a rule's tree lives as long as its ability). */
const needsByTree = new WeakMap<object, readonly Need[]>();
function needsFor(condition: Condition): readonly Need[] {
  let needs = needsByTree.get(condition);
  if (!needs) needsByTree.set(condition, (needs = needsOf(condition)));
  return needs;
}

/** Whether a rule with this parsed condition applies to the object (its fields there, its values of their types). */
export function appliesTo(condition: Condition, object: unknown, step: Step = plainStep): boolean {
  return meets(needsFor(condition), object, step);
}

/**
 * The conditions matcher of an ability, reading paths with `step`: CASL's MongoDB operators, plus
 * `$and`, `$or`, `$nor` and `$not` over whole conditions and `$where` (policy functions), with
 * comparisons strict by type and the rule's needs checked first.
 */
export function createConditionsMatcher(step: Step): ConditionsMatcher {
  /**
   * `$eq` (and a bare value), the common case first: a plain field holding a primitive, compared
   * with a primitive, is `===` (ucast's own `eq` allocates a cursor for the path on every call;
   * see docs/performance.md). Anything else is ucast's `eq`.
   */
  const equals: typeof eq = (node, object, context) => {
    const expected: unknown = node.value;
    const plainField = typeof node.field === 'string' && !node.field.includes('.');
    const plainObject = object !== null && typeof object === 'object' && !Array.isArray(object);
    if (plainField && plainObject && expected !== null && typeof expected !== 'object') {
      const actual = step(object as Record<string, unknown>, node.field);
      if (actual === null || (actual !== undefined && typeof actual !== 'object')) return actual === expected;
    }
    return eq(node, object, context);
  };
  /** `$and` without the closure ucast's `and` allocates for `every`: CASL tries every candidate rule on each `can`. */
  const allOf: typeof and = (node, object, { interpret }) => {
    const conditions = node.value;
    for (let i = 0; i < conditions.length; i++) if (!interpret(conditions[i]!, object)) return false;
    return true;
  };
  /** ucast's `$elemMatch`, an element meeting the inner conditions only when they apply to it. */
  const elementMatch: typeof elemMatch = (node, object, context) =>
    elemMatch(node, object, {
      ...context,
      // A null element has no fields (ucast would throw reading one).
      interpret: (inner, element) =>
        element !== null &&
        element !== undefined &&
        context.interpret(inner, element) &&
        meets(needsFor(inner), element, step),
    });
  const build = buildMongoQueryMatcher(
    { $and, $or, $nor, $not, $where },
    { and: allOf, or, nor, not, where, eq: equals, elemMatch: elementMatch },
    { get: step, compare: strictCompare },
  );
  return ((conditions: Parameters<ConditionsMatcher>[0]) => {
    const test = build(conditions);
    const needs = test.ast ? needsFor(test.ast) : [];
    // The conditions first: most rules CASL tries fail them, and then the needs are not walked.
    if (needs.length === 0) return test;
    return Object.assign((object: unknown) => test(object as never) && meets(needs, object, step), { ast: test.ast });
  }) as ConditionsMatcher;
}
