// ../Migration20261126000000_organizations.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261126000000_organizations: FrozenMigration = {
  sqlite: {
    up: [
      'create table `service_auth_orgs` (`id` integer not null primary key autoincrement, `slug` ' +
        'varchar(48) not null, `name` varchar(100) not null, `created_at` datetime not null)',
      'create unique index `service_auth_orgs_slug_unique` on `service_auth_orgs` (`slug`)',
      'create table `service_auth_memberships` (`id` integer not null primary key autoincrement, `org_id` ' +
        'integer not null, `user_id` integer not null, `roles` json not null, `created_at` datetime not null, ' +
        'foreign key(`user_id`) references `service_auth_users`(`id`) on delete cascade on update cascade, ' +
        'foreign key(`org_id`) references `service_auth_orgs`(`id`) on delete cascade on update cascade)',
      'create index `service_auth_memberships_org_id_index` on `service_auth_memberships` (`org_id`)',
      'create index `service_auth_memberships_user_id_index` on `service_auth_memberships` (`user_id`)',
      'create unique index `service_auth_memberships_org_id_user_id_unique` on `service_auth_memberships` ' +
        '(`org_id`, `user_id`)',
      'create table `service_auth_invitations` (`id` integer not null primary key autoincrement, `org_id` ' +
        'integer not null, `email` varchar(254) not null, `roles` json not null, `token_hash` varchar(64) not ' +
        'null, `invited_by_id` integer null, `created_at` datetime not null, `expires_at` datetime not null, ' +
        '`accepted_at` datetime null, `revoked_at` datetime null, foreign key(`org_id`) references ' +
        '`service_auth_orgs`(`id`) on delete cascade on update cascade, foreign key(`invited_by_id`) ' +
        'references `service_auth_users`(`id`) on delete set null on update cascade)',
      'create index `service_auth_invitations_org_id_index` on `service_auth_invitations` (`org_id`)',
      'create unique index `service_auth_invitations_token_hash_unique` on `service_auth_invitations` ' +
        '(`token_hash`)',
      'create index `service_auth_invitations_invited_by_id_index` on `service_auth_invitations` ' +
        '(`invited_by_id`)',
      'alter table `service_auth_changes` add column `org_id` integer null',
      'alter table service_auth_api_tokens add column org_id integer null references service_auth_orgs (id) ' +
        'on update cascade on delete cascade',
      'create index service_auth_api_tokens_org_id_index on service_auth_api_tokens (org_id)',
    ],
    down: [
      'create table service_auth_api_tokens_before_orgs as select id, public_id, user_id, name, algorithm, ' +
        'hash, salt, iterations, scopes, created_at, last_used_at, expires_at, revoked_at from ' +
        'service_auth_api_tokens',
      'drop table if exists `service_auth_api_tokens`',
      'create table `service_auth_api_tokens` (`id` integer not null primary key autoincrement, `public_id` ' +
        'varchar(32) not null, `user_id` integer not null, `name` varchar(100) not null, `algorithm` ' +
        'varchar(32) not null, `hash` varchar(128) not null, `salt` varchar(64) null, `iterations` integer ' +
        'null, `scopes` json not null, `created_at` datetime not null, `last_used_at` datetime null, ' +
        '`expires_at` datetime null, `revoked_at` datetime null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade)',
      'create unique index `service_auth_api_tokens_public_id_unique` on `service_auth_api_tokens` ' + '(`public_id`)',
      'create index `service_auth_api_tokens_user_id_index` on `service_auth_api_tokens` (`user_id`)',
      'create unique index `service_auth_api_tokens_hash_unique` on `service_auth_api_tokens` (`hash`)',
      'insert into service_auth_api_tokens (id, public_id, user_id, name, algorithm, hash, salt, ' +
        'iterations, scopes, created_at, last_used_at, expires_at, revoked_at) select id, public_id, user_id, ' +
        'name, algorithm, hash, salt, iterations, scopes, created_at, last_used_at, expires_at, revoked_at ' +
        'from service_auth_api_tokens_before_orgs',
      'drop table if exists `service_auth_api_tokens_before_orgs`',
      'alter table service_auth_changes drop column org_id',
      'drop table if exists `service_auth_invitations`',
      'drop table if exists `service_auth_memberships`',
      'drop table if exists `service_auth_orgs`',
    ],
  },
  postgresql: {
    up: [
      'create table "service_auth_orgs" ("id" serial primary key, "slug" varchar(48) not null, "name" ' +
        'varchar(100) not null, "created_at" timestamptz not null)',
      'alter table "service_auth_orgs" add constraint "service_auth_orgs_slug_unique" unique ("slug")',
      'create table "service_auth_memberships" ("id" serial primary key, "org_id" integer not null, ' +
        '"user_id" integer not null, "roles" jsonb not null, "created_at" timestamptz not null)',
      'create index "service_auth_memberships_user_id_index" on "service_auth_memberships" ("user_id")',
      'alter table "service_auth_memberships" add constraint "service_auth_memberships_user_id_foreign" ' +
        'foreign key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'alter table "service_auth_memberships" add constraint ' +
        '"service_auth_memberships_org_id_user_id_unique" unique ("org_id", "user_id")',
      'alter table "service_auth_memberships" add constraint "service_auth_memberships_org_id_foreign" ' +
        'foreign key ("org_id") references "service_auth_orgs" ("id") on update cascade on delete cascade',
      'create table "service_auth_invitations" ("id" serial primary key, "org_id" integer not null, "email" ' +
        'varchar(254) not null, "roles" jsonb not null, "token_hash" varchar(64) not null, "invited_by_id" ' +
        'integer null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "accepted_at" ' +
        'timestamptz null, "revoked_at" timestamptz null)',
      'create index "service_auth_invitations_org_id_index" on "service_auth_invitations" ("org_id")',
      'alter table "service_auth_invitations" add constraint "service_auth_invitations_token_hash_unique" ' +
        'unique ("token_hash")',
      'create index "service_auth_invitations_invited_by_id_index" on "service_auth_invitations" ' +
        '("invited_by_id")',
      'alter table "service_auth_invitations" add constraint "service_auth_invitations_org_id_foreign" ' +
        'foreign key ("org_id") references "service_auth_orgs" ("id") on update cascade on delete cascade',
      'alter table "service_auth_invitations" add constraint ' +
        '"service_auth_invitations_invited_by_id_foreign" foreign key ("invited_by_id") references ' +
        '"service_auth_users" ("id") on update cascade on delete set null',
      'alter table "service_auth_changes" add column "org_id" integer null',
      'alter table "service_auth_api_tokens" add column "org_id" integer null',
      'create index "service_auth_api_tokens_org_id_index" on "service_auth_api_tokens" ("org_id")',
      'alter table "service_auth_api_tokens" add constraint "service_auth_api_tokens_org_id_foreign" ' +
        'foreign key ("org_id") references "service_auth_orgs" ("id") on update cascade on delete cascade',
    ],
    down: [
      'alter table "service_auth_api_tokens" drop constraint "service_auth_api_tokens_org_id_foreign"',
      'drop index "service_auth_api_tokens_org_id_index"',
      'alter table "service_auth_api_tokens" drop column "org_id"',
      'alter table service_auth_changes drop column org_id',
      'drop table if exists "service_auth_invitations"',
      'drop table if exists "service_auth_memberships"',
      'drop table if exists "service_auth_orgs"',
    ],
  },
};
