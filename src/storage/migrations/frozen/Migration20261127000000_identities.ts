// ../Migration20261127000000_identities.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261127000000_identities: FrozenMigration = {
  sqlite: {
    up: [
      'create table `service_auth_identities` (`id` integer not null primary key autoincrement, `user_id` ' +
        'integer not null, `provider` varchar(32) not null, `subject` varchar(255) not null, `email` ' +
        'varchar(254) null, `created_at` datetime not null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade)',
      'create index `service_auth_identities_user_id_index` on `service_auth_identities` (`user_id`)',
      'create unique index `service_auth_identities_provider_subject_unique` on `service_auth_identities` ' +
        '(`provider`, `subject`)',
      'create table `service_auth_sso_attempts` (`id_hash` varchar(64) not null, `provider` varchar(32) not ' +
        'null, `state` varchar(128) not null, `nonce` varchar(128) null, `code_verifier` varchar(128) not ' +
        'null, `next` varchar(2048) null, `link_user_id` integer null, `expires_at` datetime not null, ' +
        'primary key (`id_hash`))',
    ],
    down: ['drop table if exists `service_auth_sso_attempts`', 'drop table if exists `service_auth_identities`'],
  },
  postgresql: {
    up: [
      'create table "service_auth_identities" ("id" serial primary key, "user_id" integer not null, ' +
        '"provider" varchar(32) not null, "subject" varchar(255) not null, "email" varchar(254) null, ' +
        '"created_at" timestamptz not null)',
      'create index "service_auth_identities_user_id_index" on "service_auth_identities" ("user_id")',
      'alter table "service_auth_identities" add constraint "service_auth_identities_user_id_foreign" ' +
        'foreign key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'alter table "service_auth_identities" add constraint ' +
        '"service_auth_identities_provider_subject_unique" unique ("provider", "subject")',
      'create table "service_auth_sso_attempts" ("id_hash" varchar(64) not null, "provider" varchar(32) not ' +
        'null, "state" varchar(128) not null, "nonce" varchar(128) null, "code_verifier" varchar(128) not ' +
        'null, "next" varchar(2048) null, "link_user_id" integer null, "expires_at" timestamptz not null, ' +
        'constraint "service_auth_sso_attempts_pkey" primary key ("id_hash"))',
    ],
    down: ['drop table if exists "service_auth_sso_attempts"', 'drop table if exists "service_auth_identities"'],
  },
};
