/**
 * The comparisons of a field with values (`$eq`, `$ne`, `$in`, `$nin`, `$lt`, `$lte`, `$gt`,
 * `$gte`), each as a filter that decides as CASL's matcher does for every row, NULL included.
 * SQL's three-valued logic drops a row whose column is NULL from `col <> 1` or `col NOT IN (…)`,
 * where CASL's `$ne` and `$nin` match it; so each test takes its negation as an argument and says
 * explicitly whether NULL matches:
 *
 * - `$eq`, `$ne`, `$in`, `$nin`: by strict equality, `null` matching only `null`;
 * - `$lt`, `$lte`, `$gt`, `$gte` (numbers only): `null` is not ordered (matcher.ts compares
 *   strictly by type), so only their negations match it.
 *
 * With the column's type known, a value of another type equals nothing and orders nothing, as in
 * the matcher, never by the database's coercion (SQLite and PostgreSQL both find '1' = 1).
 */
import type { FieldCondition } from '@ucast/mongo2js';
import { fitsColumn } from './column-types.js';
import { isNull, onField, type Scope } from './condition-fields.js';
import { or, type Query } from './relation-filters.js';
import { UnsupportedCondition } from './unsupported-condition.js';

type Primitive = string | number | boolean | null;

const COMPLEMENT = { lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' } as const;
export type Order = keyof typeof COMPLEMENT;
/** Whether the matcher's comparison of a `null` field with `bound` holds: never, comparisons are strict by type (matcher.ts). */
const NULL_ORDER: Record<Order, (bound: number) => boolean> = {
  lt: () => false,
  lte: () => false,
  gt: () => false,
  gte: () => false,
};

export function order(op: Order, node: FieldCondition, negate: boolean, scope: Scope): Query {
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

export function equal(node: FieldCondition, negate: boolean, scope: Scope): Query {
  return onField(node, negate, scope, false, (name, negate, column) => {
    const value = primitive(node.value);
    // A value of another type than the column equals no row.
    if (!fitsColumn(value, column.type)) return negate;
    if (value === null) return column.nullable ? { [name]: negate ? { $ne: null } : null } : negate;
    return negate ? or([{ [name]: { $ne: value } }, isNull(name, column)]) : { [name]: value };
  });
}

export function within(node: FieldCondition, negate: boolean, scope: Scope): Query {
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
