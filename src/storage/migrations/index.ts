import type { MigrationObject } from '@mikro-orm/core';
import { MIGRATION_NAMES, type MigrationName } from './names.js';
import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';
import { Migration20261122000000_unique_token_hash } from './Migration20261122000000_unique_token_hash.js';
import { Migration20261123000000_account_lifecycle } from './Migration20261123000000_account_lifecycle.js';
import { Migration20261124000000_change_feed } from './Migration20261124000000_change_feed.js';
import { Migration20261125000000_audit_log } from './Migration20261125000000_audit_log.js';
import { Migration20261125100000_second_factor } from './Migration20261125100000_second_factor.js';
import { Migration20261126000000_organizations } from './Migration20261126000000_organizations.js';
import { Migration20261127000000_identities } from './Migration20261127000000_identities.js';
import { Migration20261127100000_impersonation } from './Migration20261127100000_impersonation.js';

/** Each migration's class by its name: a name without a class, or a class without a name, does not compile. */
const CLASSES: Record<MigrationName, MigrationObject['class']> = {
  Migration20261121000000_initial,
  Migration20261122000000_unique_token_hash,
  Migration20261123000000_account_lifecycle,
  Migration20261124000000_change_feed,
  Migration20261125000000_audit_log,
  Migration20261125100000_second_factor,
  Migration20261126000000_organizations,
  Migration20261127000000_identities,
  Migration20261127100000_impersonation,
};

/** Every migration, in order. Listed explicitly so that they run the same from src/ and dist/. */
export const MIGRATIONS: MigrationObject[] = MIGRATION_NAMES.map((name) => ({ name, class: CLASSES[name] }));
