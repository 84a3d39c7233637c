/**
 * A forger's tool for the audit tests: after a row was changed, recomputes every hash in id order
 * from the first row, as if the history had been written with these contents. What `auth audit
 * verify` must still catch (an order changed) or must accept (a consistent rewrite) is tested with it.
 */
import type { MikroORM } from '@mikro-orm/core';
import { canonicalJson, chainHash } from '../../src/audit/records.js';
import { AuditEvent } from '../../src/storage/entities/index.js';

export async function rechain(orm: MikroORM): Promise<void> {
  const em = orm.em.fork();
  let previous = '';
  for (const row of await em.find(AuditEvent, {}, { orderBy: { id: 'asc' } })) {
    previous = chainHash(previous, canonicalJson(row as never));
    row.hash = previous;
  }
  await em.flush();
}
