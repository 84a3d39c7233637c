import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * A link mailed to confirm an address: the account's own (`confirm`) or the one it is changing to
 * (`change`). Stored as the SHA-256 of the 32 random bytes in the link, with the address it
 * confirms, so that a link stops working once the account's address is no longer that one.
 */
export const EmailToken = defineEntity({
  name: 'EmailToken',
  tableName: 'service_auth_email_tokens',
  properties: {
    tokenHash: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    /** `confirm` or `change`. */
    purpose: p.string().length(16),
    email: p.string().length(254),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});

export type EmailToken = InferEntity<typeof EmailToken>;
