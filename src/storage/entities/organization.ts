import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * An organization (a tenant): its members hold organization roles in it (Membership). The slug is
 * lower-case `[a-z0-9-]{2,48}`, unique, and names it in URLs and the CLI like its id does.
 */
export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'service_auth_orgs',
  properties: {
    id: p.integer().primary().autoincrement(),
    slug: p.string().length(48).unique(),
    name: p.string().length(100),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Organization = InferEntity<typeof Organization>;
