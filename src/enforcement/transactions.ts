/**
 * req.em's flushes and transactions, and MikroORM's own use of the connection in them. A flush runs
 * in a transaction (the caller's, or one of its own), so that the flush check and the writes see
 * the same rows. req.em refuses its caller the connection and the driver's own reads and writes
 * (refusals.ts), yet MikroORM needs them to flush and to begin, commit or roll back: `asMikroOrm`
 * marks that work while it runs, and `mikroOrmAtWork` tells the refusals so.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionEventBroadcaster } from '@mikro-orm/core';
import { withExpectations } from './conditional-writes.js';
import type { Overridden } from './entity-manager-methods.js';

/** Set while MikroORM itself uses the connection for a flush or a transaction of req.em. */
const internal = new AsyncLocalStorage<true>();

/** Whether MikroORM itself, flushing or in a transaction of req.em, is at work. */
export function mikroOrmAtWork(): boolean {
  return internal.getStore() === true;
}

/** `work` as MikroORM's own: the connection and the driver are open to it. */
export function asMikroOrm<T>(work: () => T): T {
  return internal.run(true, work);
}

/** `work` as the caller's, within MikroORM's: req.em refuses it what it refuses any caller. */
export function asCaller<T>(work: () => T): T {
  return internal.exit(work);
}

/** `flush` (MikroORM's own) in `em`'s transaction, or one of its own, so the check and the writes see the same rows. */
export async function flushInTransaction(em: Overridden, flush: () => Promise<void>): Promise<void> {
  // Its own expectations (conditional-writes.ts): the rows decided on as req.em read them, which its writes must find so.
  await asMikroOrm(() => withExpectations(() => flushIn(em, flush)));
}

async function flushIn(em: Overridden, flush: () => Promise<void>): Promise<void> {
  if (em.isInTransaction() || em.disableTransactions) return flush();
  await em.begin();
  try {
    await flush();
    // What `commit()` does, without the second flush it starts with (all is flushed).
    await em.getConnection('write').commit(em.getTransactionContext(), new TransactionEventBroadcaster(em as never));
    em.resetTransactionContext();
  } catch (error) {
    await em.rollback();
    throw error;
  }
}
