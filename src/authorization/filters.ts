/**
 * `auth.accessibleBy(user, action, subjectType)`: the rows a user's ability allows, as a MikroORM
 * filter. CASL turns the rules into one condition (`rulesToAST`: each granting rule bounded by the
 * refusals above it); this module translates that condition into MikroORM's query language.
 *
 * The translation keeps CASL's meaning, NULLs included. SQL's three-valued logic drops a row
 * whose column is NULL from `col <> 1`, `col NOT IN (…)` and `NOT (col = 1)`, where CASL's `$ne`,
 * `$nin` and inverted rules match it. So negations are pushed down to the fields (no `$not` is
 * ever emitted) and each field test says explicitly whether NULL matches, as CASL would decide
 * it for a row whose column holds `null`:
 *
 * - `$eq`, `$ne`, `$in`, `$nin`: by strict equality, `null` matching only `null`;
 * - `$lt`, `$lte`, `$gt`, `$gte` (numbers only): JavaScript compares `null` as 0, so `null` is
 *   below a positive bound and above a negative one.
 *
 * Other operators (`$regex`, `$exists`, `$elemMatch`, `$size`, `$all`, `$mod`), dotted paths,
 * names that begin with `$`, strings compared by order (a database collation orders them otherwise
 * than JavaScript) and named policies have no faithful SQL form here: `accessibleBy` throws a
 * TypeError naming the role and the rule. Rules compare property names of the entity, with values
 * of the property's type (a number for a number column).
 */
import { rulesToAST } from '@casl/ability/extra';
import { CompoundCondition, createInterpreter, ITSELF, type Condition, type FieldCondition } from '@ucast/mongo2js';
import type { AppAbility } from './abilities.js';
import { ScopedAbility } from './scoped-ability.js';

/** A MikroORM filter: `{ $and | $or: [...] }` and `{ property: value | { $op: value } }`. */
export type AccessFilter = Record<string, unknown>;

/** The options of `auth.accessibleBy`. */
export interface AccessibleByOptions {
  /** The entity's primary key property, which the filters for every row and for none name; default `id`. */
  primaryKey?: string;
}

/**
 * Matches every row, however it is combined: a primary key that is not NULL. Not `{}`, which
 * MikroORM drops from an `$or`, narrowing `{ $or: [filter, other] }` to `other`.
 */
const all = (primaryKey: string): AccessFilter => ({ [primaryKey]: { $ne: null } });
/**
 * Matches no row, however it is combined: a primary key in an empty list (SQL `1 = 0`). Not `[]`
 * (an empty list of keys), which spread into `{ ...filter, archived: false }` leaves
 * `{ archived: false }`: every row; nor an empty `$or`, which MikroORM drops.
 */
const none = (primaryKey: string): AccessFilter => ({ [primaryKey]: { $in: [] } });

type Query = boolean | Record<string, unknown>;
type Primitive = string | number | boolean | null;

export class UnsupportedCondition extends Error {}

const COMPLEMENT = { lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' } as const;
type Order = keyof typeof COMPLEMENT;
/** Whether CASL's comparison of a `null` field with `bound` holds (`null` is compared as 0). */
const NULL_ORDER: Record<Order, (bound: number) => boolean> = {
  lt: (bound) => bound >= 0,
  lte: (bound) => bound >= 0,
  gt: (bound) => bound < 0,
  gte: (bound) => bound < 0,
};

function order(op: Order, node: FieldCondition, negate: boolean): Query {
  const name = field(node);
  const bound = node.value;
  if (typeof bound !== 'number' || !Number.isFinite(bound)) {
    throw new UnsupportedCondition(`$${op} compares numbers only (strings are ordered by the database's collation, not as in JavaScript)`);
  }
  const nullMatches = NULL_ORDER[op](bound) !== negate;
  return or([{ [name]: { [`$${negate ? COMPLEMENT[op] : op}`]: bound } }, nullMatches && { [name]: null }]);
}

function equal(node: FieldCondition, negate: boolean): Query {
  // The name first: `{ $or: [...] }` is refused for its name, not for the list it compares with.
  const name = field(node);
  const value = primitive(node.value);
  if (value === null) return { [name]: negate ? { $ne: null } : null };
  return negate ? { $or: [{ [name]: { $ne: value } }, { [name]: null }] } : { [name]: value };
}

function within(node: FieldCondition, negate: boolean): Query {
  const name = field(node);
  if (!Array.isArray(node.value)) throw new UnsupportedCondition('$in and $nin take a list');
  const values = node.value.map(primitive);
  const items = [...new Set(values.filter((value) => value !== null))];
  const nullMatches = values.includes(null) !== negate;
  const nonNull = items.length === 0 ? negate && { [name]: { $ne: null } } : { [name]: { [negate ? '$nin' : '$in']: items } };
  return or([nonNull, nullMatches && { [name]: null }]);
}

type Translate = (node: Condition, negate: boolean, context: { interpret(node: Condition, negate: boolean): Query }) => Query;
const children = (node: Condition) => (node as CompoundCondition).value;
const leaf = (node: Condition) => node as FieldCondition;

const TRANSLATIONS: Record<string, Translate> = {
  and: (node, negate, { interpret }) => (negate ? or : and)(children(node).map((child) => interpret(child, negate))),
  or: (node, negate, { interpret }) => (negate ? and : or)(children(node).map((child) => interpret(child, negate))),
  nor: (node, negate, { interpret }) => interpret(new CompoundCondition('or', children(node)), !negate),
  not: (node, negate, { interpret }) => interpret(children(node)[0]!, !negate),
  eq: (node, negate) => equal(leaf(node), negate),
  ne: (node, negate) => equal(leaf(node), !negate),
  in: (node, negate) => within(leaf(node), negate),
  nin: (node, negate) => within(leaf(node), !negate),
  lt: (node, negate) => order('lt', leaf(node), negate),
  lte: (node, negate) => order('lte', leaf(node), negate),
  gt: (node, negate) => order('gt', leaf(node), negate),
  gte: (node, negate) => order('gte', leaf(node), negate),
  unsupported: (node) => {
    throw new UnsupportedCondition(node.operator === 'where' ? 'a named policy is code, with no SQL form' : `the operator $${node.operator} has no SQL form here`);
  },
};

const translate = createInterpreter(TRANSLATIONS, {
  getInterpreterName: (condition: Condition) => (Object.hasOwn(TRANSLATIONS, condition.operator) ? condition.operator : 'unsupported'),
});

/** Translates one condition; throws UnsupportedCondition for what has no faithful SQL form. */
export function conditionToQuery(condition: Condition, negate = false): Query {
  return translate(condition, negate);
}

/**
 * The filter for `ability`'s rows of `subjectType` for `action`. `describe` names a rule (its
 * role and position) for the TypeError an unsupported condition raises; `primaryKey` is the
 * entity's, which the filters for every row and for none name.
 */
export function accessFilter(ability: AppAbility, action: string, subjectType: string, describe: (rule: object) => string, primaryKey: string): AccessFilter {
  // A scoped token: the owner's rows that its scopes allow too (scoped-ability.ts).
  if (ability instanceof ScopedAbility) return { $and: [ability.owner, ability.scopes].map((part) => accessFilter(part, action, subjectType, describe, primaryKey)) };
  for (const rule of ability.rulesFor(action, subjectType)) {
    if (!rule.conditions) continue;
    try {
      if (!rule.ast) throw new UnsupportedCondition('its conditions are code, with no SQL form');
      conditionToQuery(rule.ast);
    } catch (error) {
      if (!(error instanceof UnsupportedCondition)) throw error;
      throw new TypeError(`accessibleBy(${JSON.stringify(action)}, ${JSON.stringify(subjectType)}): ${describe(rule.origin)}: ${error.message}`);
    }
  }
  const condition = rulesToAST(ability, action, subjectType);
  const query = condition ? conditionToQuery(condition) : false;
  return query === true ? all(primaryKey) : query === false ? none(primaryKey) : query;
}

function field(node: FieldCondition): string {
  if (typeof node.field !== 'string' || node.field === ITSELF || node.field.includes('.')) {
    throw new UnsupportedCondition(`"${String(node.field)}" is not a property name (dotted paths are not supported)`);
  }
  // Rule checks refuse unknown operators when a role is defined; this is the last line: a filter
  // cannot name a property beginning with `$`, which MikroORM would read as its own operator.
  if (node.field.startsWith('$')) {
    throw new UnsupportedCondition(`"${node.field}" is not a property name a filter can use`);
  }
  return node.field;
}

function primitive(value: unknown): Primitive {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  throw new UnsupportedCondition(`${value instanceof RegExp ? 'a regular expression' : JSON.stringify(value) ?? String(value)} is not a value a column can equal`);
}

/** AND, with `true` dropped and `false` absorbing (MikroORM would drop an empty branch, not honour it). */
function and(parts: Query[]): Query {
  if (parts.includes(false)) return false;
  const kept = parts.filter((part): part is Record<string, unknown> => part !== true);
  return kept.length === 0 ? true : kept.length === 1 ? kept[0]! : { $and: kept };
}

/** OR, with `false` dropped and `true` absorbing. */
function or(parts: (Query | false)[]): Query {
  if (parts.includes(true)) return true;
  const kept = parts.filter((part): part is Record<string, unknown> => part !== false);
  return kept.length === 0 ? false : kept.length === 1 ? kept[0]! : { $or: kept };
}
