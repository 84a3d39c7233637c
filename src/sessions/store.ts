/**
 * Server-side sessions. The cookie carries 32 random bytes; the database keeps only their
 * SHA-256, so a leaked table is no set of cookies. A session lives SERVICE_AUTH_SESSION_TTL from
 * login, without sliding: re-authentication is periodic whatever the activity.
 *
 * Rows read are held until the change feed names their user, so a busy session costs no query
 * per request while a logout or reset on another instance sharing the database takes effect
 * within a second (storage/change-feed.ts). This
 * store is the only writer of the sessions table, so whatever ends a session here (a logout, a
 * password change) also drops it from the cache at once.
 *
 * `last_seen_at` is not written per request: a use is noted (storage/noted-times.ts) when the stored
 * time is SEEN_RESOLUTION_MS old or more, so the stored time is never more than a minute behind.
 *
 * A user has at most SERVICE_AUTH_MAX_SESSIONS_PER_USER sessions: a login past it ends the oldest,
 * in its own transaction, so that logins in a loop (a script that never logs out) cannot grow the
 * table without bound, and what a person sees on the sessions page stays readable.
 */
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditEntry } from '../audit/records.js';
import { randomSecret, sha256Hex } from '../secrets.js';
import { Session } from '../storage/entities/index.js';
import { RowCache } from '../storage/row-cache.js';
import type { Storage, Transaction } from '../storage/storage.js';
import { NotedTimes } from '../storage/noted-times.js';
import { cleanUserAgent, newPublicId } from './session-fields.js';
import { loadSession, viewOf, type ActiveSession, type SessionView } from './session-rows.js';

export type { ActiveSession, SessionView } from './session-rows.js';

/** Expired rows are refused when read; they are deleted at most this often, at a login. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;
/** How far the stored `last_seen_at` may lag, half each for noting and for writing. */
const SEEN_RESOLUTION_MS = 30_000;
/** Public ids as issued (16 base64url characters) or carried over by the migration (16 hex digits). */
const PUBLIC_ID = /^[A-Za-z0-9_-]{16}$/;

export class SessionStore {
  private readonly rows: RowCache<string, ActiveSession>;
  private lastPurge = 0;
  /** Uses not yet written, by session hash. */
  private readonly seen: NotedTimes<Session>;

  constructor(
    private readonly storage: Storage,
    private readonly limits: { readonly ttlSeconds: number; readonly maxPerUser: number },
    private readonly audit: AuditLog,
  ) {
    this.rows = new RowCache(storage.changes, (idHash) => this.load(idHash));
    // An impersonation session goes with its impersonator's changes too (their own session may have ended).
    storage.changes.onChange((userId) =>
      this.rows.deleteWhere(
        (s) => userId === null || s.userId === userId || s.impersonation?.impersonatorId === userId,
      ),
    );
    this.seen = new NotedTimes(storage, { entity: Session, key: 'idHash', column: 'lastSeenAt' }, SEEN_RESOLUTION_MS);
  }

  /**
   * Starts a session; returns the raw id for the cookie (the only place it exists). `record` (a
   * login) is written with it, naming the session. Past the cap, the user's oldest sessions end
   * in the same transaction.
   */
  async create(userId: number, userAgent?: string, record?: AuditEntry): Promise<{ id: string; expiresAt: Date }> {
    const id = randomSecret();
    const expiresAt = new Date(Date.now() + this.limits.ttlSeconds * 1000);
    const publicId = newPublicId();
    const em = await this.storage.em();
    await this.storage.transaction(em, async (tx) => {
      await this.endOldest(tx, userId);
      tx.em.create(Session, {
        idHash: sha256Hex(id),
        publicId,
        user: userId,
        expiresAt,
        userAgent: cleanUserAgent(userAgent),
      });
      if (record) this.audit.record(tx, { ...record, userId, detail: { ...record.detail, session: publicId } });
    });
    if (Date.now() - this.lastPurge > PURGE_INTERVAL_MS) {
      this.lastPurge = Date.now();
      await this.purgeExpired();
    }
    return { id, expiresAt };
  }

  /**
   * The live session for a raw cookie value, or null (unknown, ended or expired): at once when
   * held in memory and fresh, else as a promise.
   */
  find(id: string): ActiveSession | null | Promise<ActiveSession | null> {
    const idHash = sha256Hex(id);
    const cached = this.rows.peek(idHash);
    if (cached) return this.live(cached);
    return this.rows.fetch(idHash).then((session) => (session ? this.live(session) : null));
  }

  private live(session: ActiveSession): ActiveSession | null {
    const now = Date.now();
    if (session.expiresAt.getTime() <= now) {
      this.rows.delete(session.idHash);
      return null;
    }
    if (now - session.lastSeenAt.getTime() >= SEEN_RESOLUTION_MS) {
      this.seen.note(session.idHash, now);
      // The held row is what the table will say after the next flush: note the next use 30 s on.
      session.lastSeenAt = new Date(now);
    }
    return session;
  }

  /** The user's live sessions, oldest first; `current` marks the one with this public id. */
  async list(userId: number, currentPublicId?: string): Promise<SessionView[]> {
    const em = await this.storage.em();
    const rows = await em.find(
      Session,
      { user: userId, expiresAt: { $gt: new Date() } },
      { orderBy: { createdAt: 'asc', publicId: 'asc' } },
    );
    return rows.map((row) => viewOf(row, this.seen.noted(row.idHash), currentPublicId));
  }

  /** Ends one session (logout, or the session a login replaces); `record` (a logout) is written with it. */
  async destroy(id: string, record?: AuditEntry): Promise<void> {
    const idHash = sha256Hex(id);
    const live = this.rows.peek(idHash) ?? (await this.rows.fetch(idHash));
    const em = await this.storage.em();
    await this.storage.transaction(em, async (tx) => {
      await tx.em.nativeDelete(Session, { idHash });
      // Logging out of an impersonation logs its impersonator out too: their session was set aside for this browser.
      const parked = live?.impersonation;
      if (parked)
        await tx.em.nativeDelete(Session, { publicId: parked.impersonatorSession, user: parked.impersonatorId });
      // An expired or unknown session grants nothing: no other instance holds it to drop.
      if (live) await this.storage.changes.note(tx.em, parked ? [live.userId, parked.impersonatorId] : [live.userId]);
      if (live && record)
        this.audit.record(tx, {
          ...record,
          userId: live.userId,
          detail: { ...record.detail, session: live.publicId, ...(parked && { impersonator: parked.impersonatorId }) },
        });
    });
    // After the delete: a read that started before it must not be kept.
    this.rows.delete(idHash);
    this.seen.forget(idHash);
  }

  /** Ends the user's session with this public id; false if the user has none such (another's, unknown). */
  async endByPublicId(userId: number, publicId: string): Promise<boolean> {
    if (typeof publicId !== 'string' || !PUBLIC_ID.test(publicId)) return false;
    const em = await this.storage.em();
    const ended = await this.storage.transaction(em, async (tx) => {
      const count = await tx.em.nativeDelete(Session, { user: userId, publicId });
      if (count > 0) {
        await this.storage.changes.note(tx.em, [userId]);
        this.audit.record(tx, { type: 'session_revoked', userId, detail: { session: publicId } });
      }
      return count;
    });
    this.rows.deleteWhere((session) => session.publicId === publicId);
    return ended > 0;
  }

  /** Ends every session of the user but the one with this public id ("every other device"). */
  async endAllBut(userId: number, keepPublicId: string | undefined): Promise<void> {
    const em = await this.storage.em();
    await this.storage.transaction(em, async (tx) => {
      const count = await tx.em.nativeDelete(
        Session,
        keepPublicId === undefined ? { user: userId } : { user: userId, publicId: { $ne: keepPublicId } },
      );
      await this.storage.changes.note(tx.em, [userId]);
      if (count > 0)
        this.audit.record(tx, {
          type: 'session_revoked',
          userId,
          detail: { sessions: count, kept: keepPublicId ?? null },
        });
    });
    this.rows.deleteWhere((session) => session.userId === userId && session.publicId !== keepPublicId);
  }

  /**
   * Ends every session of a user (but the one whose raw id is `except`, if given), inside the
   * caller's transaction: a password change commits with its sessions ended, or not at all.
   */
  async endAllOf(tx: Transaction, userId: number, options: { except?: string } = {}): Promise<void> {
    const where =
      options.except === undefined ? { user: userId } : { user: userId, idHash: { $ne: sha256Hex(options.except) } };
    await tx.em.nativeDelete(Session, where);
    await this.storage.changes.note(tx.em, [userId]);
    const keep = options.except === undefined ? undefined : sha256Hex(options.except);
    tx.afterCommit(() => this.rows.deleteWhere((session) => session.userId === userId && session.idHash !== keep));
  }

  /**
   * Makes room for one more session: ends the user's oldest (expired ones first, as they are
   * older still) so that at most `maxPerUser - 1` remain. One statement when under the cap.
   */
  private async endOldest(tx: Transaction, userId: number): Promise<void> {
    const keep = this.limits.maxPerUser - 1;
    const surplus = await tx.em.find(
      Session,
      { user: userId },
      { fields: ['publicId'], orderBy: { createdAt: 'desc', publicId: 'desc' }, offset: keep, limit: 10_000 },
    );
    if (surplus.length === 0) return;
    const publicIds = surplus.map((session) => session.publicId);
    await tx.em.nativeDelete(Session, { publicId: { $in: publicIds } });
    await this.storage.changes.note(tx.em, [userId]);
    this.audit.record(tx, {
      type: 'session_revoked',
      userId,
      detail: { sessions: publicIds.length, limit: this.limits.maxPerUser },
    });
    const ended = new Set(publicIds);
    tx.afterCommit(() => this.rows.deleteWhere((session) => ended.has(session.publicId)));
  }

  /** Deletes sessions past their expiry; run now and then, they are refused anyway. */
  async purgeExpired(): Promise<number> {
    const em = await this.storage.em();
    return em.nativeDelete(Session, { expiresAt: { $lte: new Date() } });
  }

  /** Writes the uses noted since the last flush. */
  flush(): Promise<void> {
    return this.seen.flush();
  }

  /** Drops held rows, for the room's other writer of the table (impersonation-sessions.ts), after it changed them. */
  dropHeld(which: (session: ActiveSession) => boolean): void {
    this.rows.deleteWhere(which);
  }

  close(): Promise<void> {
    return this.seen.close();
  }

  private async load(idHash: string): Promise<ActiveSession | undefined> {
    return loadSession(await this.storage.em(), idHash);
  }
}
