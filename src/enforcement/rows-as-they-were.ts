/**
 * The rows a flush through req.em updates or deletes, as they were: as req.em read them in this
 * request, or read again from the database in the flush's transaction, with the relations the
 * rules follow from them (flush-check.ts decides on them).
 */
import { helper, ReferenceKind } from '@mikro-orm/core';
import type { ChangeSet, EntityManager, EntityMetadata } from '@mikro-orm/core';
import { relationHints } from '../authorization/relation-walks.js';
import { ScopedAbility } from '../authorization/scoped-ability.js';
import { decidingAbility } from './access-conditions.js';
import { readByItself, type Binding } from './entity-manager.js';

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

/** The relations the rules for `action` on `meta`'s rows follow: every rule that may decide, those limited to fields included. */
export function ruleHints(binding: Binding, meta: EntityMetadata, action: Action): string[] {
  const ability = decidingAbility(binding, binding.bound, meta);
  const key = `${action} ${meta.className}`;
  let known = hintsOf.get(ability);
  if (!known) hintsOf.set(ability, (known = new Map()));
  const held = known.get(key);
  if (held) return held;
  const hints = new Set<string>();
  for (const part of ability instanceof ScopedAbility ? [ability.owner, ability.scopes] : [ability]) {
    for (const rule of part.possibleRulesFor(action, meta.className)) if (rule.ast) relationHints(meta, rule.ast, '', hints);
  }
  known.set(key, [...hints]);
  return [...hints];
}

/** The relations each ability's rules follow, by action and entity: asked for every row of a flush. */
const hintsOf = new WeakMap<object, Map<string, string[]>>();

/**
 * The rows the flush updates or deletes, as they are in the database (never as the request holds
 * them: an entity can be merged or referenced without being read), with the relations the rules
 * follow: one query per entity.
 */
export async function rowsAsTheyAre(binding: Binding, plain: () => EntityManager, changeSets: ChangeSet<object>[]): Promise<Map<object, Row>> {
  const byType = new Map<string, { meta: EntityMetadata; changes: ChangeSet<object>[]; hints: Set<string> }>();
  for (const change of changeSets) {
    const action = ACTIONS[change.type];
    if (action !== 'update' && action !== 'delete') continue;
    const meta = change.meta as EntityMetadata;
    if (binding.open.has(meta.className)) continue;
    const entry = byType.get(meta.className) ?? { meta, changes: [], hints: new Set<string>() };
    entry.changes.push(change);
    for (const hint of ruleHints(binding, meta, action)) entry.hints.add(hint);
    byType.set(meta.className, entry);
  }
  const rows = new Map<object, Row>();
  for (const [type, { meta, changes: all, hints }] of byType) {
    if (meta.primaryKeys.length !== 1) throw new TypeError(`req.em cannot check a write of ${type}: its primary key is composite`);
    const primaryKey = meta.primaryKeys[0]!;
    // A row req.em read itself, whole, is taken as it read it, when the rules follow no relation from it.
    const changes = all.filter((change) => {
      const known = hints.size === 0 ? asRead(change) : undefined;
      if (known) rows.set(change.entity, known);
      return !known;
    });
    if (changes.length === 0) continue;
    // By the key the row has in the database, which MikroORM's UPDATE and DELETE name: the change
    // set's original one, not the entity's (a body may have set it).
    const keys = changes.map((change) => change.getPrimaryKey());
    const found = await plain().find(type, { [primaryKey]: { $in: keys } } as never, { populate: [...hints] as never, filters: false });
    const byKey = new Map(found.map((row) => [String(helper(row).getPrimaryKey()), row as Row]));
    for (const change of changes) {
      const row = byKey.get(String(change.getPrimaryKey()));
      if (row) rows.set(change.entity, row);
    }
  }
  return rows;
}

/** The row as req.em read it from the database in this request, if it did, every column included. */
function asRead(change: ChangeSet<object>): Row | undefined {
  const wrapped = helper(change.entity);
  const original = wrapped.__originalEntityData as Row | undefined;
  if (!original || !wrapped.__initialized || !readByItself(change.entity)) return undefined;
  const isColumn = (prop: EntityMetadata['props'][number]): boolean =>
    prop.kind === ReferenceKind.SCALAR || (TO_ONE.includes(prop.kind) && prop.owner);
  const columns = (change.meta as EntityMetadata).props.filter(isColumn);
  return columns.every((prop) => Object.hasOwn(original, prop.name)) ? { ...original } : undefined;
}
