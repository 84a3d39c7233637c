import { PortableMigration } from './portable-migration.js';

/**
 * Sign-in through identity providers (src/sso/): the identities linked to users, one (provider,
 * subject) per user at most, and the sign-ins started and not yet answered.
 */
export class Migration20261127000000_identities extends PortableMigration {
  override up(): void {
    this.createTable('service_auth_identities', (table) => {
      table.increments('id').primary();
      this.foreignUser(table);
      table.string('provider', 32).notNullable();
      table.string('subject', 255).notNullable();
      table.string('email', 254).nullable();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.unique(['provider', 'subject']);
    });
    this.createTable('service_auth_sso_attempts', (table) => {
      table.string('id_hash', 64).notNullable().primary();
      table.string('provider', 32).notNullable();
      table.string('state', 128).notNullable();
      table.string('nonce', 128).nullable();
      table.string('code_verifier', 128).notNullable();
      table.string('next', 2048).nullable();
      table.integer('link_user_id').nullable();
      table.datetime('expires_at', { useTz: true }).notNullable();
    });
  }

  override down(): void {
    this.dropTable('service_auth_sso_attempts');
    this.dropTable('service_auth_identities');
  }
}
