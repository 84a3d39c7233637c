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
 * - `$lt`, `$lte`, `$gt`, `$gte` (numbers only): `null` is not ordered (matcher.ts compares
 *   strictly by type), so only their negations match it.
 *
 * Dotted paths through relations and `$elemMatch` on a to-many relation need the entity's metadata
 * (`{ em }`): relation-filters.ts says how they are translated. Other operators (`$regex`,
 * `$exists`, `$size`, `$all`, `$mod`), names that begin with `$`, strings compared by order (a
 * database collation orders them otherwise than JavaScript) and named policies have no faithful SQL
 * form here: `accessibleBy` throws a TypeError naming the role and the rule. Rules compare property
 * names of the entity, with values of the property's type (a number for a number column).
 */
import { rulesToAST } from '@casl/ability/extra';
import type { EntityMetadata, MetadataStorage } from '@mikro-orm/core';
import { CompoundCondition, createInterpreter, ITSELF, type Condition, type FieldCondition } from '@ucast/mongo2js';
import type { AppAbility } from './abilities.js';
import { and, or, throughRelations, type Query } from './relation-filters.js';
import { isScalar, MAX_RELATIONS, walkPath, type Relation } from './relation-paths.js';
import { ScopedAbility } from './scoped-ability.js';

/** A MikroORM filter: `{ $and | $or: [...] }` and `{ property: value | { $op: value } }`. */
export type AccessFilter = Record<string, unknown>;

/** The options of `auth.accessibleBy`. */
export interface AccessibleByOptions {
  /** The entity's primary key property, which the filters for every row and for none name; default `id` (or the metadata's). */
  primaryKey?: string;
  /**
   * The EntityManager (or MikroORM) whose metadata says which properties are relations, to-one or
   * to-many: needed for rules with dotted paths or `$elemMatch`, and checks every property a rule names.
   */
  em?: { getMetadata(): MetadataStorage };
  /** The entity the filter is for (its class, schema or name), when its name is not the subject type; used with `em`. */
  entity?: string | { readonly name: unknown };
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

type Primitive = string | number | boolean | null;

export class UnsupportedCondition extends Error {}

/** What a condition is read on: the entity's metadata, if known, and how many relations led there. */
interface Scope {
  meta: EntityMetadata | undefined;
  depth: number;
}

const COMPLEMENT = { lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' } as const;
type Order = keyof typeof COMPLEMENT;
/** Whether the matcher's comparison of a `null` field with `bound` holds: never, comparisons are strict by type (matcher.ts). */
const NULL_ORDER: Record<Order, (bound: number) => boolean> = { lt: () => false, lte: () => false, gt: () => false, gte: () => false };

function order(op: Order, node: FieldCondition, negate: boolean, scope: Scope): Query {
  const bound = node.value;
  return onField(node, negate, scope, false, (name, negate) => {
    if (typeof bound !== 'number' || !Number.isFinite(bound)) {
      throw new UnsupportedCondition(`$${op} compares numbers only (strings are ordered by the database's collation, not as in JavaScript)`);
    }
    const nullMatches = NULL_ORDER[op](bound) !== negate;
    return or([{ [name]: { [`$${negate ? COMPLEMENT[op] : op}`]: bound } }, nullMatches && { [name]: null }]);
  });
}

function equal(node: FieldCondition, negate: boolean, scope: Scope): Query {
  return onField(node, negate, scope, false, (name, negate) => {
    const value = primitive(node.value);
    if (value === null) return { [name]: negate ? { $ne: null } : null };
    return negate ? { $or: [{ [name]: { $ne: value } }, { [name]: null }] } : { [name]: value };
  });
}

function within(node: FieldCondition, negate: boolean, scope: Scope): Query {
  return onField(node, negate, scope, false, (name, negate) => {
    if (!Array.isArray(node.value)) throw new UnsupportedCondition('$in and $nin take a list');
    const values = node.value.map(primitive);
    const items = [...new Set(values.filter((value) => value !== null))];
    const nullMatches = values.includes(null) !== negate;
    const nonNull = items.length === 0 ? negate && { [name]: { $ne: null } } : { [name]: { [negate ? '$nin' : '$in']: items } };
    return or([nonNull, nullMatches && { [name]: null }]);
  });
}

/** `{ 'project.members': { $elemMatch: condition } }`: some element of the collection meets the whole condition. */
function elementMatch(node: FieldCondition, negate: boolean, scope: Scope, interpret: Interpret): Query {
  const relations = follow(node, scope, 'collection');
  const inner: Scope = { meta: relations.at(-1)!.target, depth: scope.depth + relations.length };
  return throughRelations(relations, negate, false, (negate) => interpret(node.value as Condition, negate, inner));
}

type Interpret = (node: Condition, negate: boolean, scope: Scope) => Query;
type Translate = (node: Condition, negate: boolean, scope: Scope, context: { interpret: Interpret }) => Query;
const children = (node: Condition) => (node as CompoundCondition).value;
const leaf = (node: Condition) => node as FieldCondition;

const TRANSLATIONS: Record<string, Translate> = {
  and: (node, negate, scope, { interpret }) => (negate ? or : and)(children(node).map((child) => interpret(child, negate, scope))),
  or: (node, negate, scope, { interpret }) => (negate ? and : or)(children(node).map((child) => interpret(child, negate, scope))),
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
    throw new UnsupportedCondition(node.operator === 'where' ? 'a named policy is code, with no SQL form' : `the operator $${node.operator} has no SQL form here`);
  },
};

const translate = createInterpreter(TRANSLATIONS, {
  numberOfArguments: 3,
  getInterpreterName: (condition: Condition) => (Object.hasOwn(TRANSLATIONS, condition.operator) ? condition.operator : 'unsupported'),
}) as unknown as Interpret;

/** Translates one condition; throws UnsupportedCondition for what has no faithful SQL form. */
export function conditionToQuery(condition: Condition, negate = false, meta?: EntityMetadata): Query {
  return translate(condition, negate, { meta, depth: 0 });
}

/**
 * The filter for `ability`'s rows of `subjectType` for `action`. `describe` names a rule (its
 * role and position) for the TypeError an unsupported condition raises; the options give the
 * entity's primary key and metadata.
 */
export function accessFilter(ability: AppAbility, action: string, subjectType: string, describe: (rule: object) => string, options: AccessibleByOptions = {}): AccessFilter {
  const meta = options.em && metadataOf(options.em, options.entity ?? subjectType);
  const primaryKey = options.primaryKey ?? meta?.primaryKeys[0] ?? 'id';
  // A scoped token: the owner's rows that its scopes allow too (scoped-ability.ts).
  if (ability instanceof ScopedAbility) return { $and: [ability.owner, ability.scopes].map((part) => accessFilter(part, action, subjectType, describe, options)) };
  for (const rule of ability.rulesFor(action, subjectType)) {
    if (!rule.conditions) continue;
    try {
      if (!rule.ast) throw new UnsupportedCondition('its conditions are code, with no SQL form');
      conditionToQuery(rule.ast, false, meta);
    } catch (error) {
      if (!(error instanceof UnsupportedCondition)) throw error;
      throw new TypeError(`accessibleBy(${JSON.stringify(action)}, ${JSON.stringify(subjectType)}): ${describe(rule.origin)}: ${error.message}`);
    }
  }
  const condition = rulesToAST(ability, action, subjectType);
  const query = condition ? conditionToQuery(condition, false, meta) : false;
  return query === true ? all(primaryKey) : query === false ? none(primaryKey) : query;
}

function metadataOf(em: { getMetadata(): MetadataStorage }, entity: string | { readonly name: unknown }): EntityMetadata {
  const name = typeof entity === 'string' ? entity : String(entity.name);
  const meta = em.getMetadata().find(name);
  if (!meta) throw new TypeError(`accessibleBy: the EntityManager knows no entity named "${name}" (pass { entity } when the subject type is not the entity's name)`);
  return meta;
}

/** A leaf's test on its field, through the relations its path follows (CASL's meaning, see relation-filters.ts). */
function onField(node: FieldCondition, negate: boolean, scope: Scope, brokenHolds: boolean, test: (name: string, negate: boolean) => Query): Query {
  // The name first: `{ $or: [...] }` is refused for its name, not for the list it compares with.
  if (!scope.meta) return test(field(node), negate);
  const relations = follow(node, scope, 'field');
  const name = (node.field as string).split('.').at(-1)!;
  return throughRelations(relations, negate, brokenHolds, (negate) => test(name, negate));
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
    if (rest.length > 0 || !relations.at(-1)?.many) throw new UnsupportedCondition(`$elemMatch takes a path to a to-many relation (a collection), and ${named} is none`);
  } else if (rest.length !== 1) {
    throw new UnsupportedCondition(rest.length === 0 ? `${named} names a relation, not a column: compare a property through it, such as "${path}.${meta.primaryKeys[0]}"` : `${named}: "${rest[0]}" is no relation of ${meta.className}`);
  } else if (!isScalar(meta, rest[0]!)) {
    throw new UnsupportedCondition(`${named}: ${meta.className} has no column "${rest[0]}"`);
  }
  if (scope.depth + relations.length > MAX_RELATIONS) throw new UnsupportedCondition(`${named} follows more than ${MAX_RELATIONS} relations`);
  return relations;
}

function field(node: FieldCondition, dotted = false): string {
  if (typeof node.field !== 'string' || node.field === ITSELF) {
    throw new UnsupportedCondition(`"${String(node.field)}" is not a property name`);
  }
  if (node.field.includes('.') && !dotted) {
    throw new UnsupportedCondition(`"${node.field}" is a dotted path: dotted paths through relations need the entity's metadata (pass { em })`);
  }
  // Rule checks refuse unknown operators when a role is defined; this is the last line: a filter
  // cannot name a property beginning with `$`, which MikroORM would read as its own operator.
  if (node.field.split('.').some((segment) => segment.startsWith('$') || segment === '')) {
    throw new UnsupportedCondition(`"${node.field}" is not a property name a filter can use`);
  }
  return node.field;
}

function primitive(value: unknown): Primitive {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  throw new UnsupportedCondition(`${value instanceof RegExp ? 'a regular expression' : JSON.stringify(value) ?? String(value)} is not a value a column can equal`);
}
