/**
 * The seam's MikroORM 6 side: SQL through knex (@mikro-orm/knex). Loaded only when MikroORM 6 is
 * installed, since @mikro-orm/knex exists only there.
 */
import { createRequire } from 'node:module';
import type { MigrationObject, Options, Platform } from '@mikro-orm/core';
import {
  BaseSqlitePlatform,
  SqliteKnexDialect,
  type Knex,
  type QueryBuilder,
  type SqlEntityManager,
} from '@mikro-orm/knex';
import { importDriver } from './drivers.js';
import { SQLITE3_NOT_BUILT, SQLITE_PRAGMAS, type SqliteOptions } from './sqlite-setup.js';
import type { SqlLayer } from './sql-layer.js';

interface KnexTransaction {
  begin(connection: unknown): Promise<unknown>;
  readonly trxClient: { query(connection: unknown, sql: string): Promise<unknown> };
}

/**
 * knex's SQLite client, whose transactions begin with `BEGIN IMMEDIATE`, except those asked for
 * as read-only (`em.transactional(…, { readOnly: true })`): a read needs no write lock and would
 * only keep writers waiting.
 */
class ImmediateSqliteClient extends SqliteKnexDialect {
  transaction(container: unknown, config?: { readOnly?: boolean }, outerTx?: unknown): KnexTransaction {
    const transaction = super.transaction(container, config, outerTx) as KnexTransaction;
    // Called once the connection is acquired, after this returns; a nested transaction (a
    // savepoint) does not call it. Through the client, not knex's own `query`, which would take
    // a failed BEGIN (the lock not had in time) for a begun transaction: the caller gets the
    // driver's error instead of a transaction that refuses every statement.
    transaction.begin = (connection) =>
      transaction.trxClient.query(connection, config?.readOnly ? 'BEGIN;' : 'BEGIN IMMEDIATE;');
    return transaction;
  }
}

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

function sqliteOptions(dbName: string): SqliteOptions {
  return {
    dbName,
    driverOptions: { client: ImmediateSqliteClient },
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
        connection.exec(SQLITE_PRAGMAS.map((pragma) => `${pragma};`).join(' '), (error) => done(error, connection));
      },
    } as SqliteOptions['pool'],
  };
}

/**
 * Throws SQLITE3_NOT_BUILT when `sqlite3` (which knex loads, from where knex is) is there but
 * its binding is not: knex would say "run npm install sqlite3", wrong advice for an installed
 * package whose install script npm did not run. Any other failure is left to knex to report.
 */
function checkSqlite3Built(): void {
  const fromKnex = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/knex'));
  const knex = createRequire(fromKnex.resolve('knex'));
  try {
    knex.resolve('sqlite3');
  } catch {
    return;
  }
  try {
    knex('sqlite3');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/node_sqlite3\.node|bindings file/.test(message)) throw new Error(SQLITE3_NOT_BUILT, { cause: error });
  }
}

export const v6: SqlLayer = {
  isSqlite: (platform: Platform) => platform instanceof BaseSqlitePlatform,
  sqliteOptions,
  async sqliteDriver(): Promise<NonNullable<Options['driver']>> {
    const { SqliteDriver } = await importDriver('@mikro-orm/sqlite', () => import('@mikro-orm/sqlite'));
    checkSqlite3Built();
    return SqliteDriver;
  },
  postgresDriverOptions: (connectTimeoutMs, log) => ({
    pool: { min: 0, max: 10, acquireTimeoutMillis: connectTimeoutMs },
    driverOptions: {
      connection: { connectionTimeoutMillis: connectTimeoutMs },
      ...(log && {
        log: {
          warn: (message: string) => log.logger.warn(`database: ${message}`),
          error: (message: string) => log.logger.error(`database: ${message}`),
        },
      }),
    },
  }),
  subquery: (rows) => (rows as QueryBuilder).getKnexQuery(),
  // Run by knex with its bindings, in the transaction: MikroORM's execute() would write every key into the SQL text.
  async rowsByKeys(em, table, columns, column, keys, { forUpdate }) {
    const query = (em as SqlEntityManager)
      .getKnex()(table)
      .select([...columns])
      .whereIn(column, keys as readonly string[]);
    if (forUpdate) query.forUpdate();
    const transaction = em.getTransactionContext<Knex.Transaction>();
    return (await (transaction ? query.transacting(transaction) : query)) as Record<string, unknown>[];
  },
  async migrations(): Promise<MigrationObject[]> {
    return (await import('./migrations/index.js')).MIGRATIONS;
  },
};
