import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { Organization } from './organization.js';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * An invitation to join an organization with some roles, mailed to an address as a link. Only the
 * SHA-256 of the link's 32 random bytes is stored. Usable once, until `expiresAt`, unless revoked;
 * `invitedBy` outlives nobody (set null when that user is deleted).
 */
export const Invitation = defineEntity({
  name: 'Invitation',
  tableName: 'service_auth_invitations',
  properties: {
    id: p.integer().primary().autoincrement(),
    org: () => p.manyToOne(Organization).deleteRule('cascade').updateRule('cascade').index(),
    /** Stored as users' addresses are (trimmed, lower case), and compared with them so. */
    email: p.string().length(254),
    roles: p.json<string[]>(),
    tokenHash: p.string().length(64).unique(),
    invitedBy: () => p.manyToOne(User).deleteRule('set null').updateRule('cascade').nullable().index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export type Invitation = InferEntity<typeof Invitation>;
