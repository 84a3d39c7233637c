/**
 * req.em's methods that MikroORM carries out with its own means (a query builder, a lock by key),
 * made to answer as req.em's reads do: a pessimistic lock only on a row the ability may read, and
 * MikroORM 7's `countBy` (its where through the read condition) run as MikroORM's own work.
 */
import { helper, LockMode } from '@mikro-orm/core';
import { AuthError } from '../errors.js';
import { bindingOf } from './bindings.js';
import type { Overridden } from './entity-manager-methods.js';
import { asMikroOrm } from './transactions.js';

/**
 * Before a pessimistic lock: MikroORM locks by the key alone, so a reference to a hidden row would
 * hold another user's or tenant's row; a row req.em cannot read fails as findOneOrFail does (404).
 */
export async function assertLockable(em: Overridden, entity: object, lockMode: number): Promise<void> {
  const binding = bindingOf(em);
  const meta = helper(entity).__meta;
  if (!binding || lockMode === LockMode.OPTIMISTIC || binding.open.has(meta.className)) return;
  const key = helper(entity).getPrimaryKey(true) as object;
  if ((await em.count(meta.className, key)) === 0) throw new AuthError('not_found', `No such ${meta.className}`);
}

/** MikroORM 7's countBy, where `base` has it: processWhere adds the read condition, then it builds a query of its own. */
export function countByAsMikroOrm(prototype: Record<string, unknown>, base: Record<string, unknown>): void {
  const countBy = base['countBy'];
  if (typeof countBy !== 'function') return;
  prototype['countBy'] = function (this: unknown, ...args: unknown[]) {
    return asMikroOrm(() => (countBy as (...args: unknown[]) => unknown).apply(this, args));
  };
}
