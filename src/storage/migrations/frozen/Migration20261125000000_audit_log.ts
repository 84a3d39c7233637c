// ../Migration20261125000000_audit_log.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261125000000_audit_log: FrozenMigration = {
  sqlite: {
    up: [
      'create table `auth_events` (`id` integer not null, `at` datetime not null, `type` varchar(40) not ' +
        'null, `outcome` varchar(10) not null, `user_id` integer null, `email` varchar(320) null, `ip` ' +
        'varchar(64) null, `user_agent` varchar(256) null, `reason` varchar(64) null, `detail` text not null, ' +
        '`hash` varchar(64) not null, primary key (`id`))',
      'create index `auth_events_at_index` on `auth_events` (`at`)',
      'create index `auth_events_email_index` on `auth_events` (`email`)',
      'create index `auth_events_user_id_index` on `auth_events` (`user_id`, `id`)',
    ],
    down: ['drop table if exists `auth_events`'],
  },
  postgresql: {
    up: [
      'create table "auth_events" ("id" integer not null, "at" timestamptz not null, "type" varchar(40) not ' +
        'null, "outcome" varchar(10) not null, "user_id" integer null, "email" varchar(320) null, "ip" ' +
        'varchar(64) null, "user_agent" varchar(256) null, "reason" varchar(64) null, "detail" text not null, ' +
        '"hash" varchar(64) not null, constraint "auth_events_pkey" primary key ("id"))',
      'create index "auth_events_at_index" on "auth_events" ("at")',
      'create index "auth_events_email_index" on "auth_events" ("email")',
      'create index "auth_events_user_id_index" on "auth_events" ("user_id", "id")',
      '\n      create function service_auth_append_events(batch jsonb) returns table (id integer, hash ' +
        'text)\n      language plpgsql as $$\n      #variable_conflict use_column\n      declare\n        item ' +
        'jsonb;\n        next_id integer;\n        previous text;\n      begin\n        perform ' +
        'pg_advisory_xact_lock(1520488830);\n        select e.id, e.hash into next_id, previous from ' +
        'auth_events e order by e.id desc limit 1;\n        next_id := coalesce(next_id, 0);\n        previous ' +
        ":= coalesce(previous, '');\n        for item in select value from jsonb_array_elements(batch) loop\n   " +
        '       next_id := next_id + 1;\n          previous := encode(sha256(convert_to(previous || ' +
        "(item->>'canonical'), 'UTF8')), 'hex');\n          insert into auth_events (id, at, type, outcome, " +
        'user_id, email, ip, user_agent, reason, detail, hash)\n          values (next_id, ' +
        "(item->>'at')::timestamptz, item->>'type', item->>'outcome', (item->>'userId')::integer,\n            " +
        "      item->>'email', item->>'ip', item->>'userAgent', item->>'reason', item->>'detail', previous);\n " +
        '         id := next_id;\n          hash := previous;\n          return next;\n        end loop;\n      ' +
        'end $$',
    ],
    down: ['drop function if exists service_auth_append_events(jsonb)', 'drop table if exists "auth_events"'],
  },
};
