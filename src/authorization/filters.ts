/**
 * `auth.accessibleBy(user, action, subjectType)`: the rows a user's ability allows, as a MikroORM
 * filter. Each rule's conditions are translated once (condition-query.ts), and the rules nest in
 * CASL's priority order (priority-query.ts): a granting rule makes `(earlier OR grant)` and an
 * inverted one `(earlier AND NOT refusal)`, so the filter grows with the number of rules. CASL's
 * own `rulesToAST` bounds each grant by every refusal above it instead, which repeats each refusal
 * once per grant below it: 100 rules in 10 roles made a filter of 84 KB and more.
 *
 * With the entity's metadata (`{ em }`), the rules' literal values are checked against the
 * columns' types the first time an ability meets the entity (rule-values.ts), and a placeholder's
 * value of another type than its column matches as the in-memory matcher has it, never through
 * the database's coercion (condition-query.ts).
 */
import type { EntityMetadata, MetadataStorage } from '@mikro-orm/core';
import type { AppAbility } from './ability-types.js';
import { conditionToQuery } from './condition-query.js';
import { UnsupportedCondition } from './unsupported-condition.js';
import { byPartition, type PartitionRule } from './partition-query.js';
import { byPriority } from './priority-query.js';
import type { Query } from './relation-filters.js';
import type { RoleDefinition } from './role-rules.js';
import { assertRoleValues } from './rule-values.js';
import { ScopedAbility } from './scoped-ability.js';

/** A MikroORM filter: `{ $and | $or: [...] }` and `{ property: value | { $op: value } }`. */
export type AccessFilter = Record<string, unknown>;

/** What the filter reads of a CASL rule (a plain copy of one, within a partition: partition-query.ts). */
interface FilterRule extends PartitionRule {
  origin: object;
}

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

/**
 * The filter for `ability`'s rows of `subjectType` for `action`. `describe` names a rule (its
 * role and position) for the TypeError an unsupported condition raises; the options give the
 * entity's primary key and metadata; `roles`, the roles as defined, whose values are checked
 * against the entity's columns when the metadata is known (rule-values.ts).
 */
export function accessFilter(
  ability: AppAbility,
  action: string,
  subjectType: string,
  describe: (rule: object) => string,
  options: AccessibleByOptions = {},
  roles?: () => readonly RoleDefinition[],
): AccessFilter {
  const call = `accessibleBy(${JSON.stringify(action)}, ${JSON.stringify(subjectType)})`;
  const meta = options.em && metadataOf(options.em, options.entity ?? subjectType);
  if (meta && roles) assertRoleValues(call, roles(), subjectType, meta);
  const primaryKey = options.primaryKey ?? meta?.primaryKeys[0] ?? 'id';
  // A scoped token: the owner's rows that its scopes allow too (scoped-ability.ts).
  if (ability instanceof ScopedAbility) {
    return {
      $and: [ability.owner, ability.scopes].map((part) => accessFilter(part, action, subjectType, describe, options)),
    };
  }
  const key = `${action}\u0000${subjectType}\u0000${primaryKey}`;
  const memo = built.get(ability)?.get(key);
  if (memo && memo.meta === meta) return structuredClone(memo.filter);
  const filter = buildFilter(ability, action, subjectType, call, describe, meta, primaryKey);
  remember(ability, key, { meta, filter });
  return structuredClone(filter);
}

/**
 * Filters built, by ability and (action, subject type, primary key), with the metadata they were
 * built with. A user's ability is cached (abilities.ts) and its rules do not change, so a request
 * of the same user pays a lookup and a copy (callers and MikroORM may change what they are given),
 * not the translation of every rule; `ability.update()` forgets them.
 */
const built = new WeakMap<AppAbility, Map<string, Built>>();

interface Built {
  meta: EntityMetadata | undefined;
  filter: AccessFilter;
}

function remember(ability: AppAbility, key: string, entry: Built): void {
  let filters = built.get(ability);
  if (!filters) {
    built.set(ability, (filters = new Map()));
    ability.on('updated', () => built.delete(ability));
  }
  filters.set(key, entry);
}

function buildFilter(
  ability: AppAbility,
  action: string,
  subjectType: string,
  call: string,
  describe: (rule: object) => string,
  meta: EntityMetadata | undefined,
  primaryKey: string,
): AccessFilter {
  const translate = (rule: FilterRule): Query => {
    try {
      if (!rule.ast) throw new UnsupportedCondition('its conditions are code, with no SQL form');
      // A refusal takes away the rows it matches: its negation.
      return conditionToQuery(rule.ast, rule.inverted, meta);
    } catch (error) {
      if (!(error instanceof UnsupportedCondition)) throw error;
      throw new TypeError(`${call}: ${describe(rule.origin)}: ${error.message}`);
    }
  };
  const rules: readonly FilterRule[] = ability.rulesFor(action, subjectType);
  const nest = (some: readonly FilterRule[]) => byPriority(some, translate);
  const query = byPartition(rules, meta, nest) ?? nest(rules);
  return query === true ? all(primaryKey) : query === false ? none(primaryKey) : query;
}

function metadataOf(
  em: { getMetadata(): MetadataStorage },
  entity: string | { readonly name: unknown },
): EntityMetadata {
  const name = typeof entity === 'string' ? entity : String(entity.name);
  const meta = em.getMetadata().find(name);
  if (!meta)
    throw new TypeError(
      `accessibleBy: the EntityManager knows no entity named "${name}" (pass { entity } when the subject type is not the entity's name)`,
    );
  return meta;
}
