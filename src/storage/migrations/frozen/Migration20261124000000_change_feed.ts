// ../Migration20261124000000_change_feed.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261124000000_change_feed: FrozenMigration = {
  sqlite: {
    up: [
      'create table `service_auth_changes` (`id` integer not null primary key autoincrement, `user_id` ' +
        'integer null, `at` datetime not null)',
      'create index `service_auth_changes_at_index` on `service_auth_changes` (`at`)',
    ],
    down: ['drop table if exists `service_auth_changes`'],
  },
  postgresql: {
    up: [
      'create table "service_auth_changes" ("id" serial primary key, "user_id" integer null, "at" ' +
        'timestamptz not null)',
      'create index "service_auth_changes_at_index" on "service_auth_changes" ("at")',
    ],
    down: ['drop table if exists "service_auth_changes"'],
  },
};
