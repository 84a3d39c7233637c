/**
 * One rule's conditions (CASL's AST) as a MikroORM filter that means what CASL means, NULLs
 * included. SQL's three-valued logic drops a row whose column is NULL from `col <> 1`,
 * `col NOT IN (…)` and `NOT (col = 1)`, where CASL's `$ne`, `$nin` and inverted rules match it. So
 * negations are pushed down to the fields (no `$not` is ever emitted) and each field test says
 * explicitly whether NULL matches, as CASL would decide it for a row whose column holds `null`
 * (field-comparisons.ts).
 *
 * With the entity's metadata, values are compared as the in-memory matcher compares them, never
 * by the database's coercion (SQLite and PostgreSQL both find '1' = 1): a rule that compares a
 * column with a value of another type applies only where that column is NULL (`applying`), and
 * there a value of another type equals nothing (`$eq` fails, `$ne` holds, an `$in` item is as if
 * absent) and orders nothing (`$lt` fails, its negation holds). Literals of another type are
 * refused before (rule-values.ts): what meets this is a placeholder's value at run time.
 *
 * Dotted paths through relations and `$elemMatch` on a to-many relation need the entity's metadata:
 * condition-fields.ts follows them, relation-filters.ts says how they are translated. Other
 * operators (`$regex`, `$exists`, `$size`, `$all`, `$mod`), names that begin with `$`, strings
 * compared by order (a database collation orders them otherwise than JavaScript) and named
 * policies have no faithful SQL form here: UnsupportedCondition (unsupported-condition.ts), which
 * accessibleBy turns into a TypeError naming the role and the rule.
 */
import type { EntityMetadata } from '@mikro-orm/core';
import { CompoundCondition, createInterpreter, type Condition, type FieldCondition } from '@ucast/mongo2js';
import { valueType } from './column-types.js';
import { columnOf, follow, isNull, type Scope } from './condition-fields.js';
import { equal, order, within } from './field-comparisons.js';
import { and, or, throughRelations, type Query } from './relation-filters.js';
import { UnsupportedCondition } from './unsupported-condition.js';

/** `{ 'project.members': { $elemMatch: condition } }`: some element of the collection meets the whole condition (and its needs). */
function elementMatch(node: FieldCondition, negate: boolean, scope: Scope, interpret: Interpret): Query {
  const relations = follow(node, scope, 'collection');
  const inner: Scope = { meta: relations.at(-1)!.target, depth: scope.depth + relations.length };
  return throughRelations(relations, negate, false, (negate) =>
    applying(node.value as Condition, negate, inner, interpret),
  );
}

/** What the matcher compares (matcher.ts on h/decision): a value of another type than the field's makes the rule not apply. */
const COMPARING = new Set(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'nin']);

/**
 * The condition where it applies, as the in-memory matcher has it: every value it compares a field
 * with has the field's type, or the field is NULL (a NULL goes with any type). A literal of another
 * type is refused before (rule-values.ts): what is left are placeholders' values at run time, and
 * a rule comparing a column with one of another type applies only where that column is NULL (or
 * not reached: a NULL relation on the way; through a collection, on every element). Negated: the
 * rows where the rule does not apply, or its conditions do not hold.
 */
function applying(condition: Condition, negate: boolean, scope: Scope, interpret: Interpret): Query {
  const needs = scope.meta ? mismatches(condition, scope) : [];
  if (needs.length === 0) return interpret(condition, negate, scope);
  return negate
    ? or([...needs.map((need) => need(true)), interpret(condition, true, scope)])
    : and([...needs.map((need) => need(false)), interpret(condition, false, scope)]);
}

/** For each field the condition compares with a value of another type than its column: "no value reached is non-NULL", negated or not. */
function mismatches(
  condition: Condition,
  scope: Scope,
  into: ((negate: boolean) => Query)[] = [],
): ((negate: boolean) => Query)[] {
  const { field, value, operator } = condition as FieldCondition;
  if (typeof field !== 'string') {
    if (Array.isArray(value)) for (const child of value as Condition[]) mismatches(child, scope, into);
    return into;
  }
  if (!COMPARING.has(operator)) return into;
  const kinds = new Set((Array.isArray(value) ? value : [value]).filter((item) => item !== null).map(valueType));
  const relations = follow(condition as FieldCondition, scope, 'field');
  const name = field.split('.').at(-1)!;
  const column = columnOf((relations.at(-1)?.target ?? scope.meta!).properties[name]!);
  if (kinds.size === 0 || column.type === undefined || (kinds.size === 1 && kinds.has(column.type))) return into;
  const nonNull = (negate: boolean): Query =>
    negate ? isNull(name, column) : column.nullable ? { [name]: { $ne: null } } : true;
  into.push((negate) => throughRelations(relations, !negate, false, nonNull));
  return into;
}

type Interpret = (node: Condition, negate: boolean, scope: Scope) => Query;
type Translate = (node: Condition, negate: boolean, scope: Scope, context: { interpret: Interpret }) => Query;
const children = (node: Condition) => (node as CompoundCondition).value;
const leaf = (node: Condition) => node as FieldCondition;

const TRANSLATIONS: Record<string, Translate> = {
  and: (node, negate, scope, { interpret }) =>
    (negate ? or : and)(children(node).map((child) => interpret(child, negate, scope))),
  or: (node, negate, scope, { interpret }) =>
    (negate ? and : or)(children(node).map((child) => interpret(child, negate, scope))),
  nor: (node, negate, scope, { interpret }) => interpret(new CompoundCondition('or', children(node)), !negate, scope),
  not: (node, negate, scope, { interpret }) => interpret(children(node)[0]!, !negate, scope),
  eq: (node, negate, scope) => equal(leaf(node), negate, scope),
  ne: (node, negate, scope) => equal(leaf(node), !negate, scope),
  in: (node, negate, scope) => within(leaf(node), negate, scope),
  nin: (node, negate, scope) => within(leaf(node), !negate, scope),
  lt: (node, negate, scope) => order('lt', leaf(node), negate, scope),
  lte: (node, negate, scope) => order('lte', leaf(node), negate, scope),
  gt: (node, negate, scope) => order('gt', leaf(node), negate, scope),
  gte: (node, negate, scope) => order('gte', leaf(node), negate, scope),
  elemMatch: (node, negate, scope, { interpret }) => elementMatch(leaf(node), negate, scope, interpret),
  unsupported: (node) => {
    throw new UnsupportedCondition(
      node.operator === 'where'
        ? 'a named policy is code, with no SQL form'
        : `the operator $${node.operator} has no SQL form here`,
    );
  },
};

const translate = createInterpreter(TRANSLATIONS, {
  numberOfArguments: 3,
  getInterpreterName: (condition: Condition) =>
    Object.hasOwn(TRANSLATIONS, condition.operator) ? condition.operator : 'unsupported',
}) as unknown as Interpret;

/**
 * Translates one rule's condition (negated: the rows it does not match), where it applies (see
 * `applying`); throws UnsupportedCondition for what has no faithful SQL form.
 */
export function conditionToQuery(condition: Condition, negate = false, meta?: EntityMetadata): Query {
  return applying(condition, negate, { meta, depth: 0 }, translate);
}
