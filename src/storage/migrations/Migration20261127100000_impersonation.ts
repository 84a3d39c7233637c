import { PortableMigration } from './portable-migration.js';

/**
 * Impersonation (src/impersonation/, docs/impersonation.md): a session may be one in which a user
 * acts as another. It names the impersonator, the public id of the impersonator's own session
 * (kept, and restored when the impersonation ends) and when the impersonation ends. Plain nullable
 * columns without foreign keys: the session store checks the impersonator's session each time it
 * reads the row, so SQLite can add and drop them in place.
 */
export class Migration20261127100000_impersonation extends PortableMigration {
  override up(): void {
    this.alterTable('service_auth_sessions', (table) => {
      table.integer('impersonator_id').nullable();
      table.string('impersonator_session', 16).nullable();
      table.datetime('impersonation_ends_at', { useTz: true }).nullable();
    });
  }

  override down(): void {
    // Raw: knex builds SQLite's dropColumn only when it runs, so its toSQL() would hold just a PRAGMA.
    for (const column of ['impersonation_ends_at', 'impersonator_session', 'impersonator_id']) {
      this.addSql(`alter table service_auth_sessions drop column ${column}`);
    }
  }
}
