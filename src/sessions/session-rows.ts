/**
 * A session as the store holds it (its row, read once and kept until the change feed names its
 * user) and as its owner sees it on the sessions page, which never shows the cookie's secret or
 * its hash.
 */
import { Session } from '../storage/entities/index.js';
import type { EntityManager } from '../storage/orm.js';
import { impersonationOf, type SessionImpersonation } from './impersonation-sessions.js';

export interface ActiveSession {
  idHash: string;
  publicId: string;
  userId: number;
  expiresAt: Date;
  /** As stored when the row was read, or as the next flush will store it. */
  lastSeenAt: Date;
  /** Set when the session is one of acting as its user (impersonation-sessions.ts). */
  impersonation?: SessionImpersonation;
}

/** A session as its owner sees it (`GET /api/sessions`): never the cookie's secret or its hash. */
export interface SessionView {
  id: string;
  created_at: string;
  last_seen_at: string;
  user_agent: string | null;
  /** The session of the request that asked. */
  current: boolean;
}

/** The live session with this hash, with its impersonation if it is one (and that is still valid). */
export async function loadSession(em: EntityManager, idHash: string): Promise<ActiveSession | undefined> {
  const row = await em.findOne(Session, { idHash, expiresAt: { $gt: new Date() } });
  if (!row) return undefined;
  const session: ActiveSession = {
    idHash,
    publicId: row.publicId,
    userId: row.user.id,
    expiresAt: row.expiresAt,
    lastSeenAt: row.lastSeenAt,
  };
  if (row.impersonatorId === null || row.impersonatorId === undefined) return session;
  const impersonation = await impersonationOf(em, row);
  return impersonation ? { ...session, impersonation } : undefined;
}

/** A row as its owner sees it; `noted` is a use not yet written (newer than the row's time). */
export function viewOf(row: Session, noted: number | undefined, currentPublicId: string | undefined): SessionView {
  const lastSeen = noted !== undefined && noted > row.lastSeenAt.getTime() ? new Date(noted) : row.lastSeenAt;
  return {
    id: row.publicId,
    created_at: row.createdAt.toISOString(),
    last_seen_at: lastSeen.toISOString(),
    user_agent: row.userAgent ?? null,
    current: row.publicId === currentPublicId,
  };
}
