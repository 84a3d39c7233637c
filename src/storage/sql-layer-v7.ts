/**
 * The seam's MikroORM 7 side: SQL through Kysely (@mikro-orm/sql). SQLite is `node:sqlite`
 * (@mikro-orm/sql's SqliteDriver with its NodeSqliteDialect): nothing native to install or build.
 * The project compiles against MikroORM 6, so what it uses of @mikro-orm/sql is described here,
 * not imported as types; the MikroORM 7 suite (scripts/test-mikro-orm-7.sh) checks it.
 */
import type { MigrationObject, Options, Platform } from '@mikro-orm/core';
import { BUSY_TIMEOUT_MS, SQLITE_PRAGMAS, type SqliteOptions } from './sqlite-setup.js';
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
interface SqlConnection {
  execute(query: string, params: readonly unknown[], method: 'all', ctx: unknown): Promise<Record<string, unknown>[]>;
}
interface PgPool {
  on(event: 'error', listener: (error: Error) => void): void;
  on(
    event: 'connect',
    listener: (client: { on(event: 'error', listener: (error: Error) => void): void }) => void,
  ): void;
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

/** node:sqlite's SQLITE_BUSY (extended codes too): another connection has the write lock. */
const isBusy = (error: unknown): boolean => ((error as { errcode?: number }).errcode! & 0xff) === 5;

/**
 * Runs the connection's statements, waiting (for up to BUSY_TIMEOUT_MS, without blocking the
 * process) while another connection has the write lock: `BEGIN IMMEDIATE`, and single statements
 * outside a transaction, which did nothing when they failed so and can be run again. node:sqlite
 * waits synchronously (its busy_timeout), which would stop the whole process, the connection
 * holding the lock included when it is the application's own MikroORM: so SQLite's own wait is
 * off (busy_timeout 0), and this one waits instead, in short sleeps. Returns `failNext(error)`:
 * the next statement but a rollback fails with `error`, without running.
 */
function waitForLocks(connection: Connection): (error: unknown) => void {
  const run = connection.executeQuery.bind(connection);
  let inTransaction = false;
  let failure: { error: unknown } | undefined;
  connection.executeQuery = async (query) => {
    const ends = /^(commit|end|rollback)\s*;?$/i.test(query.sql);
    if (failure && !/^rollback\b/i.test(query.sql)) throw failure.error;
    if (ends) failure = undefined;
    const begins = /^begin\b/i.test(query.sql);
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      try {
        const result = await run(query);
        if (begins || ends) inTransaction = begins;
        return result;
      } catch (error) {
        if (!isBusy(error) || (inTransaction && !begins) || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };
  return (error) => void (failure = { error });
}

/** SQLITE_PRAGMAS, with SQLite's own (synchronous) busy wait off: waitForLocks waits instead. */
const PRAGMAS = SQLITE_PRAGMAS.map((pragma) =>
  /^PRAGMA busy_timeout/i.test(pragma) ? 'PRAGMA busy_timeout = 0' : pragma,
);

/**
 * node:sqlite through Kysely, its connection set up with SQLITE_PRAGMAS and its transactions
 * begun with `BEGIN IMMEDIATE` unless read-only: the same as the knex client of the MikroORM 6
 * side (see sqlite.ts), but for how it waits for the write lock (waitForLocks). A nested
 * transaction is a savepoint and does not begin.
 */
class ImmediateNodeSqliteDialect extends sql.NodeSqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const init = driver.init.bind(driver);
    let failNext: (error: unknown) => void = () => undefined;
    driver.init = async (options) => {
      await init(options);
      const connection = await driver.acquireConnection(); // the one connection, as the driver hands it out
      failNext = waitForLocks(connection);
      for (const pragma of PRAGMAS) await connection.executeQuery(raw(pragma));
    };
    driver.beginTransaction = async (connection, settings) => {
      if (settings?.accessMode === 'read only') return void (await connection.executeQuery(raw('begin')));
      try {
        await connection.executeQuery(raw('begin immediate'));
      } catch (error) {
        // Kysely (0.29) never gives back the connection of a transaction whose BEGIN failed: every
        // later query would wait for it. So the transaction begins (deferred, which takes no lock),
        // and its first statement fails with the error instead: MikroORM rolls it back, which gives
        // the connection back, and the error (SQLITE_BUSY: 503) is the caller's as it would have been.
        await connection.executeQuery(raw('begin'));
        failNext(error);
      }
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
  postgresDriverOptions: (connectTimeoutMs, log) => ({
    pool: { min: 0, max: 10 },
    driverOptions: {
      connectionTimeoutMillis: connectTimeoutMs,
      // A connection the server dropped, idle or held, noted in the package's log as knex notes it on 6.
      ...(log && {
        onPoolCreated(pool: PgPool) {
          const note = (error: Error) => log.logger.warn(`database: Connection Error: ${error.message}`);
          pool.on('error', note);
          pool.on('connect', (client) => client.on('error', note));
        },
      }),
    },
  }),
  // A query builder is a subquery as it is.
  subquery: (rows) => rows,
  // Through the connection, as MikroORM's own queries go: its logger sees it, and it runs in the
  // transaction. No list of keys is empty here (knex wrote an empty one as `1 = 0`).
  rowsByKeys(em, table, columns, column, keys, { forUpdate }) {
    if (keys.length === 0) return Promise.resolve([]);
    const platform = em.getPlatform();
    const list = keys.map(() => '?').join(', ');
    const selected = columns.map((name) => platform.quoteIdentifier(name)).join(', ');
    const query = `select ${selected} from ${platform.quoteIdentifier(table)} where ${platform.quoteIdentifier(column)} in (${list})`;
    const connection = em.getConnection() as unknown as SqlConnection;
    return connection.execute(forUpdate ? `${query} for update` : query, keys, 'all', em.getTransactionContext());
  },
  migrations: async (): Promise<MigrationObject[]> => {
    // Loaded when the migrator is: a server on an up-to-date database loads neither.
    const [{ Migration }, { frozenMigrations }] = await Promise.all([
      import('@mikro-orm/migrations'),
      import('./migrations/frozen/index.js'),
    ]);
    return frozenMigrations(Migration, (platform) => v7.isSqlite(platform));
  },
};
