import { PortableMigration } from './portable-migration.js';

/**
 * The account lifecycle (docs/users.md): a user can be disabled, and has an address confirmed or
 * not; a session has a public id, when it was last seen and the login's user agent; links that
 * confirm an address have a table of their own.
 *
 * Existing users are confirmed (part 1 had no confirmation: their addresses were taken as they
 * came). Existing sessions carry on: the table is rebuilt with the new columns (SQLite cannot add a
 * NOT NULL column without a default), each session's public id the first 16 hex digits of its
 * hash, which stands for the secret in the database already and cannot be turned back into it.
 */
export class Migration20261123000000_account_lifecycle extends PortableMigration {
  override up(): void {
    this.alterTable('service_auth_users', (table) => {
      table.datetime('disabled_at', { useTz: true }).nullable();
      table.datetime('email_confirmed_at', { useTz: true }).nullable();
    });
    this.addSql('update service_auth_users set email_confirmed_at = created_at');

    this.addSql(
      'create table service_auth_sessions_part1 as select id_hash, user_id, created_at, expires_at from service_auth_sessions',
    );
    this.dropTable('service_auth_sessions');
    this.createTable('service_auth_sessions', (table) => {
      table.string('id_hash', 64).notNullable().primary();
      table.string('public_id', 16).notNullable().unique();
      this.foreignUser(table);
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('last_seen_at', { useTz: true }).notNullable();
      table.datetime('expires_at', { useTz: true }).notNullable().index();
      table.string('user_agent', 512).nullable();
    });
    this.addSql(
      'insert into service_auth_sessions (id_hash, public_id, user_id, created_at, last_seen_at, expires_at) ' +
        'select id_hash, substr(id_hash, 1, 16), user_id, created_at, created_at, expires_at from service_auth_sessions_part1',
    );
    this.dropTable('service_auth_sessions_part1');

    this.createTable('service_auth_email_tokens', (table) => {
      table.string('token_hash', 64).notNullable().primary();
      this.foreignUser(table);
      table.string('purpose', 16).notNullable();
      table.string('email', 254).notNullable();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('expires_at', { useTz: true }).notNullable();
      table.datetime('used_at', { useTz: true }).nullable();
    });
  }

  override down(): void {
    this.dropTable('service_auth_email_tokens');
    this.addSql(
      'create table service_auth_sessions_part2 as select id_hash, user_id, created_at, expires_at from service_auth_sessions',
    );
    this.dropTable('service_auth_sessions');
    this.createTable('service_auth_sessions', (table) => {
      table.string('id_hash', 64).notNullable().primary();
      this.foreignUser(table);
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('expires_at', { useTz: true }).notNullable().index();
    });
    this.addSql(
      'insert into service_auth_sessions (id_hash, user_id, created_at, expires_at) select ' +
        'id_hash, user_id, created_at, expires_at from service_auth_sessions_part2',
    );
    this.dropTable('service_auth_sessions_part2');
    // Raw: knex builds SQLite's dropColumn only when it runs, so its toSQL() would hold just a PRAGMA.
    this.addSql('alter table service_auth_users drop column email_confirmed_at');
    this.addSql('alter table service_auth_users drop column disabled_at');
  }
}
