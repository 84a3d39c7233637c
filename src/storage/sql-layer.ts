/**
 * The one place that knows which MikroORM is installed. MikroORM 6 runs SQL through knex
 * (@mikro-orm/knex), MikroORM 7 through Kysely (@mikro-orm/sql), and the package uses that layer
 * directly in a few places: how SQLite transactions begin (`BEGIN IMMEDIATE`), the migrations
 * (written with knex's schema builder), the check for the SQLite platform, a subquery, the rows a
 * flush through req.em is about to change, and the PostgreSQL pool's options. Each side implements
 * them for its MikroORM; the side is chosen once, by the installed @mikro-orm/core's major version,
 * and only that side is loaded.
 */
import { Utils, type EntityManager, type MigrationObject, type Options, type Platform } from '@mikro-orm/core';
import type { LoggerHolder } from '../logger.js';
import type { SqliteOptions } from './sqlite-setup.js';

export interface SqlLayer {
  /** Whether the platform is SQLite's, whichever driver opened it. */
  isSqlite(platform: Platform): boolean;
  /** Options that open `dbName` the package's way (sqlite.ts): spread into a configuration with a SQLite driver. */
  sqliteOptions(dbName: string): SqliteOptions;
  /** The SQLite driver the package opens `sqlite:` URLs with, or an error saying what to install or build. */
  sqliteDriver(): Promise<NonNullable<Options['driver']>>;
  /** The pool and driver options for PostgreSQL; with a `log`, the driver's warnings go to its logger. */
  postgresDriverOptions(connectTimeoutMs: number, log?: LoggerHolder): Pick<Options, 'pool' | 'driverOptions'>;
  /** A query builder's query as a value for `$in`. */
  subquery(rows: unknown): unknown;
  /**
   * The `columns` of the rows of `table` (`schema.table` or a name) whose `column` is one of `keys`,
   * read in `em`'s transaction; `forUpdate` locks them until it ends. Its own SQL with bindings, not
   * the query builder's.
   */
  rowsByKeys(
    em: EntityManager,
    table: string,
    columns: readonly string[],
    column: string,
    keys: readonly unknown[],
    options: { forUpdate: boolean },
  ): Promise<Record<string, unknown>[]>;
  /** The package's migrations, in order. */
  migrations(): Promise<MigrationObject[]>;
}

/** The installed MikroORM's major version: 6 or 7. */
export const MIKRO_ORM_MAJOR = Number(Utils.getORMVersion().split('.')[0]);

export const sqlLayer: SqlLayer =
  MIKRO_ORM_MAJOR >= 7 ? (await import('./sql-layer-v7.js')).v7 : (await import('./sql-layer-v6.js')).v6;
