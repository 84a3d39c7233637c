import type { Knex } from '@mikro-orm/knex';
import { PortableMigration } from './portable-migration.js';

/** Users, roles, their links, API tokens, sessions and password-reset tokens. */
export class Migration20261121000000_initial extends PortableMigration {
  override up(): void {
    const foreignUser = (table: Knex.CreateTableBuilder): void => this.foreignUser(table);

    this.createTable('service_auth_roles', (table) => {
      table.increments('id').primary();
      table.string('name', 64).notNullable().unique();
      table.datetime('created_at', { useTz: true }).notNullable();
    });

    this.createTable('service_auth_users', (table) => {
      table.increments('id').primary();
      table.string('email', 254).notNullable().unique();
      table.string('password_hash', 255).notNullable();
      table.boolean('is_admin').notNullable().defaultTo(this.getKnex().raw('false'));
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('updated_at', { useTz: true }).notNullable();
    });

    this.createTable('service_auth_user_roles', (table) => {
      // The primary key serves lookups by user on PostgreSQL; MikroORM's SQLite schema indexes
      // every foreign key column, and we keep to what it expects.
      table.integer('user_id').notNullable();
      if (this.onSqlite) table.index('user_id');
      table.integer('role_id').notNullable().index();
      table.primary(['user_id', 'role_id']);
      table.foreign('user_id').references('id').inTable('service_auth_users').onUpdate('cascade').onDelete('cascade');
      table.foreign('role_id').references('id').inTable('service_auth_roles').onUpdate('cascade').onDelete('cascade');
    });

    this.createTable('service_auth_sessions', (table) => {
      table.string('id_hash', 64).notNullable().primary();
      foreignUser(table);
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('expires_at', { useTz: true }).notNullable().index();
    });

    this.createTable('service_auth_password_resets', (table) => {
      table.string('token_hash', 64).notNullable().primary();
      foreignUser(table);
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('expires_at', { useTz: true }).notNullable();
      table.datetime('used_at', { useTz: true }).nullable();
    });

    this.createTable('service_auth_api_tokens', (table) => {
      table.increments('id').primary();
      table.string('public_id', 32).notNullable().unique();
      foreignUser(table);
      table.string('name', 100).notNullable();
      table.string('algorithm', 32).notNullable();
      table.string('hash', 128).notNullable().index();
      table.string('salt', 64).nullable();
      table.integer('iterations').nullable();
      table.jsonb('scopes').notNullable();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('last_used_at', { useTz: true }).nullable();
      table.datetime('expires_at', { useTz: true }).nullable();
      table.datetime('revoked_at', { useTz: true }).nullable();
    });
  }

  override down(): void {
    for (const table of [
      'service_auth_api_tokens',
      'service_auth_password_resets',
      'service_auth_sessions',
      'service_auth_user_roles',
      'service_auth_users',
      'service_auth_roles',
    ]) {
      this.dropTable(table);
    }
  }
}
