import { Migration } from '@mikro-orm/migrations';
import { sqlLayer } from '../../src/storage/sql-layer.js';

/** A migration's statements for one database, both ways. */
export interface Statements {
  up: string[];
  down: string[];
}

/**
 * A demo migration written as SQL, for SQLite and for PostgreSQL: an application's migrations
 * that run on MikroORM 6 and 7 alike, since 7 has no knex schema builder to compile them from.
 * (The statements are what knex compiled the demo's first migrations to.)
 */
export abstract class SqlMigration extends Migration {
  protected abstract readonly sqlite: Statements;
  protected abstract readonly postgresql: Statements;

  override up(): void {
    for (const sql of this.statements().up) this.addSql(sql);
  }

  override down(): void {
    for (const sql of this.statements().down) this.addSql(sql);
  }

  private statements(): Statements {
    return sqlLayer.isSqlite(this.driver.getPlatform()) ? this.sqlite : this.postgresql;
  }
}
