import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * One of a user's ten recovery codes, as the SHA-256 of the code (80 random bits: nothing to
 * brute-force from a leaked table). Used once: `usedAt` set in the login's transaction.
 */
export const RecoveryCode = defineEntity({
  name: 'RecoveryCode',
  tableName: 'service_auth_recovery_codes',
  properties: {
    codeHash: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    usedAt: p.datetime().nullable(),
  },
});

export type RecoveryCode = InferEntity<typeof RecoveryCode>;
