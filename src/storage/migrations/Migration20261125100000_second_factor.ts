import { PortableMigration } from './portable-migration.js';

/**
 * The second factor (src/mfa/): whether a user has one (`mfa_enabled_at`, read with the user), TOTP
 * factors, recovery codes, the tickets between a login's two steps, passkeys and their challenges.
 */
export class Migration20261125100000_second_factor extends PortableMigration {
  override up(): void {
    this.alterTable('service_auth_users', (table) => {
      table.datetime('mfa_enabled_at', { useTz: true }).nullable();
    });
    this.createTable('service_auth_totp', (table) => {
      table.integer('user_id').notNullable().primary();
      table.foreign('user_id').references('id').inTable('service_auth_users').onUpdate('cascade').onDelete('cascade');
      table.string('secret', 200).notNullable();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('confirmed_at', { useTz: true }).nullable();
      table.integer('last_step').notNullable();
    });
    this.createTable('service_auth_recovery_codes', (table) => {
      table.string('code_hash', 64).notNullable().primary();
      this.foreignUser(table);
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('used_at', { useTz: true }).nullable();
    });
    this.createTable('service_auth_login_tickets', (table) => {
      table.string('ticket_hash', 64).notNullable().primary();
      this.foreignUser(table);
      table.datetime('expires_at', { useTz: true }).notNullable();
      table.integer('failures').notNullable();
    });
    this.createTable('service_auth_passkeys', (table) => {
      table.string('credential_id', 1400).notNullable().primary();
      this.foreignUser(table);
      table.string('name', 100).notNullable();
      table.text('public_key').notNullable();
      table.integer('counter').notNullable();
      table.string('transports', 200).notNullable();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('last_used_at', { useTz: true }).nullable();
    });
    this.createTable('service_auth_webauthn_challenges', (table) => {
      table.string('challenge', 128).notNullable().primary();
      table.string('purpose', 16).notNullable();
      table.integer('user_id').nullable();
      table.datetime('expires_at', { useTz: true }).notNullable();
    });
  }

  override down(): void {
    this.dropTable('service_auth_webauthn_challenges');
    this.dropTable('service_auth_passkeys');
    this.dropTable('service_auth_login_tickets');
    this.dropTable('service_auth_recovery_codes');
    this.dropTable('service_auth_totp');
    // Raw: knex builds SQLite's dropColumn only when it runs, so its toSQL() would hold just a PRAGMA.
    this.addSql('alter table service_auth_users drop column mfa_enabled_at');
  }
}
