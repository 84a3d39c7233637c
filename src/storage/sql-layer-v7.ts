/**
 * The seam's MikroORM 7 side: SQL through Kysely (@mikro-orm/sql). SQLite is `node:sqlite`
 * (@mikro-orm/sql's SqliteDriver with its NodeSqliteDialect): nothing native to install or build.
 * The project compiles against MikroORM 6, so what it uses of @mikro-orm/sql is described here,
 * not imported as types; the MikroORM 7 suite (scripts/test-mikro-orm-7.sh) checks it.
 */
import type { MigrationObject, Options, Platform } from '@mikro-orm/core';
import { frozenMigrations } from './migrations/frozen/index.js';
import { SQLITE_PRAGMAS, type SqliteOptions } from './sqlite-setup.js';
import type { SqlLayer } from './sql-layer.js';

interface Query {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly query: { readonly kind: 'RawNode'; readonly sqlFragments: readonly string[]; readonly parameters: [] };
}
interface Connection {
  executeQuery(query: Query): Promise<unknown>;
}
interface Driver {
  init(options?: unknown): Promise<void>;
  acquireConnection(): Promise<Connection>;
  beginTransaction(connection: Connection, settings?: { accessMode?: string }): Promise<void>;
}
interface Dialect {
  createDriver(): Driver;
}
interface SqlModule {
  SqliteDriver: NonNullable<Options['driver']>;
  SqlitePlatform: abstract new (...args: never[]) => Platform;
  NodeSqliteDialect: new (dbName: string) => Dialect;
}

/** What Kysely's `CompiledQuery.raw(sql)` builds, without importing Kysely (a dependency of @mikro-orm/sql's). */
const raw = (sql: string): Query => ({
  sql,
  parameters: [],
  query: { kind: 'RawNode', sqlFragments: [sql], parameters: [] },
});

const SQL_PACKAGE = '@mikro-orm/sql';
const sql = (await import(SQL_PACKAGE)) as SqlModule;

/**
 * node:sqlite through Kysely, its connection set up with SQLITE_PRAGMAS and its transactions
 * begun with `BEGIN IMMEDIATE` unless read-only: the same as the knex client of the MikroORM 6
 * side (see sqlite.ts). A nested transaction is a savepoint and does not begin.
 */
class ImmediateNodeSqliteDialect extends sql.NodeSqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const init = driver.init.bind(driver);
    driver.init = async (options) => {
      await init(options);
      const connection = await driver.acquireConnection();
      for (const pragma of SQLITE_PRAGMAS) await connection.executeQuery(raw(pragma));
    };
    driver.beginTransaction = async (connection, settings) => {
      await connection.executeQuery(raw(settings?.accessMode === 'read only' ? 'begin' : 'begin immediate'));
    };
    return driver;
  }
}

export const v7: SqlLayer = {
  isSqlite: (platform: Platform) => platform instanceof sql.SqlitePlatform,
  sqliteOptions: (dbName: string): SqliteOptions => ({
    dbName,
    driverOptions: new ImmediateNodeSqliteDialect(dbName),
    pool: {},
  }),
  sqliteDriver: async () => sql.SqliteDriver,
  postgresDriverOptions: (connectTimeoutMs) => ({
    pool: { min: 0, max: 10 },
    driverOptions: { connectionTimeoutMillis: connectTimeoutMs },
  }),
  // A query builder is a subquery as it is.
  subquery: (rows) => rows,
  migrations: async (): Promise<MigrationObject[]> => {
    const { Migration } = await import('@mikro-orm/migrations');
    return frozenMigrations(Migration, (platform) => v7.isSqlite(platform));
  },
};
