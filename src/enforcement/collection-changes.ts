/**
 * A flush's changes of many-to-many collections through req.em (flush-check.ts calls it):
 *
 * - adding or removing items of an owning collection is an `update` of its owner on that field,
 *   decided on the owner as it is in the database and as it will be (its items the collection's
 *   new ones); for an owner the flush creates, its `create` on that field;
 * - every item added must be a row the ability may `read` (or one the flush creates);
 * - a change on the inverse side is refused: MikroORM writes the owning side, which says whose
 *   field it is.
 *
 * MikroORM writes the difference from the items the collection was loaded with (req.em loads only
 * readable ones, so hidden items stay); a collection set without being loaded replaces every item.
 * A one-to-many collection's changes are its items' references, checked as their updates; but one
 * set without being loaded MikroORM writes as one statement over the other items: a TypeError.
 */
import { helper, ReferenceKind } from '@mikro-orm/core';
import type { Collection, EntityManager, EntityMetadata } from '@mikro-orm/core';
import { isTenantEntity } from './access-conditions.js';
import type { Binding } from './bindings.js';
import { refusal } from './refusals.js';
import { ruleHints, type Action, type Row } from './rule-reads.js';

export interface CollectionCheck {
  /** req.em itself, whose reads are limited to the readable rows. */
  em: EntityManager;
  binding: Binding;
  /** A fork without any filter, in the flush's transaction. */
  plain: () => EntityManager;
  created: ReadonlySet<object>;
  /** Throws the refusal when the ability may not do `action` on `field` of `row`. */
  decideOn: (meta: EntityMetadata, action: Action, row: Row, field: string) => void;
}

export async function checkCollections(check: CollectionCheck, collections: Collection<object>[]): Promise<void> {
  for (const collection of collections) {
    const prop = collection.property;
    const meta = helper(collection.owner).__meta as EntityMetadata;
    const unloaded = collection.getSnapshot() === undefined && !check.created.has(collection.owner);
    if (prop.kind === ReferenceKind.ONE_TO_MANY && unloaded) {
      // MikroORM would unset (or, with orphan removal, delete) every other item in one statement, unchecked.
      throw new TypeError(
        `req.em cannot check ${meta.className}.${prop.name} set without being loaded: populate it first, ` +
          `or set ${prop.mappedBy} on each ${prop.type}`,
      );
    }
    if (prop.kind !== ReferenceKind.MANY_TO_MANY || !collection.isDirty()) continue;
    if (!prop.owner) {
      throw new TypeError(
        `req.em cannot check a change of ${meta.className}.${prop.name}, ` +
          'the inverse side of a many-to-many relation: ' +
          `change the owning side (${prop.type}.${prop.mappedBy}) instead`,
      );
    }
    const loaded = collection.getSnapshot();
    const snapshot = new Set(loaded ?? []);
    const items = collection.getItems(false);
    // Dirty, but the items it was loaded with: MikroORM writes nothing.
    if (loaded && loaded.length === items.length && items.every((item) => snapshot.has(item))) continue;
    const added = items.filter((item) => !snapshot.has(item) && !check.created.has(item));
    await readable(check.em, prop.targetMeta as EntityMetadata, added, meta.className, prop.name);
    if (check.binding.open.has(meta.className)) continue;
    await decideOwner(check, collection, meta, items);
  }
}

/** The owner's `update` (or `create`) on the collection's field, as it was and as it will be. */
async function decideOwner(
  check: CollectionCheck,
  collection: Collection<object>,
  meta: EntityMetadata,
  items: object[],
): Promise<void> {
  const { binding, plain, created, decideOn } = check;
  const field = collection.property.name;
  const owner = collection.owner as Row;
  const action: Action = created.has(owner) ? 'create' : 'update';
  const hints = ruleHints(binding, meta, action);
  const after = await itemsAsTheyWillBe(check, collection.property.targetMeta as EntityMetadata, items, hints, field);
  if (action === 'create') {
    decideOn(meta, action, { ...rowOf(meta, owner), [field]: after }, field);
    return;
  }
  const key = helper(owner).getPrimaryKey();
  const options = { populate: hints as never, filters: false };
  const before = (await plain().findOne(meta.className, key as never, options)) as Row | null;
  if (!before) throw refusal(action, meta.className, field, 'there is no such row');
  const org = binding.bound.org;
  if (org && isTenantEntity(binding, meta) && before[binding.tenant.fieldOf(meta.className)] !== org.id) {
    throw refusal(action, meta.className, undefined, 'it belongs to another organization');
  }
  decideOn(meta, action, rowOf(meta, before), field);
  decideOn(meta, action, { ...rowOf(meta, before), [field]: after }, field);
}

/** The collection's items as the rules read them: as they are in the database, with what the rules follow from them. */
async function itemsAsTheyWillBe(
  check: CollectionCheck,
  target: EntityMetadata,
  items: object[],
  hints: string[],
  field: string,
): Promise<object[]> {
  const stored = items.filter((item) => !check.created.has(item));
  if (stored.length === 0) return items;
  const populate = hints.filter((hint) => hint.startsWith(`${field}.`)).map((hint) => hint.slice(field.length + 1));
  const keys = stored.map((item) => helper(item).getPrimaryKey());
  const where = { [target.primaryKeys[0]!]: { $in: keys } };
  const options = { populate: populate as never, filters: false };
  const found = await check.plain().find(target.className, where as never, options);
  return [...found, ...items.filter((item) => check.created.has(item))];
}

/** A row of `meta`'s properties, read from an entity. */
function rowOf(meta: EntityMetadata, entity: Row): Row {
  const row: Row = {};
  for (const prop of meta.props) row[prop.name] = entity[prop.name];
  return row;
}

/** Every added item is a row req.em can read: a count through its own filter. */
async function readable(
  em: EntityManager,
  target: EntityMetadata,
  added: object[],
  owner: string,
  field: string,
): Promise<void> {
  if (added.length === 0) return;
  const keys = new Set(added.map((item) => helper(item).getPrimaryKey()));
  const where = { [target.primaryKeys[0]!]: { $in: [...keys] } };
  const found = await em.count(target.className, where as never, { flushMode: 'commit' });
  if (found !== keys.size) throw refusal('set', owner, field, `names a ${target.className} that you cannot read`);
}
