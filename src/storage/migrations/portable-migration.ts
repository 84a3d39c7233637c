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

  protected createTable(name: string, build: (table: Knex.CreateTableBuilder) => void): void {
    this.queue(this.getKnex().schema.createTable(name, build));
  }

  protected alterTable(name: string, change: (table: Knex.AlterTableBuilder) => void): void {
    this.queue(this.getKnex().schema.alterTable(name, change));
  }

  protected dropTable(name: string): void {
    this.queue(this.getKnex().schema.dropTableIfExists(name));
  }

  private queue(builder: Knex.SchemaBuilder): void {
    for (const statement of builder.toSQL()) this.addSql(statement.sql);
  }
}
