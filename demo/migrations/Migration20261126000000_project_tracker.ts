import { SqlMigration } from './sql-migration.js';

const DOWN = [
  'drop table if exists demo_tasks',
  'drop table if exists demo_project_members',
  'drop table if exists demo_projects',
];

/**
 * The project tracker's tables: projects of an organization, their members, and their tasks. An
 * organization's rows go with it; `org_id` and the user ids are the package's ids, without a
 * foreign key to its tables (the demo's tables are its own, as an application's would be).
 */
export class Migration20261126000000_project_tracker extends SqlMigration {
  protected readonly sqlite = {
    up: [
      'create table `demo_projects` (`id` integer not null primary key autoincrement, `org_id` integer not null, ' +
        "`name` varchar(100) not null, `archived` boolean not null default '0')",
      'create index `demo_projects_org_id_index` on `demo_projects` (`org_id`)',
      'create table `demo_project_members` (`id` integer not null primary key autoincrement, ' +
        '`project_id` integer not null, `user_id` integer not null, ' +
        'foreign key(`project_id`) references `demo_projects`(`id`) on delete cascade)',
      'create index `demo_project_members_user_id_index` on `demo_project_members` (`user_id`)',
      'create unique index `demo_project_members_project_id_user_id_unique` on `demo_project_members` ' +
        '(`project_id`, `user_id`)',
      'create table `demo_tasks` (`id` integer not null primary key autoincrement, `org_id` integer not null, ' +
        '`project_id` integer not null, `title` varchar(200) not null, `assignee_id` integer null, ' +
        "`done` boolean not null default '0', " +
        'foreign key(`project_id`) references `demo_projects`(`id`) on delete cascade)',
      'create index `demo_tasks_org_id_index` on `demo_tasks` (`org_id`)',
      'create index `demo_tasks_project_id_index` on `demo_tasks` (`project_id`)',
    ],
    down: DOWN,
  };

  protected readonly postgresql = {
    up: [
      'create table "demo_projects" ("id" serial primary key, "org_id" integer not null, "name" varchar(100) not null, ' +
        '"archived" boolean not null default \'0\')',
      'create index "demo_projects_org_id_index" on "demo_projects" ("org_id")',
      'create table "demo_project_members" ("id" serial primary key, "project_id" integer not null, ' +
        '"user_id" integer not null)',
      'alter table "demo_project_members" add constraint "demo_project_members_project_id_foreign" ' +
        'foreign key ("project_id") references "demo_projects" ("id") on delete cascade',
      'create index "demo_project_members_user_id_index" on "demo_project_members" ("user_id")',
      'alter table "demo_project_members" add constraint "demo_project_members_project_id_user_id_unique" ' +
        'unique ("project_id", "user_id")',
      'create table "demo_tasks" ("id" serial primary key, "org_id" integer not null, "project_id" integer not null, ' +
        '"title" varchar(200) not null, "assignee_id" integer null, "done" boolean not null default \'0\')',
      'create index "demo_tasks_org_id_index" on "demo_tasks" ("org_id")',
      'create index "demo_tasks_project_id_index" on "demo_tasks" ("project_id")',
      'alter table "demo_tasks" add constraint "demo_tasks_project_id_foreign" ' +
        'foreign key ("project_id") references "demo_projects" ("id") on delete cascade',
    ],
    down: DOWN,
  };
}
