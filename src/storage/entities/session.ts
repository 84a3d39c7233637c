import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * A login session. The cookie holds 32 random bytes; only their SHA-256 is stored, so a leaked
 * database cannot be replayed as cookies. The public id names the session where its owner sees it
 * (`/api/sessions`): it is drawn apart from the cookie's secret and cannot be turned into it.
 */
export const Session = defineEntity({
  name: 'Session',
  tableName: 'service_auth_sessions',
  properties: {
    idHash: p.string().length(64).primary(),
    publicId: p.string().length(16).unique(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Within a minute: written when a request comes more than a minute after the last write. */
    lastSeenAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().index('service_auth_sessions_expires_at_index'),
    /** The `User-Agent` of the login, cut to 512 characters; null when it sent none. */
    userAgent: p.string().length(512).nullable(),
    /**
     * Impersonation (docs/impersonation.md): the user acting as `user`, the public id of their own
     * session (set aside meanwhile, restored at the end), and when the impersonation ends. All
     * null for an ordinary session. Plain columns, not relations: the store checks the
     * impersonator's session whenever it reads the row, and a row whose impersonator or session is
     * gone counts as no session.
     */
    impersonatorId: p.integer().nullable(),
    impersonatorSession: p.string().length(16).nullable(),
    impersonationEndsAt: p.datetime().nullable(),
  },
});

export type Session = InferEntity<typeof Session>;
