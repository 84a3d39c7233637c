import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * One row of the change feed (storage/change-feed.ts): what a user's credentials grant changed
 * (a logout, a revocation, a role, a password, the account disabled or deleted, a membership), or,
 * with no user, everyone's; or, with an organization, that organization (renamed or deleted).
 * Written in the change's transaction; read by every instance. No foreign key: the row outlives a
 * deleted user or organization, whose copies other instances must drop.
 */
export const CredentialChange = defineEntity({
  name: 'CredentialChange',
  tableName: 'service_auth_changes',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer().nullable(),
    orgId: p.integer().nullable(),
    at: p
      .datetime()
      .onCreate(() => new Date())
      .index('service_auth_changes_at_index'),
  },
});

export type CredentialChange = InferEntity<typeof CredentialChange>;
