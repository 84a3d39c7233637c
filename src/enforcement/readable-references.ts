/**
 * The references a flush through req.em sets: each many-to-one it sets or changes must point at a
 * row the ability may `read` (a count through req.em's own filter), or at a row created in the same
 * flush (flush-check.ts).
 */
import { helper, Reference, Utils } from '@mikro-orm/core';
import type { ChangeSet, EntityManager, EntityMetadata } from '@mikro-orm/core';
import { refusal } from './refusals.js';
import { TO_ONE, type Row } from './rule-reads.js';

/**
 * Every many-to-one reference the flush sets points at a row req.em can read (or one it creates). A
 * promise only when there is one to count: none for a flush that sets no reference.
 */
export function readableReferences(
  em: EntityManager,
  changeSets: ChangeSet<object>[],
  created: ReadonlySet<object>,
): Promise<void> | undefined {
  const wanted = new Map<string, { keys: Set<unknown>; owner: string; field: string }>();
  // Indexed loops: every row of a large flush is looked at.
  for (let i = 0; i < changeSets.length; i++) {
    const change = changeSets[i]!;
    if (change.type !== 'create' && change.type !== 'update') continue;
    const names = referencesOf(change.meta as EntityMetadata);
    for (let j = 0; j < names.length; j++) {
      const name = names[j]!;
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
  return wanted.size ? countReadable(em, wanted) : undefined;
}

/** Refuses unless req.em can read each row `wanted` names, by target entity. */
async function countReadable(
  em: EntityManager,
  wanted: Map<string, { keys: Set<unknown>; owner: string; field: string }>,
): Promise<void> {
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
