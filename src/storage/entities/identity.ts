import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * An account at an identity provider linked to a user (src/sso/): the provider's id as configured
 * and the subject it names the person by. One (provider, subject) signs in one user; the address
 * is what the provider said when the link was made, for the user to recognise it by.
 */
export const Identity = defineEntity({
  name: 'Identity',
  tableName: 'service_auth_identities',
  uniques: [{ properties: ['provider', 'subject'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    provider: p.string().length(32),
    subject: p.string().length(255),
    email: p.string().length(254).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Identity = InferEntity<typeof Identity>;
