/**
 * What the database does beyond a delete through req.em: the delete rule of a foreign key that
 * names the deleted row. A row whose many-to-one (or owning one-to-one) reference names it is
 * deleted with it (`cascade`: MikroORM's `deleteRule: 'cascade'`, its default for a reference with
 * cascade remove) or has the reference set to NULL (`set null`, its default for a nullable one).
 * Neither is a change set the flush check sees, so the delete is refused unless every such row is
 * one the ability may `delete` (for `set null`, `update`), at any depth: in the flush's transaction,
 * the rows that reference the deleted ones are counted, and then those the action's filter allows
 * (the filter of `accessBy`, so the same decision). MikroORM's own cascade remove and orphan
 * removal make change sets, which the flush check decides on as any delete.
 */
import { Cascade, ReferenceKind } from '@mikro-orm/core';
import type { ChangeSet, EntityManager, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { everyEntity } from '../storage/every-entity.js';
import { readCondition } from './access-conditions.js';
import type { Binding } from './bindings.js';
import { refusal } from './refusals.js';
import { ACTIONS } from './rule-reads.js';

/** What the database does to a row that references a deleted one; undefined: nothing (it refuses, or lets it be). */
function deleteRuleOf(prop: EntityProperty): 'cascade' | 'set null' | undefined {
  const cascade = prop.cascade.includes(Cascade.REMOVE) || prop.cascade.includes(Cascade.ALL);
  // As MikroORM's schema generator writes the foreign key.
  const rule = (prop.deleteRule || (cascade ? 'cascade' : prop.nullable ? 'set null' : undefined))?.toLowerCase();
  return rule === 'cascade' || rule === 'set null' ? rule : undefined;
}

/**
 * Throws the refusal when a delete of the flush would make the database delete or change a row the
 * ability may not. A promise only when the flush deletes: none for one that does not.
 */
export function checkCascades(
  em: EntityManager,
  binding: Binding,
  plain: () => EntityManager,
  changeSets: ChangeSet<object>[],
): Promise<void> | undefined {
  const deleted = new Map<EntityMetadata, Set<unknown>>();
  for (let i = 0; i < changeSets.length; i++) {
    const change = changeSets[i]!;
    if (ACTIONS[change.type] !== 'delete') continue;
    const meta = change.meta as EntityMetadata;
    if (!deleted.has(meta)) deleted.set(meta, new Set());
    deleted.get(meta)!.add(change.getPrimaryKey());
  }
  return deleted.size ? checkDeletes(em, binding, plain, deleted) : undefined;
}

/** Refuses when deleting the rows `deleted` names (by entity) would delete or change a row the ability may not. */
async function checkDeletes(
  em: EntityManager,
  binding: Binding,
  plain: () => EntityManager,
  firstDeleted: Map<EntityMetadata, Set<unknown>>,
): Promise<void> {
  let deleted = firstDeleted;
  const seen = new Set<string>();
  const all = everyEntity(em.getMetadata());
  while (deleted.size > 0) {
    const next = new Map<EntityMetadata, Set<unknown>>();
    for (const [meta, keys] of deleted) {
      for (const referencing of all) {
        for (const prop of referencing.props) {
          const reference =
            prop.kind === ReferenceKind.MANY_TO_ONE || (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner);
          const rule = reference && prop.targetMeta?.className === meta.className ? deleteRuleOf(prop) : undefined;
          if (!rule) continue;
          const found = await referencedBy(em, binding, plain, referencing, { [prop.name]: { $in: [...keys] } }, rule);
          if (found === 'refused') {
            const [what, may] = rule === 'cascade' ? ['delete', 'delete'] : [`set the ${prop.name} of`, 'update'];
            const why = `the database would ${what} a ${referencing.className} that you may not ${may}`;
            throw refusal('delete', meta.className, undefined, why);
          }
          for (const key of rule === 'cascade' ? found : []) {
            if (seen.has(`${referencing.className}:${String(key)}`)) continue;
            seen.add(`${referencing.className}:${String(key)}`);
            if (!next.has(referencing)) next.set(referencing, new Set());
            next.get(referencing)!.add(key);
          }
        }
      }
    }
    deleted = next;
  }
}

/** The keys of the rows `where` finds, or 'refused' when the ability may not do to all of them what the rule does. */
async function referencedBy(
  em: EntityManager,
  binding: Binding,
  plain: () => EntityManager,
  meta: EntityMetadata,
  where: object,
  rule: 'cascade' | 'set null',
): Promise<unknown[] | 'refused'> {
  const primaryKey = meta.primaryKeys[0]!;
  const options = { fields: [primaryKey] as never, filters: false };
  const rows = (await plain().find(meta.className, where as never, options)) as Record<string, unknown>[];
  const keys = rows.map((row) => row[primaryKey]);
  if (rows.length === 0 || binding.open.has(meta.className)) return keys;
  // The filter's subquery is built on req.em's query builder (a plain fork's is its own class's).
  const action = rule === 'cascade' ? 'delete' : 'update';
  const allowed = readCondition(binding, binding.bound, meta, em as SqlEntityManager, action);
  const count = await plain().count(meta.className, { $and: [where, allowed] } as never, { filters: false });
  return count === rows.length ? keys : 'refused';
}
