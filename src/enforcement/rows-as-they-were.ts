/**
 * The rows a flush through req.em updates or deletes, as they were: as they are in the database,
 * in the flush's transaction, with the relations the rules follow from them (flush-check.ts
 * decides on them).
 */
import { helper, ReferenceKind, Utils } from '@mikro-orm/core';
import type { ChangeSet, EntityManager, EntityMetadata } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { sqlLayer } from '../storage/sql-layer.js';
import { isTenantEntity } from './access-conditions.js';
import { readByItself, type Binding } from './bindings.js';
import { expecting } from './conditional-writes.js';
import { ACTIONS, ruleReads, TO_ONE, type Action, type Row } from './rule-reads.js';

/**
 * The rows the flush updates or deletes, as they are in the database, in the flush's transaction
 * (locked with `FOR UPDATE` where the database has it): never as the request holds them, since
 * another writer may have changed a row since req.em read it, and an entity can be merged or
 * referenced without being read. A row req.em read itself (its rules following no relation from
 * it) is taken as it read it, with no query: its write is made conditional on that
 * (conditional-writes.ts). Any other is read, one query per entity for the columns the rules read
 * (and the tenant field): taken as req.em read it if it still holds that there, else read again as
 * an entity with the relations the rules follow. `again` (a row refused as read, or a conditional
 * write that missed a row): none is taken as read, and each is read as it now is.
 */
export function rowsAsTheyAre(
  binding: Binding,
  plain: () => EntityManager,
  changeSets: ChangeSet<object>[],
  { again = false } = {},
): RowsAsTheyAre | Promise<RowsAsTheyAre> {
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
  // The key each row is written by (the change set's), where asked for: the flush check needs it again.
  const found: RowsAsTheyAre = { rows: new Array(changeSets.length), keys: new Array(changeSets.length) };
  const { rows, keys } = found;
  const unsure: Unsure[] = [];
  for (const [type, { meta, indexes, hints }] of byType) {
    if (meta.primaryKeys.length !== 1)
      throw new TypeError(`req.em cannot check a write of ${type}: its primary key is composite`);
    const actions = new Set<Action>();
    for (let n = 0; n < indexes.length; n++) actions.add(ACTIONS[changeSets[indexes[n]!]!.type]!);
    const read = new Set<string>();
    for (const action of actions) {
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
    let taken = 0;
    if (expect) {
      // What the decision reads of the row as read, copied: what is decided on and what the write must find are the
      // same values, whatever changes the entity's. Rows holding the same (often all of a large flush's) share a copy.
      const decided = meta.props.filter((prop) => read.has(prop.name));
      let held: Row | undefined;
      for (let n = 0; n < indexes.length; n++) {
        const i = indexes[n]!;
        const change = changeSets[i]!;
        const key = (keys[i] = change.getPrimaryKey());
        const known = asRead(change, decisive);
        if (!known) continue;
        if (!held || !sameIn(decided, known, held)) held = copyOf(decided, known);
        if (expect(key, held)) ((rows[i] = held), taken++);
      }
    }
    if (taken < indexes.length)
      unsure.push({ type, meta, hints, decisive, indexes: indexes.filter((i) => rows[i] === undefined) });
  }
  // A promise only when a row is read: none for a flush of rows req.em read itself (each await costs a large flush).
  return unsure.length === 0 ? found : readAgain(plain, changeSets, rows, unsure).then(() => found);
}

/** The rows a flush updates or deletes (`rows`, by change set), as `rowsAsTheyAre` finds them; and the key each is written by. */
export interface RowsAsTheyAre {
  rows: (Row | undefined)[];
  keys: unknown[];
}

/** Rows of one entity that are read as they are (`indexes`, of the change sets), with what the rules read of them. */
interface Unsure {
  type: string;
  meta: EntityMetadata;
  hints: Set<string>;
  decisive: EntityMetadata['props'];
  indexes: number[];
}

/** Reads the `unsure` rows as they are, into `rows`: their columns, or the entity with what the rules follow. */
async function readAgain(
  plain: () => EntityManager,
  changeSets: ChangeSet<object>[],
  rows: (Row | undefined)[],
  unsure: Unsure[],
): Promise<void> {
  for (const { type, meta, hints, decisive, indexes } of unsure) {
    const now = await columnsAsTheyAre(
      plain() as SqlEntityManager,
      meta,
      indexes.map((i) => changeSets[i]!),
      decisive,
    );
    const byEntity = new Map<object, Row>();
    const changes = indexes.flatMap((i) => {
      const change = changeSets[i]!;
      const current = now.get(change.entity);
      if (!current) return [];
      const known = hints.size === 0 ? asRead(change, decisive) : undefined;
      const same = (prop: EntityMetadata['props'][number]): boolean =>
        Utils.equals(known?.[prop.name], current[prop.name]);
      if (known && decisive.every(same)) byEntity.set(change.entity, known);
      return byEntity.has(change.entity) ? [] : [change];
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
    for (const i of indexes) rows[i] = byEntity.get(changeSets[i]!.entity);
  }
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

/** `props` of `row`, and only they: what a decision on a row req.em read reads of it. */
function copyOf(props: EntityMetadata['props'], row: Row): Row {
  const copy: Row = {};
  for (let i = 0; i < props.length; i++) copy[props[i]!.name] = row[props[i]!.name];
  return copy;
}

/** Whether `one` and `other` hold the same values in `props`. */
function sameIn(props: EntityMetadata['props'], one: Row, other: Row): boolean {
  for (let i = 0; i < props.length; i++) if (one[props[i]!.name] !== other[props[i]!.name]) return false;
  return true;
}

/** The row as req.em read it from the database in this request, if it did, the columns `props` included. */
function asRead(change: ChangeSet<object>, props: EntityMetadata['props']): Row | undefined {
  const wrapped = helper(change.entity);
  const original = wrapped.__originalEntityData as Row | undefined;
  if (!original || !wrapped.__initialized || !readByItself(change.entity)) return undefined;
  // Not a copy: what a write is conditioned on is copied by rowsAsTheyAre.
  for (let i = 0; i < props.length; i++) if (!Object.hasOwn(original, props[i]!.name)) return undefined;
  return original;
}
