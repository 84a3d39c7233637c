import type { Knex } from '@mikro-orm/knex';
import { PortableMigration } from './portable-migration.js';

/**
 * Organizations (src/orgs/): the organizations, their members with their organization roles, the
 * invitations to join one, and the organization an API token may be bound to (`org_id`, null for
 * every token so far: a token bound to an organization goes with it, never widening to unbound).
 *
 * The change feed's rows may name an organization (`org_id`): its cached copy is dropped everywhere.
 *
 * SQLite adds the token's column, its foreign key included, in place (a nullable column with no
 * default may carry a REFERENCES clause). It cannot drop a column used by a foreign key, so going
 * down rebuilds the tokens table as it was.
 */
export class Migration20261126000000_organizations extends PortableMigration {
  override up(): void {
    this.createTable('service_auth_orgs', (table) => {
      table.increments('id').primary();
      table.string('slug', 48).notNullable().unique();
      table.string('name', 100).notNullable();
      table.datetime('created_at', { useTz: true }).notNullable();
    });

    this.createTable('service_auth_memberships', (table) => {
      table.increments('id').primary();
      // The unique index on (org_id, user_id) serves lookups by organization on PostgreSQL;
      // MikroORM's SQLite schema indexes every foreign key column, and we keep to what it expects.
      table.integer('org_id').notNullable();
      if (this.onSqlite) table.index('org_id');
      this.foreignUser(table);
      table.jsonb('roles').notNullable();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.unique(['org_id', 'user_id']);
      this.foreignOrg(table);
    });

    this.createTable('service_auth_invitations', (table) => {
      table.increments('id').primary();
      table.integer('org_id').notNullable().index();
      table.string('email', 254).notNullable();
      table.jsonb('roles').notNullable();
      table.string('token_hash', 64).notNullable().unique();
      table.integer('invited_by_id').nullable().index();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('expires_at', { useTz: true }).notNullable();
      table.datetime('accepted_at', { useTz: true }).nullable();
      table.datetime('revoked_at', { useTz: true }).nullable();
      this.foreignOrg(table);
      table
        .foreign('invited_by_id')
        .references('id')
        .inTable('service_auth_users')
        .onUpdate('cascade')
        .onDelete('set null');
    });

    this.alterTable('service_auth_changes', (table) => {
      table.integer('org_id').nullable();
    });

    if (this.onSqlite) {
      this.addSql(
        'alter table service_auth_api_tokens add column org_id integer null references ' +
          'service_auth_orgs (id) on update cascade on delete cascade',
      );
      this.addSql('create index service_auth_api_tokens_org_id_index on service_auth_api_tokens (org_id)');
    } else {
      this.alterTable('service_auth_api_tokens', (table) => {
        table.integer('org_id').nullable().index();
        table.foreign('org_id').references('id').inTable('service_auth_orgs').onUpdate('cascade').onDelete('cascade');
      });
    }
  }

  override down(): void {
    if (this.onSqlite) this.rebuildTokensWithoutOrg();
    else {
      this.alterTable('service_auth_api_tokens', (table) => {
        table.dropForeign(['org_id']);
        table.dropIndex(['org_id']);
        table.dropColumn('org_id');
      });
    }
    // Raw: knex builds SQLite's dropColumn only when it runs, so its toSQL() would hold just a PRAGMA.
    this.addSql('alter table service_auth_changes drop column org_id');
    this.dropTable('service_auth_invitations');
    this.dropTable('service_auth_memberships');
    this.dropTable('service_auth_orgs');
  }

  /** `org_id`, referencing an organization and going with it. */
  private foreignOrg(table: Knex.CreateTableBuilder): void {
    table.foreign('org_id').references('id').inTable('service_auth_orgs').onUpdate('cascade').onDelete('cascade');
  }

  /** The tokens table as the migrations before this one left it, every row kept. */
  private rebuildTokensWithoutOrg(): void {
    const columns =
      'id, public_id, user_id, name, algorithm, hash, salt, iterations, scopes, created_at, last_used_at, expires_at, revoked_at';
    this.addSql(`create table service_auth_api_tokens_before_orgs as select ${columns} from service_auth_api_tokens`);
    this.dropTable('service_auth_api_tokens');
    this.createTable('service_auth_api_tokens', (table) => {
      table.increments('id').primary();
      table.string('public_id', 32).notNullable().unique();
      this.foreignUser(table);
      table.string('name', 100).notNullable();
      table.string('algorithm', 32).notNullable();
      table.string('hash', 128).notNullable().unique({ indexName: 'service_auth_api_tokens_hash_unique' });
      table.string('salt', 64).nullable();
      table.integer('iterations').nullable();
      table.jsonb('scopes').notNullable();
      table.datetime('created_at', { useTz: true }).notNullable();
      table.datetime('last_used_at', { useTz: true }).nullable();
      table.datetime('expires_at', { useTz: true }).nullable();
      table.datetime('revoked_at', { useTz: true }).nullable();
    });
    this.addSql(
      `insert into service_auth_api_tokens (${columns}) select ${columns} from service_auth_api_tokens_before_orgs`,
    );
    this.dropTable('service_auth_api_tokens_before_orgs');
  }
}
