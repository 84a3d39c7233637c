import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/** A role is a name; the permissions it grants are defined in code (`auth.defineRole`). */
export const Role = defineEntity({
  name: 'Role',
  tableName: 'service_auth_roles',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Role = InferEntity<typeof Role>;
