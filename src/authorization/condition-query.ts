/**
 * One rule's conditions (CASL's AST) as a MikroORM filter that means what CASL means, NULLs
 * included. SQL's three-valued logic drops a row whose column is NULL from `col <> 1`,
 * `col NOT IN (…)` and `NOT (col = 1)`, where CASL's `$ne`, `$nin` and inverted rules match it. So
 * negations are pushed down to the fields (no `$not` is ever emitted) and each field test says
 * explicitly whether NULL matches, as CASL would decide it for a row whose column holds `null`:
 *
 * - `$eq`, `$ne`, `$in`, `$nin`: by strict equality, `null` matching only `null`;
 * - `$lt`, `$lte`, `$gt`, `$gte` (numbers only): `null` is not ordered (matcher.ts compares
 *   strictly by type), so only their negations match it.
 *
 * With the entity's metadata, values are compared as the in-memory matcher compares them, never
 * by the database's coercion (SQLite and PostgreSQL both find '1' = 1): a rule that compares a
 * column with a value of another type applies only where that column is NULL (`applying`), and
 * there a value of another type equals nothing (`$eq` fails, `$ne` holds, an `$in` item is as if
 * absent) and orders nothing (`$lt` fails, its negation holds). Literals of another type are
 * refused before (rule-values.ts): what meets this is a placeholder's value at run time.
 *
 * Dotted paths through relations and `$elemMatch` on a to-many relation need the entity's metadata:
 * relation-filters.ts says how they are translated. Other operators (`$regex`, `$exists`, `$size`,
 * `$all`, `$mod`), names that begin with `$`, strings compared by order (a database collation
 * orders them otherwise than JavaScript) and named policies have no faithful SQL form here:
 * UnsupportedCondition, which accessibleBy turns into a TypeError naming the role and the rule.
 */
import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { CompoundCondition, createInterpreter, ITSELF, type Condition, type FieldCondition } from '@ucast/mongo2js';
import { columnType, fitsColumn, valueType, type ColumnType } from './column-types.js';
import { and, or, throughRelations, type Query } from './relation-filters.js';
import { isScalar, MAX_RELATIONS, walkPath, type Relation } from './relation-walks.js';

type Primitive = string | number | boolean | null;

export class UnsupportedCondition extends Error {}

/** What a condition is read on: the entity's metadata, if known, and how many relations led there. */
interface Scope {
  meta: EntityMetadata | undefined;
  depth: number;
}

/** What the metadata says of a column: its type (undefined: not checked), and whether it may hold NULL. */
interface Column {
  type: ColumnType | undefined;
  nullable: boolean;
}
const UNKNOWN: Column = { type: undefined, nullable: true };

/** A field's test, by its column's name (and type, when the metadata says it), negated or not. */
type FieldTest = (name: string, negate: boolean, column: Column) => Query;

/**
 * A column's type and nullability. A relation's target is guarded (relation-filters.ts: its primary
 * key is not NULL), so a column NOT NULL in the schema holds a value wherever a test reads it.
 */
const columnOf = (property: EntityProperty): Column => ({
  type: columnType(property),
  nullable: property.nullable === true,
});

/** `{ name: null }`, where the column may hold NULL; else false (the test needs no NULL branch). */
const isNull = (name: string, column: Column): Query => column.nullable && { [name]: null };

const COMPLEMENT = { lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' } as const;
type Order = keyof typeof COMPLEMENT;
/** Whether the matcher's comparison of a `null` field with `bound` holds: never, comparisons are strict by type (matcher.ts). */
const NULL_ORDER: Record<Order, (bound: number) => boolean> = {
  lt: () => false,
  lte: () => false,
  gt: () => false,
  gte: () => false,
};

function order(op: Order, node: FieldCondition, negate: boolean, scope: Scope): Query {
  const bound = node.value;
  return onField(node, negate, scope, false, (name, negate, column) => {
    // A bound of another type than the column orders nothing (no coercion): the test fails on every row.
    if (column.type !== undefined && !fitsColumn(bound, column.type)) return negate;
    if (typeof bound !== 'number' || !Number.isFinite(bound)) {
      throw new UnsupportedCondition(
        `$${op} compares numbers only (strings are ordered by the database's collation, not as in JavaScript)`,
      );
    }
    const nullMatches = NULL_ORDER[op](bound) !== negate;
    return or([{ [name]: { [`$${negate ? COMPLEMENT[op] : op}`]: bound } }, nullMatches && isNull(name, column)]);
  });
}

function equal(node: FieldCondition, negate: boolean, scope: Scope): Query {
  return onField(node, negate, scope, false, (name, negate, column) => {
    const value = primitive(node.value);
    // A value of another type than the column equals no row.
    if (!fitsColumn(value, column.type)) return negate;
    if (value === null) return column.nullable ? { [name]: negate ? { $ne: null } : null } : negate;
    return negate ? or([{ [name]: { $ne: value } }, isNull(name, column)]) : { [name]: value };
  });
}

function within(node: FieldCondition, negate: boolean, scope: Scope): Query {
  return onField(node, negate, scope, false, (name, negate, column) => {
    if (!Array.isArray(node.value)) throw new UnsupportedCondition('$in and $nin take a list');
    // An item of another type than the column equals no row: as if it were not in the list.
    const values = node.value.map(primitive).filter((value) => fitsColumn(value, column.type));
    const items = [...new Set(values.filter((value) => value !== null))];
    const nullMatches = values.includes(null) !== negate;
    const anyValue = column.nullable ? { [name]: { $ne: null } } : true;
    const nonNull = items.length === 0 ? negate && anyValue : { [name]: { [negate ? '$nin' : '$in']: items } };
    return or([nonNull, nullMatches && isNull(name, column)]);
  });
}

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

/** A leaf's test on its field, through the relations its path follows (CASL's meaning, see relation-filters.ts). */
function onField(node: FieldCondition, negate: boolean, scope: Scope, brokenHolds: boolean, test: FieldTest): Query {
  // The name first: `{ $or: [...] }` is refused for its name, not for the list it compares with.
  if (!scope.meta) return test(field(node), negate, UNKNOWN);
  const relations = follow(node, scope, 'field');
  const name = (node.field as string).split('.').at(-1)!;
  const column = columnOf((relations.at(-1)?.target ?? scope.meta).properties[name]!);
  return throughRelations(relations, negate, brokenHolds, (negate) => test(name, negate, column));
}

/**
 * The relations a leaf's path follows on the scope's entity, checked: a field path must end at a
 * column, an `$elemMatch` path at a collection, within MAX_RELATIONS relations in all.
 */
function follow(node: FieldCondition, scope: Scope, end: 'field' | 'collection'): Relation[] {
  const path = field(node, scope.meta !== undefined);
  if (!scope.meta) throw new UnsupportedCondition(`$elemMatch on "${path}" needs the entity's metadata: pass { em }`);
  const { relations, meta, rest } = walkPath(scope.meta, path);
  const named = `"${path}" (on ${scope.meta.className})`;
  if (end === 'collection') {
    if (rest.length > 0 || !relations.at(-1)?.many)
      throw new UnsupportedCondition(
        `$elemMatch takes a path to a to-many relation (a collection), and ${named} is none`,
      );
  } else if (rest.length !== 1) {
    throw new UnsupportedCondition(
      rest.length === 0
        ? `${named} names a relation, not a column: compare a property through it, such as "${path}.${meta.primaryKeys[0]}"`
        : `${named}: "${rest[0]}" is no relation of ${meta.className}`,
    );
  } else if (!isScalar(meta, rest[0]!)) {
    throw new UnsupportedCondition(`${named}: ${meta.className} has no column "${rest[0]}"`);
  }
  if (scope.depth + relations.length > MAX_RELATIONS)
    throw new UnsupportedCondition(`${named} follows more than ${MAX_RELATIONS} relations`);
  return relations;
}

function field(node: FieldCondition, dotted = false): string {
  if (typeof node.field !== 'string' || node.field === ITSELF) {
    throw new UnsupportedCondition(`"${String(node.field)}" is not a property name`);
  }
  if (node.field.includes('.') && !dotted) {
    throw new UnsupportedCondition(
      `"${node.field}" is a dotted path: dotted paths through relations need the entity's metadata (pass { em })`,
    );
  }
  // Rule checks refuse unknown operators when a role is defined; this is the last line: a filter
  // cannot name a property beginning with `$`, which MikroORM would read as its own operator.
  if (node.field.split('.').some((segment) => segment.startsWith('$') || segment === '')) {
    throw new UnsupportedCondition(`"${node.field}" is not a property name a filter can use`);
  }
  return node.field;
}

function primitive(value: unknown): Primitive {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  )
    return value;
  throw new UnsupportedCondition(
    `${value instanceof RegExp ? 'a regular expression' : (JSON.stringify(value) ?? String(value))} is not a value a column can equal`,
  );
}
