/**
 * How the package opens an SQLite file, which other processes (its CLI, other servers) and the
 * application's own MikroORM may be writing at the same time.
 *
 * SQLite has one writer at a time. A transaction begun the default way (`BEGIN`, deferred) reads
 * under a snapshot and asks for the write lock only at its first write; if anybody else wrote
 * meanwhile, SQLite cannot let it write on a stale snapshot and answers SQLITE_BUSY at once,
 * without waiting (busy_timeout does not apply: waiting could deadlock). So every write
 * transaction here begins with `BEGIN IMMEDIATE`: it takes the write lock first, waiting its turn
 * for at most BUSY_TIMEOUT_MS, and then cannot fail on it. Past that wait the driver's
 * "database is locked" becomes 503 `unavailable` (outages.ts). Single statements outside a
 * transaction take the lock as they start, and wait the same way.
 */
import type { Options } from '@mikro-orm/core';
import { SqliteKnexDialect } from '@mikro-orm/knex';
import { importDriver } from './drivers.js';

/** How long a write waits for another connection's write lock before the request answers 503. */
export const BUSY_TIMEOUT_MS = 5000;

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
    transaction.begin = (connection) => transaction.trxClient.query(connection, config?.readOnly ? 'BEGIN;' : 'BEGIN IMMEDIATE;');
    return transaction;
  }
}

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/** What `sqliteOptions` gives: MikroORM options to spread into the application's own configuration. */
export type SqliteOptions = Required<Pick<Options, 'dbName' | 'driverOptions' | 'pool'>>;

/**
 * The package's way of opening an SQLite file (`:memory:` too), for the application's own MikroORM
 * on the same file (docs/configuration.md#sharing-an-sqlite-file): write transactions that begin
 * with `BEGIN IMMEDIATE`, a busy timeout of BUSY_TIMEOUT_MS, WAL, and foreign keys enforced. No
 * driver: the application's `defineConfig` from `@mikro-orm/sqlite` (or its `MikroORM`) brings it.
 */
export function sqliteOptions(dbName: string): SqliteOptions {
  return {
    dbName,
    driverOptions: { client: ImmediateSqliteClient },
    pool: {
      min: 1,
      max: 1,
      // Wait for another process's lock rather than fail with SQLITE_BUSY, and let readers
      // proceed while one writes (WAL).
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
        connection.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;`, (error) => done(error, connection));
      },
    } as SqliteOptions['pool'],
  };
}

/** The package's own MikroORM options for the SQLite file at `path` (or `:memory:`): `sqliteOptions` and the driver. */
export async function sqliteDriverOptions(path: string): Promise<Options> {
  const { SqliteDriver } = await importDriver('@mikro-orm/sqlite', () => import('@mikro-orm/sqlite'));
  return { driver: SqliteDriver, ...sqliteOptions(path) };
}
