/**
 * The chain itself: appending records, checking it, and pruning its oldest rows.
 *
 * Each row's hash is SHA-256 of the previous row's hash and its own canonical JSON (records.ts),
 * in id order. Appending reads the last row and gives the new rows the next ids, under the chain's
 * lock, so that instances appending at once still make one chain:
 *
 * - PostgreSQL: the function `service_auth_append_events` (the audit migration) takes a
 *   transaction-level advisory lock, reads the last row and inserts, all in one statement; run on
 *   its own it is its own transaction, so a batch costs one statement, and in a change's
 *   transaction the lock is held only from the record (written last) to the commit.
 * - SQLite: the database has one writer at a time, and the transaction holds the write lock
 *   from its start (src/storage/sqlite.ts), so nobody appends between the read and the insert.
 *
 * Ids are therefore contiguous: a missing id is a deleted row. Pruning deletes the oldest rows and
 * appends an `audit_pruned` record holding the last deleted row's id and hash, from which the
 * first row left is checked.
 */
import { IsolationLevel, type EntityManager as CoreEntityManager } from '@mikro-orm/core';
import { AuditEvent } from '../storage/entities/index.js';
import { AUDIT_CHAIN_LOCK } from '../storage/migrations/audit-chain-lock.js';
import type { EntityManager } from '../storage/orm.js';
import { sqlLayer } from '../storage/sql-layer.js';
import type { Storage } from '../storage/storage.js';
import { canonicalJson, chainHash, type AuditDraft, type AuditRecord } from './records.js';

export const APPEND_FUNCTION = 'service_auth_append_events';

const onSqlite = (em: EntityManager): boolean => sqlLayer.isSqlite(em.getPlatform());

/**
 * Appends the drafts, in order, inside the caller's transaction (`em`, MikroORM's SQL one: typed as
 * core's, so that the published types name no SQL layer package, which differs between 6 and 7).
 */
export async function appendInTransaction(
  transaction: CoreEntityManager,
  drafts: AuditDraft[],
): Promise<AuditRecord[]> {
  const em = transaction as EntityManager;
  if (drafts.length === 0) return [];
  if (!onSqlite(em)) return appendOnPostgres(em, drafts);
  const [last] = await em.execute<{ id: number; hash: string }[]>(
    'select id, hash from auth_events order by id desc limit 1',
  );
  let id = last?.id ?? 0;
  let previous = last?.hash ?? '';
  const records = drafts.map((draft) => {
    previous = chainHash(previous, canonicalJson(draft));
    return { ...draft, id: ++id, hash: previous };
  });
  await em.insertMany(AuditEvent, records);
  return records.map(toRecord);
}

/** Appends the drafts in a transaction of their own: on PostgreSQL, one statement. */
export async function appendAlone(storage: Storage, drafts: AuditDraft[]): Promise<AuditRecord[]> {
  if (drafts.length === 0) return [];
  const em = (await storage.em()).fork();
  if (!onSqlite(em)) return appendOnPostgres(em, drafts);
  return storage.transaction(em, (tx) => appendInTransaction(tx.em, drafts));
}

async function appendOnPostgres(em: EntityManager, drafts: AuditDraft[]): Promise<AuditRecord[]> {
  const batch = drafts.map((draft) => ({ ...draft, at: draft.at.toISOString(), canonical: canonicalJson(draft) }));
  const rows = await em.execute<{ id: number; hash: string }[]>(
    `select id, hash from ${APPEND_FUNCTION}(cast(? as jsonb))`,
    [JSON.stringify(batch)],
  );
  return drafts.map((draft, i) => toRecord({ ...draft, id: rows[i]!.id, hash: rows[i]!.hash }));
}

export function toRecord(row: AuditDraft & { id: number; hash: string }): AuditRecord {
  return { ...row, detail: JSON.parse(row.detail) as AuditRecord['detail'] };
}

/** What `auth audit verify` reports. */
export type ChainCheck =
  | { intact: true; rows: number; first: number | null; last: number | null }
  | { intact: false; rows: number; brokenAt: number; why: string };

const PAGE = 1000;

/** Recomputes the chain from the first row left; names the first row that does not match. */
export async function verifyChain(storage: Storage): Promise<ChainCheck> {
  const em = (await storage.em()).fork();
  // One snapshot: rows an hourly prune removes while the walk is under way would otherwise look
  // like rows gone missing from the middle of the chain. A read transaction is one on SQLite;
  // read-only, it does not take the write lock (sqlite.ts) and keeps no writer waiting.
  if (onSqlite(em)) return em.transactional((tx) => walkChain(tx), { readOnly: true });
  return em.transactional((tx) => walkChain(tx), { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
}

async function walkChain(em: EntityManager): Promise<ChainCheck> {
  let previous: string | undefined;
  let expectedId: number | undefined;
  let rows = 0;
  let first: number | null = null;
  let last: number | null = null;
  for (;;) {
    const page: AuditEvent[] = await em.find(AuditEvent, last === null ? {} : { id: { $gt: last } }, {
      orderBy: { id: 'asc' },
      limit: PAGE,
      disableIdentityMap: true,
    });
    for (const row of page) {
      if (previous === undefined) {
        first = row.id;
        const anchor = await anchorFor(em, row.id);
        if (anchor === undefined)
          return {
            intact: false,
            rows,
            brokenAt: row.id,
            why: `rows before #${row.id} are missing, and no audit_pruned record says they were pruned`,
          };
        previous = anchor;
      } else if (row.id !== expectedId) {
        return { intact: false, rows, brokenAt: row.id, why: `row #${expectedId} is missing before it` };
      }
      if (chainHash(previous, canonicalJson(row as AuditDraft)) !== row.hash) {
        return {
          intact: false,
          rows,
          brokenAt: row.id,
          why: 'its hash does not match its content and the row before it',
        };
      }
      previous = row.hash;
      expectedId = row.id + 1;
      last = row.id;
      rows++;
    }
    em.clear();
    if (page.length < PAGE) return { intact: true, rows, first, last };
  }
}

/** The hash the first row left follows: none for row 1, else the one its pruning recorded. */
async function anchorFor(em: EntityManager, firstId: number): Promise<string | undefined> {
  if (firstId === 1) return '';
  const pruned = await em.find(
    AuditEvent,
    { type: 'audit_pruned' },
    { orderBy: { id: 'desc' }, disableIdentityMap: true },
  );
  for (const row of pruned) {
    const detail = JSON.parse(row.detail) as { through?: unknown; hash?: unknown };
    if (detail.through === firstId - 1 && typeof detail.hash === 'string') return detail.hash;
  }
  return undefined;
}

/**
 * Deletes the rows older than `before`, always leaving the newest, and appends the `audit_pruned`
 * record (made by `draft` from what was removed) in the same transaction. Returns how many went.
 */
export async function pruneChain(
  storage: Storage,
  before: Date,
  draft: (removed: { through: number; hash: string; rows: number }) => AuditDraft,
): Promise<number> {
  const em = (await storage.em()).fork();
  return storage.transaction(em, async (tx) => {
    // Under the chain's lock from the start: two instances pruning at once remove the rows once.
    if (!onSqlite(tx.em)) await tx.em.execute(`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`);
    const [newest] = await tx.em.find(AuditEvent, {}, { orderBy: { id: 'desc' }, limit: 1, fields: ['id'] });
    if (!newest) return 0;
    const [through] = await tx.em.find(
      AuditEvent,
      { at: { $lt: before }, id: { $lt: newest.id } },
      { orderBy: { id: 'desc' }, limit: 1, fields: ['id', 'hash'] },
    );
    if (!through) return 0;
    const rows = await tx.em.nativeDelete(AuditEvent, { id: { $lte: through.id } });
    await appendInTransaction(tx.em, [draft({ through: through.id, hash: through.hash, rows })]);
    return rows;
  });
}
