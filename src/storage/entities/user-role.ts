import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { Role } from './role.js';
import { User } from './user.js';

const p = defineEntity.properties;

/** The link between a user and a role they hold. */
export const UserRole = defineEntity({
  name: 'UserRole',
  tableName: 'service_auth_user_roles',
  properties: {
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    role: () => p.manyToOne(Role).primary().deleteRule('cascade').index(),
  },
});

export type UserRole = InferEntity<typeof UserRole>;
