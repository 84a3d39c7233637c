import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * A login session. The cookie holds 32 random bytes; only their SHA-256 is stored, so a leaked
 * database cannot be replayed as cookies.
 */
export const Session = defineEntity({
  name: 'Session',
  tableName: 'service_auth_sessions',
  properties: {
    idHash: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().index('service_auth_sessions_expires_at_index'),
  },
});

export type Session = InferEntity<typeof Session>;
