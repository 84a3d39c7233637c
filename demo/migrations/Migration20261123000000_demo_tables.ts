import { PortableMigration } from '../../src/storage/migrations/portable-migration.js';

/** The demo's own tables, beside the package's: reports (read by team) and notes (by owner). */
export class Migration20261123000000_demo_tables extends PortableMigration {
  override up(): void {
    this.createTable('demo_reports', (table) => {
      table.increments('id').primary();
      table.string('team', 64).notNullable();
      table.string('title', 200).notNullable();
    });

    this.createTable('demo_notes', (table) => {
      table.increments('id').primary();
      table.integer('owner_id').notNullable().index();
      table.string('title', 200).notNullable();
      table.text('body').notNullable();
    });
  }

  override down(): void {
    this.dropTable('demo_notes');
    this.dropTable('demo_reports');
  }
}
