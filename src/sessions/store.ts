/**
 * Server-side sessions. The cookie carries 32 random bytes; the database keeps only their
 * SHA-256, so a leaked table is no set of cookies. A session lives SERVICE_AUTH_SESSION_TTL from
 * login, without sliding: re-authentication is periodic whatever the activity.
 *
 * Lookups are cached for at most REVALIDATE_MS, so a busy session costs no query per request while
 * a logout or reset on another instance sharing the database takes effect within a second. A
 * logout on this instance evicts at once.
 */
import { randomSecret, sha256Hex } from '../secrets.js';
import { Session } from '../storage/entities/index.js';
import { RowCache } from '../storage/row-cache.js';
import type { Storage } from '../storage/storage.js';

export interface ActiveSession {
  idHash: string;
  userId: number;
  expiresAt: Date;
}

/** Expired rows are refused when read; they are deleted at most this often, at a login. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export class SessionStore {
  private readonly rows: RowCache<string, ActiveSession>;
  private lastPurge = 0;

  constructor(
    private readonly storage: Storage,
    private readonly ttlSeconds: number,
  ) {
    this.rows = new RowCache((idHash) => this.load(idHash));
  }

  /** Starts a session; returns the raw id for the cookie (the only place it exists). */
  async create(userId: number): Promise<{ id: string; expiresAt: Date }> {
    const id = randomSecret();
    const expiresAt = new Date(Date.now() + this.ttlSeconds * 1000);
    const em = await this.storage.em();
    em.create(Session, { idHash: sha256Hex(id), user: userId, expiresAt });
    await em.flush();
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
    if (session.expiresAt.getTime() > Date.now()) return session;
    this.rows.delete(session.idHash);
    return null;
  }

  /** Ends one session (logout, or the session a login replaces). */
  async destroy(id: string): Promise<void> {
    const idHash = sha256Hex(id);
    const em = await this.storage.em();
    await em.nativeDelete(Session, { idHash });
    // After the delete: a read that started before it must not be kept.
    this.rows.delete(idHash);
  }

  /** Forgets the cached sessions of a user whose sessions were just deleted (password reset). */
  evictUser(userId: number): void {
    this.rows.deleteWhere((session) => session.userId === userId);
  }

  /** Deletes sessions past their expiry; run now and then, they are refused anyway. */
  async purgeExpired(): Promise<number> {
    const em = await this.storage.em();
    return em.nativeDelete(Session, { expiresAt: { $lte: new Date() } });
  }

  private async load(idHash: string): Promise<ActiveSession | undefined> {
    const em = await this.storage.em();
    const row = await em.findOne(Session, { idHash, expiresAt: { $gt: new Date() } });
    return row ? { idHash, userId: row.user.id, expiresAt: row.expiresAt } : undefined;
  }
}
