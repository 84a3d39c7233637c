/**
 * How rule conditions are read on the server: matcher.ts's semantics (when a rule applies; CASL's
 * MongoDB-style operators, plus `$and`, `$or`, `$nor` and `$not`, which CASL leaves out by
 * default, and `$where` for the policy functions, refused in role rules), with dotted paths
 * through MikroORM entities' relations as through plain objects.
 */
import { helper, Reference, Utils } from '@mikro-orm/core';
import { createConditionsMatcher, type ConditionsMatcher } from './matcher.js';

/**
 * One step of a dotted path (`project.members.user_id`), as CASL takes it, on plain objects and
 * on MikroORM entities: a collection is its array of elements and a `Reference` its entity, so
 * that CASL walks them as it walks arrays and objects. A relation that is not loaded (an entity
 * or a collection not initialized) throws rather than be read as empty: the `load` guard
 * populates what the rules name. A NULL element reached through a collection has no fields
 * (CASL's own step would throw reading it).
 */
export function step(object: Record<string, unknown> | null | undefined, field: string): unknown {
  if (object === null || object === undefined) return undefined;
  const value = object[field];
  if (value === null || typeof value !== 'object') return value;
  if (Utils.isCollection(value)) {
    if (!value.isInitialized()) throw notLoaded(object, field);
    return value.getItems();
  }
  const entity = Reference.isReference(value) ? value.unwrap() : value;
  if (Utils.isEntity(entity) && !helper(entity).__initialized) throw notLoaded(object, field);
  return entity;
}

const notLoaded = (object: object, field: string) =>
  new Error(
    `${object.constructor.name}.${field} is not loaded: populate it before checking a rule that ` +
      `follows it (the require({ load }) guard does)`,
  );

/** The abilities' matcher: when a rule applies (matcher.ts), reading paths through MikroORM's relations. */
export const conditionsMatcher: ConditionsMatcher = createConditionsMatcher(step);

const OPERATORS = new Set([
  '$eq',
  '$ne',
  '$lt',
  '$lte',
  '$gt',
  '$gte',
  '$in',
  '$nin',
  '$all',
  '$size',
  '$regex',
  '$options',
  '$elemMatch',
  '$exists',
  '$and',
  '$or',
  '$nor',
  '$not',
]);

/** Throws a TypeError, saying where, if the conditions cannot be read (`{ $or: 'x' }`, `{ $in: 3 }`). */
export function assertReadableConditions(conditions: object, where: string): void {
  const unknown = unknownOperator(conditions);
  if (unknown) throw new TypeError(`${where}: unknown operator ${unknown} in the conditions`);
  try {
    conditionsMatcher(conditions as never);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new TypeError(
      `${where}: the conditions cannot be read: ` +
        `${NOT_OVER_CONDITIONS.test(message) ? NOT_OVER_CONDITIONS_HINT : message}`,
    );
  }
}

/**
 * `{ $not: { team: 'north' } }`: MongoDB's `$not`, and so CASL's, negates one field's test, not
 * whole conditions, and ucast says so in its own terms. Said in the rule's terms, with the form
 * that negates whole conditions.
 */
const NOT_OVER_CONDITIONS = /operator "\$not" in "document" context/;
const NOT_OVER_CONDITIONS_HINT =
  '$not applies to one field, as in { "team": { "$not": { "$eq": "north" } } }; to negate ' +
  'whole conditions, use { "$nor": [{ "team": "north" }] }';

/** The first `$`-key that is no operator, at any depth (it would be read as a value to equal). */
function unknownOperator(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.startsWith('$') && !OPERATORS.has(key)) return key;
    const inner = unknownOperator(item);
    if (inner) return inner;
  }
  return undefined;
}
