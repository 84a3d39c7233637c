/**
 * The rows a flush through req.em updates or deletes, as they were: as they are in the database,
 * in the flush's transaction, with the relations the rules follow from them (flush-check.ts
 * decides on them).
 */
import { helper, ReferenceKind, Utils } from '@mikro-orm/core';
import type { ChangeSet, EntityManager, EntityMetadata } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { relationHints } from '../authorization/relation-walks.js';
import { ScopedAbility } from '../authorization/scoped-ability.js';
import { sqlLayer } from '../storage/sql-layer.js';
import { decidingAbility, isTenantEntity } from './access-conditions.js';
import { readByItself, type Binding } from './bindings.js';
import { expecting } from './conditional-writes.js';

export type Row = Record<string, unknown>;
export type Action = 'create' | 'update' | 'delete';

export const ACTIONS: Record<string, Action> = {
  create: 'create',
  update: 'update',
  update_early: 'update',
  delete: 'delete',
  delete_early: 'delete',
};
export const TO_ONE: string[] = [ReferenceKind.MANY_TO_ONE, ReferenceKind.ONE_TO_ONE];

/** What the rules for `action` on `meta`'s rows read: the relations they follow, and the properties of the row itself. */
export interface RuleReads {
  hints: string[];
  props: string[];
  /** `props` as a set. */
  reads: ReadonlySet<string>;
  /** The flush check's deciders by field, made on first use (flush-check.ts): kept with the ability, across flushes. */
  deciders: Map<string | undefined, (row: Row) => boolean>;
}

/** The relations the rules for `action` on `meta`'s rows follow: every rule that may decide, those limited to fields included. */
export function ruleHints(binding: Binding, meta: EntityMetadata, action: Action): string[] {
  return ruleReads(binding, meta, action).hints;
}

export function ruleReads(binding: Binding, meta: EntityMetadata, action: Action): RuleReads {
  const ability = decidingAbility(binding, binding.bound, meta);
  const key = `${action} ${meta.className}`;
  let known = readsOf.get(ability);
  if (!known) readsOf.set(ability, (known = new Map()));
  const held = known.get(key);
  if (held) return held;
  const hints = new Set<string>();
  const props = new Set<string>();
  for (const part of ability instanceof ScopedAbility ? [ability.owner, ability.scopes] : [ability]) {
    for (const rule of part.possibleRulesFor(action, meta.className)) {
      if (!rule.ast) continue;
      relationHints(meta, rule.ast, '', hints);
      for (const field of fieldsOf(rule.ast)) props.add(field.split('.')[0]!);
    }
  }
  const names = [...props].filter((name) => Object.hasOwn(meta.properties, name));
  const reads = { hints: [...hints], props: names, reads: new Set(names), deciders: new Map() };
  known.set(key, reads);
  return reads;
}

/** What each ability's rules read, by action and entity: asked for every row of a flush. */
const readsOf = new WeakMap<object, Map<string, RuleReads>>();

/** The fields a rule's condition names (a compound's, each of its parts'). */
function fieldsOf(condition: unknown, fields: string[] = []): string[] {
  const { field, value } = condition as { field?: unknown; value?: unknown };
  if (typeof field === 'string') fields.push(field);
  else if (Array.isArray(value)) for (const part of value) fieldsOf(part, fields);
  else if (value && typeof value === 'object' && 'operator' in value) fieldsOf(value, fields);
  return fields;
}

/**
 * The rows the flush updates or deletes, as they are in the database, in the flush's transaction
 * (locked with `FOR UPDATE` where the database has it): never as the request holds them, since
 * another writer may have changed a row since req.em read it, and an entity can be merged or
 * referenced without being read. One query per entity reads the columns the rules read (and the
 * tenant field); a row req.em read itself that still holds there what it read is taken as it read
 * it (when the rules follow no relation from it: the decision reads nothing else of it); any other
 * is read again as an entity, with the relations the rules follow. `again`: none is taken as read
 * and written conditionally (asked when such a write missed a row).
 */
export async function rowsAsTheyAre(
  binding: Binding,
  plain: () => EntityManager,
  changeSets: ChangeSet<object>[],
  { again = false } = {},
): Promise<{ rows: (Row | undefined)[]; keys: unknown[] }> {
  const byType = new Map<string, { meta: EntityMetadata; indexes: number[]; hints: Set<string> }>();
  let entry: { meta: EntityMetadata; indexes: number[]; hints: Set<string> } | undefined;
  for (let i = 0; i < changeSets.length; i++) {
    const change = changeSets[i]!;
    const action = ACTIONS[change.type];
    if (action !== 'update' && action !== 'delete') continue;
    const meta = change.meta as EntityMetadata;
    // Rows of one entity come together: the last one's entry is tried first.
    if (entry?.meta !== meta) {
      if (binding.open.has(meta.className)) continue;
      entry = byType.get(meta.className);
      if (!entry) byType.set(meta.className, (entry = { meta, indexes: [], hints: new Set<string>() }));
    }
    entry.indexes.push(i);
  }
  // By the index of each change set (a row is not looked up by its entity: a flush of many rows asks for each).
  const rows: (Row | undefined)[] = new Array(changeSets.length);
  // The key each row is written by (the change set's), where asked for: the flush check needs it again.
  const keys: unknown[] = new Array(changeSets.length);
  for (const [type, { meta, indexes, hints }] of byType) {
    if (meta.primaryKeys.length !== 1)
      throw new TypeError(`req.em cannot check a write of ${type}: its primary key is composite`);
    const read = new Set<string>();
    for (const action of new Set(indexes.map((i) => ACTIONS[changeSets[i]!.type]!))) {
      const reads = ruleReads(binding, meta, action);
      for (const hint of reads.hints) hints.add(hint);
      for (const name of reads.props) read.add(name);
    }
    // The decision reads these columns of the row, and the tenant field: only they need be as req.em read them.
    if (binding.bound.org && isTenantEntity(binding, meta)) read.add(binding.tenant.fieldOf(type));
    const decisive = hints.size === 0 ? columnsOf(meta).filter((prop) => read.has(prop.name)) : [];
    // A row req.em read itself is decided on as it read it, and written only if it still is so (conditional-writes.ts).
    // Not `again`, when a conditional write did not find a row: then every row is read as it now is.
    const expect = !again && hints.size === 0 && decisive.every(conditionable) ? expecting(meta, decisive) : undefined;
    if (expect) {
      for (const i of indexes) {
        const change = changeSets[i]!;
        const key = (keys[i] = change.getPrimaryKey());
        const known = asRead(change, decisive);
        if (!known) continue;
        // A copy: what is decided on and what the write must find are the same values, whatever changes the entity's.
        const held = { ...known };
        if (expect(key, held)) rows[i] = held;
      }
    }
    const unsure = indexes.filter((i) => rows[i] === undefined).map((i) => changeSets[i]!);
    if (unsure.length === 0) continue;
    const now = await columnsAsTheyAre(plain() as SqlEntityManager, meta, unsure, decisive);
    const byEntity = new Map<object, Row>();
    const changes = unsure.filter((change) => {
      const current = now.get(change.entity);
      if (!current) return false;
      const known = hints.size === 0 ? asRead(change, decisive) : undefined;
      const same = (prop: EntityMetadata['props'][number]): boolean =>
        Utils.equals(known?.[prop.name], current[prop.name]);
      if (known && decisive.every(same)) byEntity.set(change.entity, known);
      return !byEntity.has(change.entity);
    });
    if (changes.length > 0) {
      const primaryKey = meta.primaryKeys[0]!;
      const keys = changes.map((change) => change.getPrimaryKey());
      const found = await plain().find(type, { [primaryKey]: { $in: keys } } as never, {
        populate: [...hints] as never,
        filters: false,
      });
      const byKey = new Map(found.map((row) => [String(helper(row).getPrimaryKey()), row as Row]));
      for (const change of changes) {
        const row = byKey.get(String(change.getPrimaryKey()));
        if (row) byEntity.set(change.entity, row);
      }
    }
    for (const i of indexes) rows[i] ??= byEntity.get(changeSets[i]!.entity);
  }
  return { rows, keys };
}

/**
 * The key and the columns `props` of the changed rows, by key, read in the flush's transaction by the key each has in
 * the database (the change set's original one, which MikroORM's UPDATE and DELETE name, not the
 * entity's: a body may have set it). `FOR UPDATE` holds them until the flush commits, so that no
 * other writer changes them between the check and the write; SQLite has no row locks, and needs
 * none: its one connection runs one transaction at a time.
 */
async function columnsAsTheyAre(
  em: SqlEntityManager,
  meta: EntityMetadata,
  changes: ChangeSet<object>[],
  props: EntityMetadata['props'],
): Promise<Map<object, Row>> {
  const primaryKey = meta.properties[meta.primaryKeys[0]! as never] as EntityMetadata['props'][number];
  const platform = em.getPlatform();
  const keys = changes.map((change) => {
    const key = change.getPrimaryKey();
    return primaryKey.customType ? primaryKey.customType.convertToDatabaseValue(key, platform) : key;
  });
  // The SQL layer's own query, with its bindings: MikroORM's query builder takes longer over a list
  // of keys than the query itself, and MikroORM 6's execute() writes every key into the SQL text.
  const table = meta.schema && meta.schema !== '*' ? `${meta.schema}.${meta.tableName}` : meta.tableName;
  const columns = [primaryKey, ...props].flatMap((prop) => prop.fieldNames);
  const forUpdate = !/sqlite/i.test(platform.constructor.name);
  const found = await sqlLayer.rowsByKeys(em, table, columns, primaryKey.fieldNames[0]!, keys, { forUpdate });
  const byKey = new Map(found.map((row) => [String(row[primaryKey.fieldNames[0]!]), row]));
  const rows = new Map<object, Row>();
  changes.forEach((change, i) => {
    const row = byKey.get(String(keys[i]));
    if (row) rows.set(change.entity, em.getDriver().mapResult(row, meta) as Row);
  });
  return rows;
}

const isColumn = (prop: EntityMetadata['props'][number]): boolean =>
  prop.kind === ReferenceKind.SCALAR || (TO_ONE.includes(prop.kind) && prop.owner);

/** A column whose value req.em holds as the database does, so a write can be conditioned on it: no conversion, one column. */
const conditionable = (prop: EntityMetadata['props'][number]): boolean =>
  !prop.customType &&
  prop.fieldNames.length === 1 &&
  (prop.kind === ReferenceKind.SCALAR || !prop.targetMeta?.compositePK);

const columns = new WeakMap<EntityMetadata, EntityMetadata['props']>();

/** The properties of `meta` that are columns of its table. */
function columnsOf(meta: EntityMetadata): EntityMetadata['props'] {
  let held = columns.get(meta);
  if (!held) columns.set(meta, (held = meta.props.filter(isColumn)));
  return held;
}

/** The row as req.em read it from the database in this request, if it did, the columns `props` included. */
function asRead(change: ChangeSet<object>, props: EntityMetadata['props']): Row | undefined {
  const wrapped = helper(change.entity);
  const original = wrapped.__originalEntityData as Row | undefined;
  if (!original || !wrapped.__initialized || !readByItself(change.entity)) return undefined;
  // Not a copy: what a write is conditioned on is copied by rowsAsTheyAre.
  for (const prop of props) if (!Object.hasOwn(original, prop.name)) return undefined;
  return original;
}
