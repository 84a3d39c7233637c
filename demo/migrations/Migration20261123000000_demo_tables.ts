import { SqlMigration } from './sql-migration.js';

/** The demo's own tables, beside the package's: reports (read by team) and notes (by owner). */
export class Migration20261123000000_demo_tables extends SqlMigration {
  protected readonly sqlite = {
    up: [
      'create table `demo_reports` (`id` integer not null primary key autoincrement, `team` varchar(64) not null, ' +
        '`title` varchar(200) not null)',
      'create table `demo_notes` (`id` integer not null primary key autoincrement, `owner_id` integer not null, ' +
        '`title` varchar(200) not null, `body` text not null)',
      'create index `demo_notes_owner_id_index` on `demo_notes` (`owner_id`)',
    ],
    down: ['drop table if exists `demo_notes`', 'drop table if exists `demo_reports`'],
  };

  protected readonly postgresql = {
    up: [
      'create table "demo_reports" ("id" serial primary key, "team" varchar(64) not null, "title" varchar(200) not null)',
      'create table "demo_notes" ("id" serial primary key, "owner_id" integer not null, "title" varchar(200) not null, ' +
        '"body" text not null)',
      'create index "demo_notes_owner_id_index" on "demo_notes" ("owner_id")',
    ],
    down: ['drop table if exists "demo_notes"', 'drop table if exists "demo_reports"'],
  };
}
