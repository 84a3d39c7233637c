/**
 * The migrations as SQL, for MikroORM 7, which has no knex to compile the migrations' schema
 * builders: each replays, on SQLite or PostgreSQL, what the migration compiles to on MikroORM 6
 * (scripts/freeze-migrations.ts writes them; a test keeps them equal).
 */
import type { MigrationObject, Platform } from '@mikro-orm/core';
import type { Migration } from '@mikro-orm/migrations';
import { MIGRATION_NAMES, type MigrationName } from '../names.js';
import type { FrozenMigration, Statements } from './frozen-migration.js';
import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';
import { Migration20261122000000_unique_token_hash } from './Migration20261122000000_unique_token_hash.js';
import { Migration20261123000000_account_lifecycle } from './Migration20261123000000_account_lifecycle.js';
import { Migration20261124000000_change_feed } from './Migration20261124000000_change_feed.js';
import { Migration20261125000000_audit_log } from './Migration20261125000000_audit_log.js';
import { Migration20261125100000_second_factor } from './Migration20261125100000_second_factor.js';
import { Migration20261126000000_organizations } from './Migration20261126000000_organizations.js';
import { Migration20261127000000_identities } from './Migration20261127000000_identities.js';
import { Migration20261127100000_impersonation } from './Migration20261127100000_impersonation.js';

const FROZEN: Record<MigrationName, FrozenMigration> = {
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

/** Every migration, in order, as classes of `Migration` (the installed @mikro-orm/migrations') that replay the SQL. */
export function frozenMigrations(Base: typeof Migration, isSqlite: (platform: Platform) => boolean): MigrationObject[] {
  return MIGRATION_NAMES.map((name) => {
    class Frozen extends Base {
      private statements(): Statements {
        return FROZEN[name][isSqlite(this.driver.getPlatform()) ? 'sqlite' : 'postgresql'];
      }

      override up(): void {
        for (const sql of this.statements().up) this.addSql(sql);
      }

      override down(): void {
        for (const sql of this.statements().down) this.addSql(sql);
      }
    }
    return { name, class: Frozen };
  });
}
