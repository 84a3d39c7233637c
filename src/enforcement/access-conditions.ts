/**
 * What `req.em` adds to every query of an entity: the rows the bound ability may `read`, by the
 * very filter of `accessibleBy` (filters.ts), within the organization for a tenant entity.
 *
 * MikroORM applies filters to the joins a condition makes through a relation, too (its
 * `filtersOnRelations`): a rule that follows `project.members` would then be read on the members
 * the user may see, not on the project's members, and mean something other than CASL's decision.
 * So a filter that follows relations is asked as a subquery of primary keys, built without filters;
 * a filter on the entity's own columns (the common case, a tenant and an owner) is used as it is.
 */
import type { EntityManager, EntityMetadata } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import type { AbilityFactory } from '../authorization/abilities.js';
import type { AppAbility } from '../authorization/ability-types.js';
import { accessFilter, type AccessFilter } from '../authorization/filters.js';
import { orgAccessFilter, withoutOrgRules } from '../authorization/org-access.js';
import { relationHints } from '../authorization/relation-walks.js';
import { ScopedAbility } from '../authorization/scoped-ability.js';
import type { Tenant } from '../authorization/tenant.js';
import { sqlLayer } from '../storage/sql-layer.js';

/** Who `req.em` reads and writes as: the request's ability, and its organization if any. */
export interface Bound {
  ability: AppAbility;
  org: { id: number } | undefined;
}

export interface AccessDeps {
  abilities: AbilityFactory;
  tenant: Tenant;
}

/** What an enforced EntityManager is bound to, and what it needs to decide. */
export interface Binding extends AccessDeps {
  bound: Bound;
  /** Entities every ability may read and write (`auth.enforce(orm, { public })`), by class name. */
  open: ReadonlySet<string>;
}

/** The filters built for an ability, by organization and entity: built once, copied for each query. */
const built = new WeakMap<AppAbility, Map<string, { filter: AccessFilter; flat: AccessFilter | undefined }>>();

/** Whether `meta` has the tenant field: an organization's rows are told apart by it. */
export function isTenantEntity(deps: AccessDeps, meta: EntityMetadata): boolean {
  return Object.hasOwn(meta.properties, deps.tenant.fieldOf(meta.className));
}

/**
 * The ability that decides about `meta`'s rows in the bound organization: the ability itself, or
 * for an entity without the tenant field, its global rules alone (an organization
 * role's rules are bound by the tenant field, and so reach only rows that have it).
 */
export function decidingAbility(deps: AccessDeps, bound: Bound, meta: EntityMetadata): AppAbility {
  if (!bound.org || isTenantEntity(deps, meta)) return bound.ability;
  return withoutOrgRules(deps.abilities, bound.ability, 'every');
}

/** The condition on `meta`'s rows: readable by the bound ability (or, given `action`, those it may do that to). */
export function readCondition(
  deps: AccessDeps,
  bound: Bound,
  meta: EntityMetadata,
  em: EntityManager, // MikroORM's SQL one; core's type keeps the SQL layer's package out of the published types
  action = 'read',
): AccessFilter {
  const key = `${bound.org?.id ?? ''}:${meta.className}:${action}`;
  let byEntity = built.get(bound.ability);
  if (!byEntity) built.set(bound.ability, (byEntity = new Map()));
  let entry = byEntity.get(key);
  if (!entry) {
    const ability = decidingAbility(deps, bound, meta);
    const options = { em, entity: meta.className };
    const describe = (rule: object) => deps.abilities.describe(rule);
    const filter =
      bound.org && isTenantEntity(deps, meta)
        ? orgAccessFilter(deps.abilities, deps.tenant, { ability, org: bound.org }, action, meta.className, options)
        : accessFilter(ability, action, meta.className, describe, options, () => deps.abilities.definitions());
    const follows = followsRelations(ability, meta, action);
    const flat = follows ? undefined : flatten(structuredClone(filter), meta.primaryKeys[0]!);
    entry = { filter, flat };
    byEntity.set(key, entry);
  }
  // MikroORM may change a condition it is handed: each query gets its own copy.
  const { flat } = entry;
  if (flat) {
    const copy = (test: unknown): unknown => (test !== null && typeof test === 'object' ? { ...test } : test);
    return Object.fromEntries(Object.entries(flat).map(([name, test]) => [name, copy(test)]));
  }
  const primaryKey = meta.primaryKeys[0]!;
  // The subquery is built on the same EntityManager's query builder (not its public method, which
  // req.em refuses), and no filter is applied to it: it reads the rows as they are.
  const createQueryBuilder = Object.getPrototypeOf(Object.getPrototypeOf(em))
    .createQueryBuilder as SqlEntityManager['createQueryBuilder'];
  const rows = createQueryBuilder
    .call(em as SqlEntityManager, meta.className, 'service_auth_access')
    .select(primaryKey)
    .where(structuredClone(entry.filter));
  return { [primaryKey]: { $in: sqlLayer.subquery(rows) } };
}

/**
 * The filter as one object of column tests (`{ org_id: 3, owner_id: { $ne: null } }`), or
 * undefined when it is not one: MikroORM merges the parts of an `$and` by column in the ON clause
 * of a join it filters (`{ $and: [{ id: null }, { id: { $ne: null } }] }` became `id IS NOT NULL`),
 * and writes an empty `$in` there as `in ()`, which PostgreSQL refuses. So "no row" (a primary key
 * in an empty list) absorbs an `$and` and is said as a primary key that is NULL, and anything else
 * than distinct columns is asked as a subquery.
 */
function flatten(filter: AccessFilter, primaryKey: string): AccessFilter | undefined {
  if (isNone(filter, primaryKey)) return { [primaryKey]: null };
  const parts =
    Array.isArray(filter['$and']) && Object.keys(filter).length === 1 ? (filter['$and'] as AccessFilter[]) : [filter];
  const flat: AccessFilter = {};
  for (const part of parts.length === 1 ? parts : parts.map((inner) => flatten(inner, primaryKey))) {
    if (!part) return undefined;
    if (isNone(part, primaryKey)) return { [primaryKey]: null };
    for (const [key, value] of Object.entries(part)) {
      if (key.startsWith('$') || Object.hasOwn(flat, key) || !isColumnTest(value)) return undefined;
      flat[key] = value;
    }
  }
  return flat;
}

const isNone = (filter: AccessFilter, primaryKey: string): boolean => {
  const value = filter[primaryKey] as { $in?: unknown } | null | undefined;
  if (Object.keys(filter).length !== 1) return false;
  return value === null || (typeof value === 'object' && Array.isArray(value?.$in) && value.$in.length === 0);
};

/** A value, or operators on values: not a relation's nested condition. */
function isColumnTest(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return false;
  const isValue = (inner: unknown): boolean => inner === null || typeof inner !== 'object' || Array.isArray(inner);
  return Object.entries(value).every(([key, inner]) => key.startsWith('$') && isValue(inner));
}

/** Whether a rule for `action` on `meta` follows a relation (a dotted path or `$elemMatch`). */
function followsRelations(ability: AppAbility, meta: EntityMetadata, action: string): boolean {
  const parts = ability instanceof ScopedAbility ? [ability.owner, ability.scopes] : [ability];
  const follows = (part: AppAbility): boolean =>
    part.possibleRulesFor(action, meta.className).some((rule) => rule.ast && relationHints(meta, rule.ast).size > 0);
  return parts.some(follows);
}
