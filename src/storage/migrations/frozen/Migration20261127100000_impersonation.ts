// ../Migration20261127100000_impersonation.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261127100000_impersonation: FrozenMigration = {
  sqlite: {
    up: [
      'alter table `service_auth_sessions` add column `impersonator_id` integer null',
      'alter table `service_auth_sessions` add column `impersonator_session` varchar(16) null',
      'alter table `service_auth_sessions` add column `impersonation_ends_at` datetime null',
    ],
    down: [
      'alter table service_auth_sessions drop column impersonation_ends_at',
      'alter table service_auth_sessions drop column impersonator_session',
      'alter table service_auth_sessions drop column impersonator_id',
    ],
  },
  postgresql: {
    up: [
      'alter table "service_auth_sessions" add column "impersonator_id" integer null, add column ' +
        '"impersonator_session" varchar(16) null, add column "impersonation_ends_at" timestamptz null',
    ],
    down: [
      'alter table service_auth_sessions drop column impersonation_ends_at',
      'alter table service_auth_sessions drop column impersonator_session',
      'alter table service_auth_sessions drop column impersonator_id',
    ],
  },
};
