import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * One row of the audit log (src/audit/): a security-relevant action, who and where from. The ids
 * are given by the appender, one after the last, under the chain's lock: they are the chain's order.
 * `detail` is kept as the exact JSON text the hash covers. No foreign key: the record of a deleted
 * user stays. The table takes the name the specification gives it, `auth_events`, rather than our `service_auth_`
 * prefix: it is the one table operators and compliance tools are told to query by name.
 */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'auth_events',
  properties: {
    id: p.integer().primary().autoincrement(false),
    at: p.datetime().index('auth_events_at_index'),
    type: p.string().length(40),
    outcome: p.string().length(10),
    userId: p.integer().nullable(),
    email: p.string().length(320).nullable().index('auth_events_email_index'),
    ip: p.string().length(64).nullable(),
    userAgent: p.string().length(256).nullable(),
    reason: p.string().length(64).nullable(),
    detail: p.text(),
    hash: p.string().length(64),
  },
  indexes: [{ name: 'auth_events_user_id_index', properties: ['userId', 'id'] }],
});

export type AuditEvent = InferEntity<typeof AuditEvent>;
