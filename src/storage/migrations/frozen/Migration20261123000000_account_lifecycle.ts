// ../Migration20261123000000_account_lifecycle.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261123000000_account_lifecycle: FrozenMigration = {
  sqlite: {
    up: [
      'alter table `service_auth_users` add column `disabled_at` datetime null',
      'alter table `service_auth_users` add column `email_confirmed_at` datetime null',
      'update service_auth_users set email_confirmed_at = created_at',
      'create table service_auth_sessions_part1 as select id_hash, user_id, created_at, expires_at from ' +
        'service_auth_sessions',
      'drop table if exists `service_auth_sessions`',
      'create table `service_auth_sessions` (`id_hash` varchar(64) not null, `public_id` varchar(16) not ' +
        'null, `user_id` integer not null, `created_at` datetime not null, `last_seen_at` datetime not null, ' +
        '`expires_at` datetime not null, `user_agent` varchar(512) null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade, primary key (`id_hash`))',
      'create unique index `service_auth_sessions_public_id_unique` on `service_auth_sessions` ' + '(`public_id`)',
      'create index `service_auth_sessions_user_id_index` on `service_auth_sessions` (`user_id`)',
      'create index `service_auth_sessions_expires_at_index` on `service_auth_sessions` (`expires_at`)',
      'insert into service_auth_sessions (id_hash, public_id, user_id, created_at, last_seen_at, ' +
        'expires_at) select id_hash, substr(id_hash, 1, 16), user_id, created_at, created_at, expires_at from ' +
        'service_auth_sessions_part1',
      'drop table if exists `service_auth_sessions_part1`',
      'create table `service_auth_email_tokens` (`token_hash` varchar(64) not null, `user_id` integer not ' +
        'null, `purpose` varchar(16) not null, `email` varchar(254) not null, `created_at` datetime not null, ' +
        '`expires_at` datetime not null, `used_at` datetime null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade, primary key (`token_hash`))',
      'create index `service_auth_email_tokens_user_id_index` on `service_auth_email_tokens` (`user_id`)',
    ],
    down: [
      'drop table if exists `service_auth_email_tokens`',
      'create table service_auth_sessions_part2 as select id_hash, user_id, created_at, expires_at from ' +
        'service_auth_sessions',
      'drop table if exists `service_auth_sessions`',
      'create table `service_auth_sessions` (`id_hash` varchar(64) not null, `user_id` integer not null, ' +
        '`created_at` datetime not null, `expires_at` datetime not null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade, primary key (`id_hash`))',
      'create index `service_auth_sessions_user_id_index` on `service_auth_sessions` (`user_id`)',
      'create index `service_auth_sessions_expires_at_index` on `service_auth_sessions` (`expires_at`)',
      'insert into service_auth_sessions (id_hash, user_id, created_at, expires_at) select id_hash, ' +
        'user_id, created_at, expires_at from service_auth_sessions_part2',
      'drop table if exists `service_auth_sessions_part2`',
      'alter table service_auth_users drop column email_confirmed_at',
      'alter table service_auth_users drop column disabled_at',
    ],
  },
  postgresql: {
    up: [
      'alter table "service_auth_users" add column "disabled_at" timestamptz null, add column ' +
        '"email_confirmed_at" timestamptz null',
      'update service_auth_users set email_confirmed_at = created_at',
      'create table service_auth_sessions_part1 as select id_hash, user_id, created_at, expires_at from ' +
        'service_auth_sessions',
      'drop table if exists "service_auth_sessions"',
      'create table "service_auth_sessions" ("id_hash" varchar(64) not null, "public_id" varchar(16) not ' +
        'null, "user_id" integer not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not ' +
        'null, "expires_at" timestamptz not null, "user_agent" varchar(512) null, constraint ' +
        '"service_auth_sessions_pkey" primary key ("id_hash"))',
      'alter table "service_auth_sessions" add constraint "service_auth_sessions_public_id_unique" unique ' +
        '("public_id")',
      'create index "service_auth_sessions_user_id_index" on "service_auth_sessions" ("user_id")',
      'alter table "service_auth_sessions" add constraint "service_auth_sessions_user_id_foreign" foreign ' +
        'key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'create index "service_auth_sessions_expires_at_index" on "service_auth_sessions" ("expires_at")',
      'insert into service_auth_sessions (id_hash, public_id, user_id, created_at, last_seen_at, ' +
        'expires_at) select id_hash, substr(id_hash, 1, 16), user_id, created_at, created_at, expires_at from ' +
        'service_auth_sessions_part1',
      'drop table if exists "service_auth_sessions_part1"',
      'create table "service_auth_email_tokens" ("token_hash" varchar(64) not null, "user_id" integer not ' +
        'null, "purpose" varchar(16) not null, "email" varchar(254) not null, "created_at" timestamptz not ' +
        'null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint ' +
        '"service_auth_email_tokens_pkey" primary key ("token_hash"))',
      'create index "service_auth_email_tokens_user_id_index" on "service_auth_email_tokens" ("user_id")',
      'alter table "service_auth_email_tokens" add constraint "service_auth_email_tokens_user_id_foreign" ' +
        'foreign key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
    ],
    down: [
      'drop table if exists "service_auth_email_tokens"',
      'create table service_auth_sessions_part2 as select id_hash, user_id, created_at, expires_at from ' +
        'service_auth_sessions',
      'drop table if exists "service_auth_sessions"',
      'create table "service_auth_sessions" ("id_hash" varchar(64) not null, "user_id" integer not null, ' +
        '"created_at" timestamptz not null, "expires_at" timestamptz not null, constraint ' +
        '"service_auth_sessions_pkey" primary key ("id_hash"))',
      'create index "service_auth_sessions_user_id_index" on "service_auth_sessions" ("user_id")',
      'alter table "service_auth_sessions" add constraint "service_auth_sessions_user_id_foreign" foreign ' +
        'key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'create index "service_auth_sessions_expires_at_index" on "service_auth_sessions" ("expires_at")',
      'insert into service_auth_sessions (id_hash, user_id, created_at, expires_at) select id_hash, ' +
        'user_id, created_at, expires_at from service_auth_sessions_part2',
      'drop table if exists "service_auth_sessions_part2"',
      'alter table service_auth_users drop column email_confirmed_at',
      'alter table service_auth_users drop column disabled_at',
    ],
  },
};
