import { BaseSqlitePlatform, type Knex } from '@mikro-orm/knex';
import { Migration } from '@mikro-orm/migrations';

/**
 * A migration written with knex's schema builder, so that one file produces the right DDL for
 * SQLite and for PostgreSQL. Each statement the builder compiles is queued separately (SQLite
 * runs one statement per call).
 */
export abstract class PortableMigration extends Migration {
  protected get onSqlite(): boolean {
    return this.driver.getPlatform() instanceof BaseSqlitePlatform;
  }

  /** `user_id`, indexed, referencing a user and going with it. */
  protected foreignUser(table: Knex.CreateTableBuilder): void {
    table.integer('user_id').notNullable().index();
    table.foreign('user_id').references('id').inTable('service_auth_users').onUpdate('cascade').onDelete('cascade');
  }

  protected createTable(name: string, build: (table: Knex.CreateTableBuilder) => void): void {
    this.queue(this.getKnex().schema.createTable(name, build));
  }

  protected alterTable(name: string, change: (table: Knex.AlterTableBuilder) => void): void {
    this.queue(this.getKnex().schema.alterTable(name, change));
  }

  protected dropTable(name: string): void {
    this.queue(this.getKnex().schema.dropTableIfExists(name));
  }

  /**
   * Queues the builder's statements. knex leaves some SQLite changes (dropping, renaming or altering
   * a column) to be worked out when they run, marking them with a `statementsProducer`: queued as
   * SQL they would do nothing, so they are refused here, loudly; write those as raw SQL.
   */
  private queue(builder: Knex.SchemaBuilder): void {
    for (const statement of builder.toSQL() as (Knex.Sql & { statementsProducer?: unknown })[]) {
      if (statement.statementsProducer)
        throw new Error(
          `A migration step knex cannot compile ahead for this database: ${statement.sql}; write it as raw SQL`,
        );
      this.addSql(statement.sql);
    }
  }
}
