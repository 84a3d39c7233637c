/**
 * The advisory lock an appender to `auth_events` holds until its transaction ends (PostgreSQL).
 * Its own module, so that the audit log can take it without loading the migrations (and with
 * them @mikro-orm/migrations).
 */
export const AUDIT_CHAIN_LOCK = 0x5a_a0d1_7e;
