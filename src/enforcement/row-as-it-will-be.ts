/**
 * The row a flush through req.em leaves: as it was (or nothing, for a new one), with the change
 * set's fields, each relation it sets as the database holds the related row (flush-check.ts
 * decides on it).
 */
import { helper, Reference, Utils } from '@mikro-orm/core';
import type { ChangeSet, EntityManager, EntityMetadata } from '@mikro-orm/core';
import { TO_ONE, type Row } from './rule-reads.js';

const unwrapped = (value: unknown): unknown => (Reference.isReference(value) ? value.unwrap() : value);

/**
 * The row as it will be: at once, or once the relations it sets are read (through `plain`, with
 * the relations the rules follow from them: `hints`). A row created in the same flush is not read.
 */
export function rowAsItWillBe(
  change: ChangeSet<object>,
  before: Row | undefined,
  meta: EntityMetadata,
  hints: readonly string[],
  plain: () => EntityManager,
  created: ReadonlySet<object>,
): Row | Promise<Row> {
  const entity = change.entity as Row;
  const payload = change.payload as Row;
  const row: Row = {};
  let reading: Promise<void> | undefined;
  for (const prop of meta.props) {
    const name = prop.name;
    const changed = before === undefined || Object.hasOwn(payload, name);
    if (!changed) row[name] = before[name];
    else if (TO_ONE.includes(prop.kind)) {
      // A relation a new row leaves unset is NULL in it, as the rules read a null relation.
      const set = (related: unknown): void => {
        row[name] = related === undefined && before === undefined ? null : related;
      };
      const target = targetOf(entity[name], created);
      // One read at a time: they share the flush check's EntityManager.
      if (target === undefined) set(unwrapped(entity[name]));
      else reading = (reading ?? Promise.resolve()).then(() => related(name, target, hints, plain).then(set));
    }
    // A column a new row leaves unset will hold its default, or NULL.
    else row[name] = entity[name] === undefined && before === undefined ? (prop.default ?? null) : entity[name];
  }
  return reading ? reading.then(() => row) : row;
}

/** The entity a relation's value names, when it is one the database holds (so is read); else undefined. */
function targetOf(value: unknown, created: ReadonlySet<object>): object | undefined {
  const target = unwrapped(value);
  if (target === null || target === undefined || !Utils.isEntity(target) || created.has(target)) return undefined;
  return target;
}

/** A related row as the rules read it: as it is in the database, with what they follow from it. */
function related(name: string, target: object, hints: readonly string[], plain: () => EntityManager): Promise<unknown> {
  const populate = hints.filter((hint) => hint.startsWith(`${name}.`)).map((hint) => hint.slice(name.length + 1));
  const { className } = helper(target).__meta;
  return plain().findOne(className, helper(target).getPrimaryKey() as never, {
    populate: populate as never,
    filters: false,
  });
}
