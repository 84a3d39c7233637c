/**
 * What every SQLite connection the package opens is set to, whichever MikroORM opens it (see
 * sqlite.ts for why): shared by both sides of sql-layer.ts, and importing nothing, so that either
 * side can load it while the seam is still choosing.
 */
import type { Options } from '@mikro-orm/core';

/** How long a write waits for another connection's write lock before the request answers 503. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Run on each new connection: wait for another process's lock rather than fail with SQLITE_BUSY,
 * let readers proceed while one writes (WAL), and enforce foreign keys.
 */
export const SQLITE_PRAGMAS: readonly string[] = [
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
  'PRAGMA journal_mode = WAL',
  'PRAGMA foreign_keys = ON',
];

/** What `sqliteOptions` gives: MikroORM options to spread into the application's own configuration. */
export type SqliteOptions = Required<Pick<Options, 'dbName' | 'driverOptions' | 'pool'>>;

/** The fix for a driver whose native part npm installed but did not build (npm 12 runs no unapproved script). */
export const SQLITE3_NOT_BUILT =
  'the SQLite driver `sqlite3` is installed but its native part was not built (npm 12 runs no install script ' +
  'it was not told to): npm install-scripts approve sqlite3 && npm rebuild sqlite3';
