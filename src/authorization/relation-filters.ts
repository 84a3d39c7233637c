/**
 * How a test on a path through relations becomes a MikroORM filter that means what CASL means.
 *
 * CASL reads `project.members.user_id` on the loaded object by walking it: a to-one relation
 * leads to its entity, a to-many one to all of its elements (flattened, through further
 * relations too), and the test holds when it holds for SOME value reached: `$eq`, `$in` and the
 * order operators ask "is there a member whose user_id …", and `$ne`, `$nin`, `$not` and
 * inverted rules are their negations: "no member whose user_id …" (an empty collection has none).
 * `$elemMatch` asks for one element meeting its whole condition.
 *
 * A NULL to-one relation before the first to-many one breaks the walk: CASL then compares
 * nothing, which `$eq`, `$in`, `$lt`, `$lte`, `$gt`, `$gte` and `$elemMatch` never hold for and
 * the negations hold for (matcher.ts: comparisons are strict by type). A NULL to-one relation
 * after a to-many one only drops that element.
 *
 * In SQL: a to-one relation is a join (`{ project: { … } }`) guarded by the target's primary key,
 * so that a left-joined NULL row never passes for an entity whose columns are NULL; a to-many one is
 * `$some` (`id IN (subquery)`), and its negation `$none` (`NOT IN`), never a join whose NULLs three-
 * valued logic would drop or keep.
 */
import type { EntityMetadata } from '@mikro-orm/core';
import type { Relation } from './relation-walks.js';

export type Query = boolean | Record<string, unknown>;

/** A filter on an entity of `meta` that every row passes: its primary key is not NULL. */
export const every = (meta: EntityMetadata): Record<string, unknown> =>
  Object.fromEntries(meta.primaryKeys.map((key) => [key, { $ne: null }]));

/**
 * The test `terminal` (a filter on the entity at the end of `relations`, or a boolean) read through
 * `relations` as CASL reads it, negated or not. `brokenHolds`: whether the test holds where a NULL
 * to-one relation breaks the walk (the matcher compares nothing there: false for every test of ours).
 */
export function throughRelations(
  relations: Relation[],
  negate: boolean,
  brokenHolds: boolean,
  terminal: (negate: boolean) => Query,
): Query {
  if (relations.length === 0) return terminal(negate);
  const many = relations.findIndex((relation) => relation.many);
  const chain = many === -1 ? relations : relations.slice(0, many);
  if (!negate) return or([exists(relations, terminal(false)), brokenHolds && broken(chain)]);
  // Not (broken and brokenHolds, or the walk reaches a value that passes): the walk is whole and
  // reaches none (the test fails on the one value a to-one chain reaches), or it is broken.
  const none =
    many === -1
      ? within(chain, terminal(true))
      : within(chain, noElement(relations[many]!, exists(relations.slice(many + 1), terminal(false))));
  return brokenHolds ? none : or([broken(chain), none]);
}

/** Some value reached through `relations` passes `inner`. */
function exists(relations: Relation[], inner: Query): Query {
  if (relations.length === 0 || inner === false) return inner;
  const [relation, ...rest] = relations as [Relation, ...Relation[]];
  const further = exists(rest, inner);
  if (further === false) return false;
  if (relation.many) return { [relation.name]: { $some: orEvery(further, relation.target) } };
  return { [relation.name]: guarded(relation.target, further) };
}

/** No element of the collection passes `inner` (always so when `inner` is `false`). */
function noElement(collection: Relation, inner: Query): Query {
  return inner === false ? true : { [collection.name]: { $none: orEvery(inner, collection.target) } };
}

/** The to-one `chain` leads to an entity (none NULL), and it passes `inner`. */
function within(chain: Relation[], inner: Query): Query {
  if (chain.length === 0 || inner === false) return inner;
  const [relation, ...rest] = chain as [Relation, ...Relation[]];
  const further = within(rest, inner);
  return further === false ? false : { [relation.name]: guarded(relation.target, further) };
}

/** Some relation of the to-one `chain` is NULL. */
function broken(chain: Relation[]): Query {
  if (chain.length === 0) return false;
  const [relation, ...rest] = chain as [Relation, ...Relation[]];
  const further = broken(rest);
  return or([{ [relation.name]: null }, further !== false && { [relation.name]: guarded(relation.target, further) }]);
}

/**
 * `inner` on a to-one relation's entity, which must be there: a left join gives a NULL relation a
 * row of NULLs, which `{ archived: null }` or a `$none` would pass. A `$some` alone needs no guard:
 * a NULL key is in no subquery.
 */
function guarded(target: EntityMetadata, inner: Query): Record<string, unknown> {
  if (inner === true) return every(target);
  const keys = Object.keys(inner as object);
  const some = keys.length === 1 && (inner as Record<string, { $some?: unknown }>)[keys[0]!]?.$some !== undefined;
  if (some) return inner as Record<string, unknown>;
  return and([every(target), inner]) as Record<string, unknown>;
}

/** `inner` for a collection's elements: `true` (any element) as a filter every element passes. */
const orEvery = (inner: Query, target: EntityMetadata) => (inner === true ? every(target) : inner);

/** AND, with `true` dropped and `false` absorbing (MikroORM would drop an empty branch, not honour it). */
export function and(parts: Query[]): Query {
  if (parts.includes(false)) return false;
  const kept = parts.filter((part): part is Record<string, unknown> => part !== true);
  return kept.length === 0 ? true : kept.length === 1 ? kept[0]! : { $and: kept };
}

/** OR, with `false` dropped and `true` absorbing. */
export function or(parts: (Query | false)[]): Query {
  if (parts.includes(true)) return true;
  const kept = parts.filter((part): part is Record<string, unknown> => part !== false);
  return kept.length === 0 ? false : kept.length === 1 ? kept[0]! : { $or: kept };
}
