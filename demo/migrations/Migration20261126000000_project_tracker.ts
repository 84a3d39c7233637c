import { PortableMigration } from '../../src/storage/migrations/portable-migration.js';

/**
 * The project tracker's tables: projects of an organization, their members, and their tasks. An
 * organization's rows go with it; `org_id` and the user ids are the package's ids, without a
 * foreign key to its tables (the demo's tables are its own, as an application's would be).
 */
export class Migration20261126000000_project_tracker extends PortableMigration {
  override up(): void {
    this.createTable('demo_projects', (table) => {
      table.increments('id').primary();
      table.integer('org_id').notNullable().index();
      table.string('name', 100).notNullable();
      table.boolean('archived').notNullable().defaultTo(false);
    });

    this.createTable('demo_project_members', (table) => {
      table.increments('id').primary();
      table.integer('project_id').notNullable().references('id').inTable('demo_projects').onDelete('cascade');
      table.integer('user_id').notNullable().index();
      table.unique(['project_id', 'user_id']);
    });

    this.createTable('demo_tasks', (table) => {
      table.increments('id').primary();
      table.integer('org_id').notNullable().index();
      table.integer('project_id').notNullable().index().references('id').inTable('demo_projects').onDelete('cascade');
      table.string('title', 200).notNullable();
      table.integer('assignee_id').nullable();
      table.boolean('done').notNullable().defaultTo(false);
    });
  }

  override down(): void {
    this.dropTable('demo_tasks');
    this.dropTable('demo_project_members');
    this.dropTable('demo_projects');
  }
}
