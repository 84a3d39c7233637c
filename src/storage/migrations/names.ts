/**
 * Every migration's name, in order: what the migrations table records once one is applied. Apart
 * from the classes (index.ts), so that opening an up-to-date database can check the table without
 * loading them and @mikro-orm/migrations; index.ts's types make the two lists agree.
 */
export const MIGRATION_NAMES = [
  'Migration20261121000000_initial',
  'Migration20261122000000_unique_token_hash',
  'Migration20261123000000_account_lifecycle',
  'Migration20261124000000_change_feed',
  'Migration20261125000000_audit_log',
  'Migration20261125100000_second_factor',
  'Migration20261126000000_organizations',
  'Migration20261127000000_identities',
  'Migration20261127100000_impersonation',
] as const;

export type MigrationName = (typeof MIGRATION_NAMES)[number];
