// ../Migration20261125100000_second_factor.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261125100000_second_factor: FrozenMigration = {
  sqlite: {
    up: [
      'alter table `service_auth_users` add column `mfa_enabled_at` datetime null',
      'create table `service_auth_totp` (`user_id` integer not null, `secret` varchar(200) not null, ' +
        '`created_at` datetime not null, `confirmed_at` datetime null, `last_step` integer not null, foreign ' +
        'key(`user_id`) references `service_auth_users`(`id`) on delete cascade on update cascade, primary ' +
        'key (`user_id`))',
      'create table `service_auth_recovery_codes` (`code_hash` varchar(64) not null, `user_id` integer not ' +
        'null, `created_at` datetime not null, `used_at` datetime null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade, primary key (`code_hash`))',
      'create index `service_auth_recovery_codes_user_id_index` on `service_auth_recovery_codes` ' + '(`user_id`)',
      'create table `service_auth_login_tickets` (`ticket_hash` varchar(64) not null, `user_id` integer not ' +
        'null, `expires_at` datetime not null, `failures` integer not null, foreign key(`user_id`) references ' +
        '`service_auth_users`(`id`) on delete cascade on update cascade, primary key (`ticket_hash`))',
      'create index `service_auth_login_tickets_user_id_index` on `service_auth_login_tickets` (`user_id`)',
      'create table `service_auth_passkeys` (`credential_id` varchar(1400) not null, `user_id` integer not ' +
        'null, `name` varchar(100) not null, `public_key` text not null, `counter` integer not null, ' +
        '`transports` varchar(200) not null, `created_at` datetime not null, `last_used_at` datetime null, ' +
        'foreign key(`user_id`) references `service_auth_users`(`id`) on delete cascade on update cascade, ' +
        'primary key (`credential_id`))',
      'create index `service_auth_passkeys_user_id_index` on `service_auth_passkeys` (`user_id`)',
      'create table `service_auth_webauthn_challenges` (`challenge` varchar(128) not null, `purpose` ' +
        'varchar(16) not null, `user_id` integer null, `expires_at` datetime not null, primary key ' +
        '(`challenge`))',
    ],
    down: [
      'drop table if exists `service_auth_webauthn_challenges`',
      'drop table if exists `service_auth_passkeys`',
      'drop table if exists `service_auth_login_tickets`',
      'drop table if exists `service_auth_recovery_codes`',
      'drop table if exists `service_auth_totp`',
      'alter table service_auth_users drop column mfa_enabled_at',
    ],
  },
  postgresql: {
    up: [
      'alter table "service_auth_users" add column "mfa_enabled_at" timestamptz null',
      'create table "service_auth_totp" ("user_id" integer not null, "secret" varchar(200) not null, ' +
        '"created_at" timestamptz not null, "confirmed_at" timestamptz null, "last_step" integer not null, ' +
        'constraint "service_auth_totp_pkey" primary key ("user_id"))',
      'alter table "service_auth_totp" add constraint "service_auth_totp_user_id_foreign" foreign key ' +
        '("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'create table "service_auth_recovery_codes" ("code_hash" varchar(64) not null, "user_id" integer not ' +
        'null, "created_at" timestamptz not null, "used_at" timestamptz null, constraint ' +
        '"service_auth_recovery_codes_pkey" primary key ("code_hash"))',
      'create index "service_auth_recovery_codes_user_id_index" on "service_auth_recovery_codes" ' + '("user_id")',
      'alter table "service_auth_recovery_codes" add constraint ' +
        '"service_auth_recovery_codes_user_id_foreign" foreign key ("user_id") references ' +
        '"service_auth_users" ("id") on update cascade on delete cascade',
      'create table "service_auth_login_tickets" ("ticket_hash" varchar(64) not null, "user_id" integer not ' +
        'null, "expires_at" timestamptz not null, "failures" integer not null, constraint ' +
        '"service_auth_login_tickets_pkey" primary key ("ticket_hash"))',
      'create index "service_auth_login_tickets_user_id_index" on "service_auth_login_tickets" ("user_id")',
      'alter table "service_auth_login_tickets" add constraint "service_auth_login_tickets_user_id_foreign" ' +
        'foreign key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'create table "service_auth_passkeys" ("credential_id" varchar(1400) not null, "user_id" integer not ' +
        'null, "name" varchar(100) not null, "public_key" text not null, "counter" integer not null, ' +
        '"transports" varchar(200) not null, "created_at" timestamptz not null, "last_used_at" timestamptz ' +
        'null, constraint "service_auth_passkeys_pkey" primary key ("credential_id"))',
      'create index "service_auth_passkeys_user_id_index" on "service_auth_passkeys" ("user_id")',
      'alter table "service_auth_passkeys" add constraint "service_auth_passkeys_user_id_foreign" foreign ' +
        'key ("user_id") references "service_auth_users" ("id") on update cascade on delete cascade',
      'create table "service_auth_webauthn_challenges" ("challenge" varchar(128) not null, "purpose" ' +
        'varchar(16) not null, "user_id" integer null, "expires_at" timestamptz not null, constraint ' +
        '"service_auth_webauthn_challenges_pkey" primary key ("challenge"))',
    ],
    down: [
      'drop table if exists "service_auth_webauthn_challenges"',
      'drop table if exists "service_auth_passkeys"',
      'drop table if exists "service_auth_login_tickets"',
      'drop table if exists "service_auth_recovery_codes"',
      'drop table if exists "service_auth_totp"',
      'alter table service_auth_users drop column mfa_enabled_at',
    ],
  },
};
