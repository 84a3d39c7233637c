/**
 * Every table the package creates in the database it is given: its entities' and the one that
 * records its migrations. An application that runs its own MikroORM schema tools on the same
 * database names them in `schemaGenerator.skipTables`, or `schema:update` drops them as tables it
 * does not know (test/storage checks the list against a migrated database).
 */
export const MIGRATIONS_TABLE = 'service_auth_migrations';

export const SERVICE_AUTH_TABLES: readonly string[] = Object.freeze([
  'auth_events',
  'service_auth_api_tokens',
  'service_auth_changes',
  'service_auth_email_tokens',
  'service_auth_identities',
  'service_auth_invitations',
  'service_auth_login_tickets',
  'service_auth_memberships',
  MIGRATIONS_TABLE,
  'service_auth_orgs',
  'service_auth_passkeys',
  'service_auth_password_resets',
  'service_auth_recovery_codes',
  'service_auth_roles',
  'service_auth_sessions',
  'service_auth_sso_attempts',
  'service_auth_totp',
  'service_auth_user_roles',
  'service_auth_users',
  'service_auth_webauthn_challenges',
]);
