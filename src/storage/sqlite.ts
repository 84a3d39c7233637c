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
import { sqlLayer } from './sql-layer.js';
import type { SqliteOptions } from './sqlite-setup.js';

export { BUSY_TIMEOUT_MS, type SqliteOptions } from './sqlite-setup.js';

/**
 * The package's way of opening an SQLite file (`:memory:` too), for the application's own MikroORM
 * on the same file (docs/configuration.md#sharing-an-sqlite-file): write transactions that begin
 * with `BEGIN IMMEDIATE`, a busy timeout of BUSY_TIMEOUT_MS, WAL, and foreign keys enforced. No
 * driver: the application's `defineConfig` from `@mikro-orm/sqlite` (or its `MikroORM`) brings it;
 * on MikroORM 7, `SqliteDriver` from `@mikro-orm/sql` (the options open the file with `node:sqlite`).
 */
export function sqliteOptions(dbName: string): SqliteOptions {
  return sqlLayer.sqliteOptions(dbName);
}

/** The package's own MikroORM options for the SQLite file at `path` (or `:memory:`): `sqliteOptions` and the driver. */
export async function sqliteDriverOptions(path: string): Promise<Options> {
  return { driver: await sqlLayer.sqliteDriver(), ...sqliteOptions(path) };
}
