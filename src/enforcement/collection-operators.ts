/**
 * `$some`, `$none` and `$every` in a where clause given to req.em, over the rows the ability may
 * read: MikroORM builds their subqueries without asking for filters, so each gets the read
 * condition R of the collection's entity written in, at any depth:
 *
 * - `$some: X` is `$some: { $and: [R, X] }`: some readable item is X;
 * - `$none: X` is `$none: { $and: [R, X] }`: no readable item is X;
 * - `$every` is refused (a TypeError): see `limited`.
 */
import { Utils } from '@mikro-orm/core';
import type { EntityMetadata } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { readCondition, type Binding } from './access-conditions.js';

/** The read condition of an entity's rows, or undefined for an entity every ability reads (`public`). */
type ConditionOf = (meta: EntityMetadata) => object | undefined;

/** `where` on `meta`'s rows, each collection operator in it limited to the rows `binding` may read. */
export function withReadConditions(
  where: unknown,
  meta: EntityMetadata,
  binding: Binding,
  em: SqlEntityManager,
): unknown {
  const conditionOf: ConditionOf = (target) =>
    binding.open.has(target.className) ? undefined : readCondition(binding, binding.bound, target, em);
  return limited(where, meta, conditionOf);
}

type Where = Record<string, unknown>;

function limited(where: unknown, meta: EntityMetadata, conditionOf: ConditionOf): unknown {
  if (Array.isArray(where)) return where.map((part) => limited(part, meta, conditionOf));
  if (!Utils.isPlainObject(where)) return where;
  const out: Where = {};
  for (const [key, value] of Object.entries(where as Where)) {
    if (key === '$every') {
      // Over the readable items it would be `$none: { $and: [R, { $not: X }] }`, but MikroORM 6.6 reads
      // a primary-key test under that `$not` against the outer table (`not (e0.id > 2)`), which
      // answers wrongly; so req.em does not take `$every` rather than answer wrongly.
      throw new TypeError('req.em does not take $every: write it as $none of the items that fail the test');
    }
    if (key === '$some' || key === '$none') {
      collection(out, key, limited(asCondition(value, meta), meta, conditionOf), conditionOf(meta));
    } else if (key === '$and' || key === '$or' || key === '$not') {
      out[key] = limited(value, meta, conditionOf);
    } else {
      const target = (meta.properties as Record<string, { targetMeta?: EntityMetadata } | undefined>)[key]?.targetMeta;
      // A relation's condition is on its entity's rows: the operators there are over its items.
      out[key] = target && Utils.isPlainObject(value) ? limited(value, target, conditionOf) : value;
    }
  }
  return out;
}

const LOGICAL = new Set(['$and', '$or', '$not']);

/**
 * A condition on the rows: MikroORM writes a test of the primary key alone as the test itself
 * (`{ id: { $gt: 2 } }` is `{ $gt: 2 }`, `{ id: 4 }` is `4`), which `$and` would not read as one.
 */
function asCondition(value: unknown, meta: EntityMetadata): unknown {
  const keys = Utils.isPlainObject(value) ? Object.keys(value as Where) : undefined;
  const operators =
    keys !== undefined && keys.length > 0 && keys.every((key) => key.startsWith('$') && !LOGICAL.has(key));
  return keys === undefined || operators ? { [meta.primaryKeys[0]!]: value } : value;
}

function collection(out: Where, key: '$some' | '$none', inner: unknown, read: object | undefined): void {
  if (!read) {
    out[key] = inner;
    return;
  }
  if (key === '$some') {
    out['$some'] = { $and: [read, inner] };
    return;
  }
  out['$none'] = { $and: [read, inner] };
}
