import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';
import { Migration20261122000000_unique_token_hash } from './Migration20261122000000_unique_token_hash.js';
import { Migration20261123000000_account_lifecycle } from './Migration20261123000000_account_lifecycle.js';
import { Migration20261124000000_change_feed } from './Migration20261124000000_change_feed.js';
import { Migration20261125000000_audit_log } from './Migration20261125000000_audit_log.js';
import { Migration20261125100000_second_factor } from './Migration20261125100000_second_factor.js';

/** Every migration, in order. Listed explicitly so that they run the same from src/ and dist/. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_initial', class: Migration20261121000000_initial },
  { name: 'Migration20261122000000_unique_token_hash', class: Migration20261122000000_unique_token_hash },
  { name: 'Migration20261123000000_account_lifecycle', class: Migration20261123000000_account_lifecycle },
  { name: 'Migration20261124000000_change_feed', class: Migration20261124000000_change_feed },
  { name: 'Migration20261125000000_audit_log', class: Migration20261125000000_audit_log },
  { name: 'Migration20261125100000_second_factor', class: Migration20261125100000_second_factor },
];
