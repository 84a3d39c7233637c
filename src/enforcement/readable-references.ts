/**
 * The references a flush through req.em sets: each many-to-one it sets or changes must point at a
 * row the ability may `read` (a count through req.em's own filter), or at a row created in the same
 * flush (flush-check.ts).
 */
import { helper, Reference, Utils } from '@mikro-orm/core';
import type { ChangeSet, EntityManager, EntityMetadata } from '@mikro-orm/core';
import { refusal } from './refusals.js';
import { TO_ONE, type Row } from './rows-as-they-were.js';

/** Every many-to-one reference the flush sets points at a row req.em can read (or one it creates). */
export async function readableReferences(
  em: EntityManager,
  changeSets: ChangeSet<object>[],
  created: ReadonlySet<object>,
): Promise<void> {
  const wanted = new Map<string, { keys: Set<unknown>; owner: string; field: string }>();
  for (const change of changeSets) {
    if (change.type !== 'create' && change.type !== 'update') continue;
    for (const name of referencesOf(change.meta as EntityMetadata)) {
      if (!Object.hasOwn(change.payload, name)) continue;
      const value = (change.entity as Row)[name];
      const target = Reference.isReference(value) ? value.unwrap() : value;
      if (!target || !Utils.isEntity(target) || created.has(target)) continue;
      const targetName = helper(target).__meta.className;
      const entry = wanted.get(targetName) ?? { keys: new Set(), owner: change.meta.className, field: name };
      entry.keys.add(helper(target).getPrimaryKey());
      wanted.set(targetName, entry);
    }
  }
  for (const [targetName, { keys, owner, field }] of wanted) {
    const primaryKey = em.getMetadata().find(targetName)!.primaryKeys[0]!;
    const found = await em.count(targetName, { [primaryKey]: { $in: [...keys] } } as never, { flushMode: 'commit' });
    if (found !== keys.size) throw refusal('set', owner, field, `names a ${targetName} that you cannot read`);
  }
}

const references = new WeakMap<EntityMetadata, string[]>();

/** The many-to-one and one-to-one properties of `meta`: what a large flush's every row is looked at for. */
function referencesOf(meta: EntityMetadata): string[] {
  let held = references.get(meta);
  if (!held)
    references.set(meta, (held = meta.props.filter((prop) => TO_ONE.includes(prop.kind)).map((prop) => prop.name)));
  return held;
}
