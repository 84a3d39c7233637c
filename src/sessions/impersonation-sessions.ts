/**
 * The sessions of impersonation (docs/impersonation.md): a user acting as another gets a new
 * session of the other's, marked with the impersonator, while the impersonator's own session is
 * kept aside and given back at the end. The session store owns the table; this is its other writer,
 * in the same room, and drops what the store holds of the rows it changes.
 *
 * Why the impersonator's own session is set aside rather than left as it was: its cookie leaves the
 * browser (the impersonation's replaces it), so its secret is replaced by one nobody holds, and at
 * the end by a new one for the browser. A cookie copied before, or during, the impersonation is of
 * no use afterwards: a change of who the browser acts as always comes with a new session id.
 */
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditEntry } from '../audit/records.js';
import { randomSecret, sha256Hex } from '../secrets.js';
import { Session } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import type { Storage } from '../storage/storage.js';
import { cleanUserAgent, newPublicId } from './session-fields.js';
import type { ActiveSession, SessionStore } from './store.js';

/** What marks a session as one of impersonation. */
export interface SessionImpersonation {
  /** The user really acting. */
  impersonatorId: number;
  /** The public id of the impersonator's own session, set aside until the end. */
  impersonatorSession: string;
  endsAt: Date;
}

export interface ImpersonationStart {
  /** The public id of the session the impersonator's request came with. */
  fromSession: string;
  impersonatorId: number;
  targetId: number;
  endsAt: Date;
  userAgent?: string | undefined;
  /** `impersonation_started`, written with it (the new session's public id is added). */
  record: AuditEntry;
}

/** A session for the browser: the raw id (for the cookie, and nowhere else), its expiry and public id. */
export interface IssuedSession {
  id: string;
  expiresAt: Date;
  publicId: string;
}

/**
 * The impersonation a stored session row carries, if its impersonator's own session is still live;
 * undefined when that session has ended (the impersonation then counts as no session at all).
 */
export async function impersonationOf(em: EntityManager, row: Session): Promise<SessionImpersonation | undefined> {
  const { impersonatorId, impersonatorSession, impersonationEndsAt } = row;
  if (impersonatorId == null || impersonatorSession == null || impersonationEndsAt == null) return undefined;
  const own = await em.count(Session, {
    publicId: impersonatorSession,
    user: impersonatorId,
    expiresAt: { $gt: new Date() },
  });
  return own > 0 ? { impersonatorId, impersonatorSession, endsAt: impersonationEndsAt } : undefined;
}

export class ImpersonationSessions {
  constructor(
    private readonly storage: Storage,
    private readonly audit: AuditLog,
    private readonly store: SessionStore,
  ) {}

  /**
   * Starts acting as the target: a session of the target's that lives no longer than the
   * impersonator's own (whose secret is replaced by one nobody holds). Null if that session has
   * ended meanwhile. Not counted against the target's sessions cap: it ends none of theirs.
   */
  async start(start: ImpersonationStart): Promise<IssuedSession | null> {
    const id = randomSecret();
    const publicId = newPublicId();
    const em = await this.storage.em();
    const started = await this.storage.transaction(em, async (tx) => {
      const own = { publicId: start.fromSession, user: start.impersonatorId, expiresAt: { $gt: new Date() } };
      if ((await tx.em.nativeUpdate(Session, own, { idHash: sha256Hex(randomSecret()) })) === 0) return null;
      const { expiresAt } = await tx.em.findOneOrFail(
        Session,
        { publicId: start.fromSession },
        { fields: ['expiresAt'] },
      );
      tx.em.create(Session, {
        idHash: sha256Hex(id),
        publicId,
        user: start.targetId,
        expiresAt,
        userAgent: cleanUserAgent(start.userAgent),
        impersonatorId: start.impersonatorId,
        impersonatorSession: start.fromSession,
        impersonationEndsAt: start.endsAt,
      });
      // Other instances drop the impersonator's session as they held it (its old secret).
      await this.storage.changes.note(tx.em, [start.impersonatorId]);
      this.audit.record(tx, { ...start.record, detail: { ...start.record.detail, session: publicId } });
      return { id, expiresAt, publicId };
    });
    this.store.dropHeld((session) => session.publicId === start.fromSession);
    return started;
  }

  /**
   * Ends the impersonation of this session (stopped, or its time up): deletes it, and gives the
   * impersonator's own session back with a new secret. `record` (`impersonation_ended`) is written
   * with it. Null if the impersonation was ended meanwhile (by a concurrent request) or the
   * impersonator's session is gone: the browser then has no session.
   */
  async end(
    session: ActiveSession & { impersonation: SessionImpersonation },
    record: AuditEntry,
  ): Promise<IssuedSession | null> {
    const { impersonatorId, impersonatorSession } = session.impersonation;
    const id = randomSecret();
    const em = await this.storage.em();
    const restored = await this.storage.transaction(em, async (tx) => {
      if ((await tx.em.nativeDelete(Session, { idHash: session.idHash })) === 0) return null;
      await this.storage.changes.note(tx.em, [session.userId]);
      this.audit.record(tx, record);
      const own = { publicId: impersonatorSession, user: impersonatorId, expiresAt: { $gt: new Date() } };
      if ((await tx.em.nativeUpdate(Session, own, { idHash: sha256Hex(id) })) === 0) return null;
      const { expiresAt } = await tx.em.findOneOrFail(
        Session,
        { publicId: impersonatorSession },
        { fields: ['expiresAt'] },
      );
      return { id, expiresAt, publicId: impersonatorSession };
    });
    this.store.dropHeld((held) => held.idHash === session.idHash);
    return restored;
  }
}
