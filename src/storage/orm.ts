/**
 * Opening the database: the driver chosen from the URL, our entities and migrations, and the
 * connection checked so that a bad URL fails `ready` with a message rather than a later request.
 *
 * The migrator (@mikro-orm/migrations, with umzug and its dependencies: a good third of what
 * opening costs) is loaded only when a migration is pending or asked for, so that a process
 * on an up-to-date database (a CLI command, say) starts without it.
 */
import { MikroORM, type IMigrator, type MigrationsOptions, type Options } from '@mikro-orm/core';
import { redactUrl } from '../config/redact.js';
import type { LoggerHolder } from '../logger.js';
import { importDriver } from './drivers.js';
import { ENTITIES } from './entities/index.js';
import { MIGRATION_NAMES } from './migrations/names.js';
import { sqliteDriverOptions } from './sqlite.js';
import { sqlLayer } from './sql-layer.js';
import { MIGRATIONS_TABLE } from './tables.js';

export type Orm = MikroORM;

/**
 * MikroORM's SQL EntityManager, which the package's own code uses (query builders, `execute`). Its
 * published declaration is opaque, naming no @mikro-orm package: MikroORM 6's SQL layer
 * (@mikro-orm/knex) is absent on 7, so a declaration naming it would not compile in an application
 * on 7 that checks every declaration file (skipLibCheck off), and no public API hands it out.
 * Inside the package it is the SQL layer's, by the augmentation in ./sql-entity-manager.ts, a file
 * no published declaration imports.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface EntityManager {}

/** Our RequestContext name, distinct from an application's own MikroORM context ('default'). */
export const CONTEXT_NAME = 'service-auth';

/** How long opening the database may take before `ready` rejects. */
const CONNECT_TIMEOUT_MS = 10_000;

export class StorageError extends Error {
  override name = 'StorageError';
}

/**
 * The MikroORM options for a `sqlite:` or `postgresql://` URL, the migrator included. With a
 * `log`, the query builder's own warnings (a pooled connection lost, say) go to its logger instead
 * of to the console.
 */
export async function ormOptions(databaseUrl: string, log?: LoggerHolder): Promise<Options> {
  const [{ Migrator }, options] = await Promise.all([
    import('@mikro-orm/migrations'),
    connectionOptions(databaseUrl, log),
  ]);
  return { ...options, extensions: [Migrator], migrations: await migrationOptions() };
}

/** ormOptions without the migrator, which `migratorOf` adds when it is needed. */
async function connectionOptions(databaseUrl: string, log?: LoggerHolder): Promise<Options> {
  const common: Options = {
    entities: ENTITIES,
    discovery: { warnWhenNoEntities: false },
    // A mistyped database name should fail, not create a new, empty database.
    ensureDatabase: false,
    // Each request and each service call works on its own fork (see Storage.em()).
    allowGlobalContext: false,
    contextName: CONTEXT_NAME,
    debug: false,
    // The audit log's PostgreSQL function is the migrations', not the entities': MikroORM 7's schema
    // diff would drop it (6 has no such key and ignores it).
    schemaGenerator: { ignoreRoutines: true } as Options['schemaGenerator'],
  };
  if (databaseUrl.startsWith('sqlite:'))
    return { ...common, ...(await sqliteDriverOptions(databaseUrl.slice('sqlite:'.length))) };
  const { PostgreSqlDriver } = await importDriver('@mikro-orm/postgresql', () => import('@mikro-orm/postgresql'));
  return {
    ...common,
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    ...sqlLayer.postgresDriverOptions(CONNECT_TIMEOUT_MS, log),
  };
}

/**
 * Connects and, unless told otherwise, applies pending migrations. Failures name the URL with its
 * password hidden.
 */
export async function openOrm(databaseUrl: string, options: { migrate: boolean; log?: LoggerHolder }): Promise<Orm> {
  const where = redactUrl(databaseUrl);
  let orm: Orm;
  try {
    orm = await MikroORM.init(await connectionOptions(databaseUrl, options.log));
  } catch (error) {
    throw new StorageError(`cannot open the database ${where}: ${describe(error)}`, { cause: error });
  }
  try {
    // MikroORM 7's init connects only when first needed; 6's has connected already.
    if (!(await orm.isConnected())) await orm.connect();
    const check = await orm.checkConnection();
    if (!check.ok) throw new Error(check.reason);
    if (options.migrate && !(await upToDate(orm))) await migrate(orm);
    return orm;
  } catch (error) {
    await orm.close(true).catch(() => undefined);
    throw new StorageError(`cannot use the database ${where}: ${describe(error)}`, { cause: error });
  }
}

/**
 * Applies pending migrations. Several instances may start at once on a fresh database: one wins,
 * the others' transactions fail (the migrations table or a table already exists) and roll back.
 * A loser waits a moment and finds nothing left to do, or tries again.
 */
export async function migrate(orm: Orm, attempts = 5): Promise<void> {
  const migrator = await migratorOf(orm);
  for (let attempt = 1; ; attempt++) {
    try {
      await migrator.up();
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 100));
      const pending = await pendingMigrations(migrator).catch(() => undefined);
      if (pending?.length === 0) return;
    }
  }
}

/** Our migrations, in one transaction, recorded in our own table. */
async function migrationOptions(): Promise<MigrationsOptions> {
  return {
    tableName: MIGRATIONS_TABLE,
    migrationsList: await sqlLayer.migrations(),
    transactional: true,
    allOrNothing: true,
    silent: true,
  };
}

/** The migrations not yet applied (MikroORM 6's getPendingMigrations(), 7's getPending()). */
async function pendingMigrations(migrator: IMigrator): Promise<unknown[]> {
  const either = migrator as unknown as Record<'getPending' | 'getPendingMigrations', () => Promise<unknown[]>>;
  return either.getPending ? either.getPending() : either.getPendingMigrations();
}

/** The ORM's migrator, loaded and registered on first use. */
export async function migratorOf(orm: Orm): Promise<IMigrator> {
  // An ORM opened without migration options (connectionOptions) gets ours, over MikroORM's
  // defaults as if they had been given to init(): MikroORM 7's init registers an installed
  // migrator with its defaults, which getExtension would then build. One opened with its own
  // (the demo's, in their own table) keeps them: it only needs the migrator registered.
  if (!orm.config.get('migrations').migrationsList) {
    const { Migrator } = await import('@mikro-orm/migrations');
    orm.config.set('migrations', { ...orm.config.get('migrations'), ...(await migrationOptions()) });
    Migrator.register(orm);
  } else if (!orm.config.getExtension('@mikro-orm/migrator')) {
    const { Migrator } = await import('@mikro-orm/migrations');
    Migrator.register(orm);
  }
  // MikroORM 7 has a `migrator` getter in place of 6's getMigrator().
  const seven = orm as unknown as { getMigrator?: () => IMigrator; migrator: IMigrator };
  return seven.getMigrator ? seven.getMigrator() : seven.migrator;
}

/**
 * Whether the migrations table names every migration: then none is pending, and the migrator need
 * not be loaded. It reads the table as the migrator does (same table, same schema); a migration
 * is recorded in the transaction that applies it, so one being applied elsewhere is not listed
 * yet. Anything else (no table yet: a fresh database) leaves the answer to the migrator.
 */
async function upToDate(orm: Orm): Promise<boolean> {
  try {
    const schema = orm.config.get('schema', orm.em.getPlatform().getDefaultSchemaName());
    const platform = orm.em.getPlatform();
    const table = [schema, MIGRATIONS_TABLE].filter(Boolean).map((name) => platform.quoteIdentifier(name as string));
    const rows = await (orm.em as EntityManager)
      .getConnection()
      .execute<{ name: string }[]>(`select name from ${table.join('.')}`);
    const applied = new Set(rows.map((row) => row.name));
    return MIGRATION_NAMES.every((name) => applied.has(name));
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Driver messages sometimes repeat the connection string; never let a password through.
  return redactUrl(message).replace(/password=[^\s&]+/gi, 'password=***');
}
