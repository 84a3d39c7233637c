import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { User } from './user.js';

const p = defineEntity.properties;

/**
 * The ticket a right password earns a user with a second factor: the second step of the login
 * names it. Stored as its SHA-256; single use, five minutes, and ended by its fifth wrong code.
 */
export const LoginTicket = defineEntity({
  name: 'LoginTicket',
  tableName: 'service_auth_login_tickets',
  properties: {
    ticketHash: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').updateRule('cascade').index(),
    expiresAt: p.datetime(),
    failures: p.integer(),
  },
});

export type LoginTicket = InferEntity<typeof LoginTicket>;
