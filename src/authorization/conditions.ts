/**
 * How rule conditions are read: CASL's MongoDB-style operators, plus `$and`, `$or`, `$nor` and
 * `$not`, which CASL leaves out by default (it would read `{ $or: [...] }` as a property named
 * "$or" and grant nothing), and `$where` for the policy functions (refused in role rules).
 */
import { buildMongoQueryMatcher } from '@casl/ability';
import { $and, $nor, $not, $or, $where, nor, not, or, where } from '@ucast/mongo2js';

export const conditionsMatcher: ReturnType<typeof buildMongoQueryMatcher> = buildMongoQueryMatcher({ $and, $or, $nor, $not, $where }, { or, nor, not, where });

const OPERATORS = new Set(['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$nin', '$all', '$size', '$regex', '$options', '$elemMatch', '$exists', '$and', '$or', '$nor', '$not']);

/** Throws a TypeError, saying where, if the conditions cannot be read (`{ $or: 'x' }`, `{ $in: 3 }`). */
export function assertReadableConditions(conditions: object, where: string): void {
  const unknown = unknownOperator(conditions);
  if (unknown) throw new TypeError(`${where}: unknown operator ${unknown} in the conditions`);
  try {
    conditionsMatcher(conditions as never);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new TypeError(`${where}: the conditions cannot be read: ${NOT_OVER_CONDITIONS.test(message) ? NOT_OVER_CONDITIONS_HINT : message}`);
  }
}

/**
 * `{ $not: { team: 'north' } }`: MongoDB's `$not`, and so CASL's, negates one field's test, not
 * whole conditions, and ucast says so in its own terms. Said in the rule's terms, with the form
 * that negates whole conditions.
 */
const NOT_OVER_CONDITIONS = /operator "\$not" in "document" context/;
const NOT_OVER_CONDITIONS_HINT =
  '$not applies to one field, as in { "team": { "$not": { "$eq": "north" } } }; to negate whole conditions, use { "$nor": [{ "team": "north" }] }';

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
