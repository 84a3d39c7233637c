/**
 * `auth.audit`: the record of security-relevant actions (docs/audit.md).
 *
 * - A change and its record commit together: `record(tx, entry)` appends in the change's own
 *   transaction, last (Transaction.beforeCommit), so the chain's lock is held only until commit.
 * - Failures (a wrong password, a refused link) are queued and written in one batch at most a
 *   second after the first, and at `close()`: a flood of them costs one statement a second.
 * - Refusals by a rate limit or the same-site rule are recorded at most once per client and
 *   endpoint per REFUSAL_WINDOW_MS on each instance, so a flood writes a handful of rows.
 * - `auth.on('audit', handler)` gets each record once it has committed.
 */
import { logError, type LoggerHolder } from '../logger.js';
import { AuditEvent, User } from '../storage/entities/index.js';
import type { Storage, Transaction } from '../storage/storage.js';
import { appendAlone, appendInTransaction, pruneChain, toRecord, verifyChain, type ChainCheck } from './chain.js';
import { auditContext } from './context.js';
import { draftOf, type AuditDraft, type AuditEntry, type AuditRecord, type AuditType } from './records.js';

/** How long after the first queued failure the batch is written. */
const BATCH_DELAY_MS = 1000;
/** Failures kept while the database cannot be written; the oldest go first beyond this. */
const MAX_QUEUED = 10_000;
/** A client refused again on the same endpoint within this long is not recorded again. */
export const REFUSAL_WINDOW_MS = 60_000;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 86_400_000;

export interface AuditSettings {
  readonly enabled: boolean;
  readonly retentionDays: number;
}

/** `auth.audit.query(…)`: every field optional; newest first. */
export interface AuditQuery {
  /**
   * The records of a person: those carrying this address, and those carrying the id of the user
   * it names now (a token's, a session's, a second factor's records carry the id, not the address).
   */
  email?: string;
  userId?: number;
  type?: AuditType;
  /** Records at or after this time. */
  since?: Date;
  /** Records before this time. */
  until?: Date;
  /** Records with an id below this one: the next page after a page ending at `before`. */
  before?: number;
  /** At most this many (default 50, at most 1,000). */
  limit?: number;
}

/** A request refused before it did anything: by a rate limit, or as coming from another site. */
export interface Refusal {
  code: 'rate_limited' | 'csrf_rejected';
  /** Method and route, e.g. `POST /service-auth/login`. */
  endpoint: string;
  ip: string;
  userAgent?: string;
  userId?: number | null;
}

export type AuditHandler = (record: AuditRecord) => unknown;

/** `auth.audit`: what an application may do with the log (the package itself records). */
export interface AuditApi {
  /** Records newest first (`email`, `userId`, `type`, `since`, `until`, `before` an id, `limit` ≤ 1,000). */
  query(filter?: AuditQuery): Promise<AuditRecord[]>;
  /** Recomputes the hash chain; names the first row that does not match. */
  verify(): Promise<ChainCheck>;
  /** Removes rows older than SERVICE_AUTH_AUDIT_RETENTION_DAYS now (it also runs hourly). */
  prune(): Promise<number>;
  /** Writes the failures queued for the next batch now (close() does too). */
  flush(): Promise<void>;
}

export class AuditLog implements AuditApi {
  private queued: AuditDraft[] = [];
  private batchTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private readonly lastRefusal = new Map<string, number>();
  private readonly handlers: AuditHandler[] = [];
  private readonly pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly storage: Storage,
    readonly settings: AuditSettings,
    private readonly log: LoggerHolder,
  ) {
    if (settings.enabled) {
      this.pruneTimer = setInterval(
        () =>
          void this.prune().catch((error: unknown) =>
            logError(this.log.logger, 'error', 'pruning the audit log failed', error),
          ),
        PRUNE_INTERVAL_MS,
      );
      this.pruneTimer.unref();
    }
  }

  /** Appends the record in the change's transaction; handlers get it once that commits. */
  record(tx: Transaction, entry: AuditEntry): void {
    if (!this.settings.enabled) return;
    const draft = draftOf(entry, auditContext());
    tx.beforeCommit(async (em) => {
      const records = await appendInTransaction(em, [draft]);
      tx.afterCommit(() => this.emit(records));
    });
  }

  /** Queues a failure for the next batch. */
  fail(entry: AuditEntry): void {
    if (!this.settings.enabled) return;
    this.enqueue(draftOf({ ...entry, outcome: 'failure' }, auditContext()));
  }

  /** Queues a refusal, unless this client was refused on this endpoint within the window. */
  refused(refusal: Refusal): void {
    if (!this.settings.enabled) return;
    const now = Date.now();
    const key = `${refusal.code} ${refusal.ip} ${refusal.endpoint}`;
    const last = this.lastRefusal.get(key);
    if (last !== undefined && now - last < REFUSAL_WINDOW_MS) return;
    if (this.lastRefusal.size >= MAX_QUEUED) this.forgetOldRefusals(now);
    this.lastRefusal.set(key, now);
    const entry: AuditEntry = {
      type: refusal.code,
      outcome: 'failure',
      userId: refusal.userId ?? null,
      reason: refusal.code,
      detail: { endpoint: refusal.endpoint },
    };
    this.enqueue(draftOf(entry, { actor: 'http', ip: refusal.ip, userAgent: refusal.userAgent ?? null }));
  }

  /** Subscribes a handler; returns a function that unsubscribes it. */
  onRecord(handler: AuditHandler): () => void {
    if (typeof handler !== 'function') throw new TypeError("auth.on('audit', handler): handler must be a function");
    this.handlers.push(handler);
    return () => {
      const index = this.handlers.indexOf(handler);
      if (index >= 0) this.handlers.splice(index, 1);
    };
  }

  /** Records newest first, for an application's admin screens. */
  async query(filter: AuditQuery = {}): Promise<AuditRecord[]> {
    const em = (await this.storage.em()).fork();
    const where: Record<string, unknown> = {};
    if (filter.email !== undefined) {
      // Normalised as users/emails stores addresses.
      const email = String(filter.email).trim().toLowerCase();
      const user = await em.findOne(User, { email }, { fields: ['id'], disableIdentityMap: true });
      where['$or'] = user ? [{ email }, { userId: user.id }] : [{ email }];
    }
    if (filter.userId !== undefined) where['userId'] = filter.userId;
    if (filter.type !== undefined) where['type'] = filter.type;
    if (filter.since !== undefined || filter.until !== undefined)
      where['at'] = { ...(filter.since && { $gte: filter.since }), ...(filter.until && { $lt: filter.until }) };
    if (filter.before !== undefined) where['id'] = { $lt: filter.before };
    const limit = Math.min(Math.max(1, Math.trunc(filter.limit ?? 50)), 1000);
    const rows = await em.find(AuditEvent, where, { orderBy: { id: 'desc' }, limit, disableIdentityMap: true });
    return rows.map((row) => toRecord(row as AuditDraft & { id: number; hash: string }));
  }

  /** Recomputes the chain; names the first row that does not match. */
  verify(): Promise<ChainCheck> {
    return verifyChain(this.storage);
  }

  /** Removes the rows older than the retention, leaving an `audit_pruned` record; returns how many went. */
  prune(now = new Date()): Promise<number> {
    if (!this.settings.enabled) return Promise.resolve(0);
    const before = new Date(now.getTime() - this.settings.retentionDays * DAY_MS);
    return pruneChain(this.storage, before, (removed) =>
      draftOf({ type: 'audit_pruned', detail: { ...removed, before: before.toISOString() } }, auditContext()),
    );
  }

  /** Writes what is queued now; `close()` and the batch timer call it. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    this.writing = appendAlone(this.storage, batch).then(
      (records) => this.emit(records),
      (error: unknown) => {
        logError(
          this.log.logger,
          'error',
          `writing ${batch.length} audit records failed; they are kept for the next batch`,
          error,
        );
        this.queued = [...batch, ...this.queued].slice(-MAX_QUEUED);
        this.schedule();
      },
    );
    try {
      await this.writing;
    } finally {
      this.writing = undefined;
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    clearInterval(this.pruneTimer);
    await this.flush();
    clearTimeout(this.batchTimer); // a failed last write does not keep the process alive
  }

  private enqueue(draft: AuditDraft): void {
    this.queued.push(draft);
    if (this.queued.length > MAX_QUEUED) this.queued.shift();
    this.schedule();
  }

  private schedule(): void {
    if (this.batchTimer) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = undefined;
      void this.flush();
    }, BATCH_DELAY_MS);
    this.batchTimer.unref();
  }

  private forgetOldRefusals(now: number): void {
    for (const [key, at] of this.lastRefusal) if (now - at >= REFUSAL_WINDOW_MS) this.lastRefusal.delete(key);
    if (this.lastRefusal.size >= MAX_QUEUED) this.lastRefusal.clear();
  }

  private emit(records: AuditRecord[]): void {
    for (const record of records) {
      for (const handler of [...this.handlers]) {
        try {
          Promise.resolve(handler(record)).catch((error: unknown) =>
            logError(this.log.logger, 'error', `an audit handler failed (record ${record.id})`, error),
          );
        } catch (error) {
          logError(this.log.logger, 'error', `an audit handler failed (record ${record.id})`, error);
        }
      }
    }
  }
}
