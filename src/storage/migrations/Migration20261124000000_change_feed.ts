import { PortableMigration } from './portable-migration.js';

/** The change feed (storage/change-feed.ts): how a change to a user's credentials reaches every instance. */
export class Migration20261124000000_change_feed extends PortableMigration {
  override up(): void {
    this.createTable('service_auth_changes', (table) => {
      table.increments('id').primary();
      table.integer('user_id').nullable();
      table.datetime('at', { useTz: true }).notNullable().index('service_auth_changes_at_index');
    });
  }

  override down(): void {
    this.dropTable('service_auth_changes');
  }
}
