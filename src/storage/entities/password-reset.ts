import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/** A password-reset token, stored as the SHA-256 of the 32 random bytes mailed to the user. */
export const PasswordReset = defineEntity({
  name: 'PasswordReset',
  tableName: 'service_auth_password_resets',
  properties: {
    tokenHash: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});

export type PasswordReset = InferEntity<typeof PasswordReset>;
