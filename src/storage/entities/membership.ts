import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { Organization } from './organization.js';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * A user's membership of an organization, with the organization roles they hold there (names, as
 * JSON; what a role permits is `auth.defineOrgRole`'s). One per user and organization; it goes
 * with either.
 */
export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'service_auth_memberships',
  properties: {
    id: p.integer().primary().autoincrement(),
    // Lookups by organization use the unique index, which begins with it.
    org: () => p.manyToOne(Organization).deleteRule('cascade').updateRule('cascade'),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    roles: p.json<string[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'service_auth_memberships_org_id_user_id_unique', properties: ['org', 'user'] }],
});

export type Membership = InferEntity<typeof Membership>;
