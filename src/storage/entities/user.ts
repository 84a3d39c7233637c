import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { Role } from './role.js';
import { UserRole } from './user-role.js';

const p = defineEntity.properties;

export const User = defineEntity({
  name: 'User',
  tableName: 'service_auth_users',
  properties: {
    id: p.integer().primary().autoincrement(),
    // Stored trimmed and lower-cased (see users/emails), so the unique index is case-insensitive.
    email: p.string().length(254).unique(),
    passwordHash: p.string().length(255).hidden(),
    isAdmin: p.boolean().default(false),
    /** Set while an operator has disabled the account: its credentials are refused meanwhile. */
    disabledAt: p.datetime().nullable(),
    /** When the address was confirmed; null until then (SERVICE_AUTH_EMAIL_CONFIRMATION). */
    emailConfirmedAt: p.datetime().nullable(),
    /** When a second factor was confirmed; null without one (src/mfa/). Logging in then takes two steps. */
    mfaEnabledAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    roles: () => p.manyToMany(Role).pivotEntity(() => UserRole),
  },
});

export type User = InferEntity<typeof User>;
