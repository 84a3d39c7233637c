// ../Migration20261121000000_initial.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261121000000_initial: FrozenMigration = {
  sqlite: {
    up: [
      'create table `service_auth_roles` (`id` integer not null primary key autoincrement, `name` ' +
        'varchar(64) not null, `created_at` datetime not null)',
      'create unique index `service_auth_roles_name_unique` on `service_auth_roles` (`name`)',
      'create table `service_auth_users` (`id` integer not null primary key autoincrement, `email` ' +
        'varchar(254) not null, `password_hash` varchar(255) not null, `is_admin` boolean not null default ' +
        'false, `created_at` datetime not null, `updated_at` datetime not null)',
      'create unique index `service_auth_users_email_unique` on `service_auth_users` (`email`)',
      'create table `service_auth_user_roles` (`user_id` integer not null, `role_id` integer not null, ' +
        'foreign key(`user_id`) references `service_auth_users`(`id`) on delete cascade on update cascade, ' +
        'foreign key(`role_id`) references `service_auth_roles`(`id`) on delete cascade on update cascade, ' +
        'primary key (`user_id`, `role_id`))',
      'create index `service_auth_user_roles_user_id_index` on `service_auth_user_roles` (`user_id`)',
      'create index `service_auth_user_roles_role_id_index` on `service_auth_user_roles` (`role_id`)',
      'create table `service_auth_sessions` (`id_hash` varchar(64) not null, `user_id` integer not null, ' +
        '`created_at` datetime not null, `expires_at` datetime not null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade, primary key (`id_hash`))',
      'create index `service_auth_sessions_user_id_index` on `service_auth_sessions` (`user_id`)',
      'create index `service_auth_sessions_expires_at_index` on `service_auth_sessions` (`expires_at`)',
      'create table `service_auth_password_resets` (`token_hash` varchar(64) not null, `user_id` integer ' +
        'not null, `created_at` datetime not null, `expires_at` datetime not null, `used_at` datetime null, ' +
        'foreign key(`user_id`) references `service_auth_users`(`id`) on delete cascade on update cascade, ' +
        'primary key (`token_hash`))',
      'create index `service_auth_password_resets_user_id_index` on `service_auth_password_resets` ' + '(`user_id`)',
      'create table `service_auth_api_tokens` (`id` integer not null primary key autoincrement, `public_id` ' +
        'varchar(32) not null, `user_id` integer not null, `name` varchar(100) not null, `algorithm` ' +
        'varchar(32) not null, `hash` varchar(128) not null, `salt` varchar(64) null, `iterations` integer ' +
        'null, `scopes` json not null, `created_at` datetime not null, `last_used_at` datetime null, ' +
        '`expires_at` datetime null, `revoked_at` datetime null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade)',
      'create unique index `service_auth_api_tokens_public_id_unique` on `service_auth_api_tokens` ' + '(`public_id`)',
      'create index `service_auth_api_tokens_user_id_index` on `service_auth_api_tokens` (`user_id`)',
      'create index `service_auth_api_tokens_hash_index` on `service_auth_api_tokens` (`hash`)',
    ],
    down: [
      'drop table if exists `service_auth_api_tokens`',
      'drop table if exists `service_auth_password_resets`',
      'drop table if exists `service_auth_sessions`',
      'drop table if exists `service_auth_user_roles`',
      'drop table if exists `service_auth_users`',
      'drop table if exists `service_auth_roles`',
    ],
  },
  postgresql: {
    up: [
      'create table "service_auth_roles" ("id" serial primary key, "name" varchar(64) not null, ' +
        '"created_at" timestamptz not null)',
      'alter table "service_auth_roles" add constraint "service_auth_roles_name_unique" unique ("name")',
      'create table "service_auth_users" ("id" serial primary key, "email" varchar(254) not null, ' +
        '"password_hash" varchar(255) not null, "is_admin" boolean not null default false, "created_at" ' +
        'timestamptz not null, "updated_at" timestamptz not null)',
      'alter table "service_auth_users" add constraint "service_auth_users_email_unique" unique ("email")',
      'create table "service_auth_user_roles" ("user_id" integer not null, "role_id" integer not null, ' +
        'constraint "service_auth_user_roles_pkey" primary key ("user_id", "role_id"))',
      'create index "service_auth_user_roles_role_id_index" on "service_auth_user_roles" ("role_id")',
      'alter table "service_auth_user_roles" add constraint "service_auth_user_roles_user_id_foreign" ' +
        'foreign key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'alter table "service_auth_user_roles" add constraint "service_auth_user_roles_role_id_foreign" ' +
        'foreign key ("role_id") references "service_auth_roles" ("id") on update cascade on delete cascade',
      'create table "service_auth_sessions" ("id_hash" varchar(64) not null, "user_id" integer not null, ' +
        '"created_at" timestamptz not null, "expires_at" timestamptz not null, constraint ' +
        '"service_auth_sessions_pkey" primary key ("id_hash"))',
      'create index "service_auth_sessions_user_id_index" on "service_auth_sessions" ("user_id")',
      'alter table "service_auth_sessions" add constraint "service_auth_sessions_user_id_foreign" foreign ' +
        'key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'create index "service_auth_sessions_expires_at_index" on "service_auth_sessions" ("expires_at")',
      'create table "service_auth_password_resets" ("token_hash" varchar(64) not null, "user_id" integer ' +
        'not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" ' +
        'timestamptz null, constraint "service_auth_password_resets_pkey" primary key ("token_hash"))',
      'create index "service_auth_password_resets_user_id_index" on "service_auth_password_resets" ' + '("user_id")',
      'alter table "service_auth_password_resets" add constraint ' +
        '"service_auth_password_resets_user_id_foreign" foreign key ("user_id") references ' +
        '"service_auth_users" ("id") on update cascade on delete cascade',
      'create table "service_auth_api_tokens" ("id" serial primary key, "public_id" varchar(32) not null, ' +
        '"user_id" integer not null, "name" varchar(100) not null, "algorithm" varchar(32) not null, "hash" ' +
        'varchar(128) not null, "salt" varchar(64) null, "iterations" integer null, "scopes" jsonb not null, ' +
        '"created_at" timestamptz not null, "last_used_at" timestamptz null, "expires_at" timestamptz null, ' +
        '"revoked_at" timestamptz null)',
      'alter table "service_auth_api_tokens" add constraint "service_auth_api_tokens_public_id_unique" ' +
        'unique ("public_id")',
      'create index "service_auth_api_tokens_user_id_index" on "service_auth_api_tokens" ("user_id")',
      'alter table "service_auth_api_tokens" add constraint "service_auth_api_tokens_user_id_foreign" ' +
        'foreign key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'create index "service_auth_api_tokens_hash_index" on "service_auth_api_tokens" ("hash")',
    ],
    down: [
      'drop table if exists "service_auth_api_tokens"',
      'drop table if exists "service_auth_password_resets"',
      'drop table if exists "service_auth_sessions"',
      'drop table if exists "service_auth_user_roles"',
      'drop table if exists "service_auth_users"',
      'drop table if exists "service_auth_roles"',
    ],
  },
};
