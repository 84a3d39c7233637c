/**
 * Opening the database: the driver chosen from the URL, our entities and migrations, and the
 * connection checked so that a bad URL fails `ready` with a message rather than a later request.
 */
import { MikroORM, type Options } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { Migrator } from '@mikro-orm/migrations';
import { redactUrl } from '../config/redact.js';
import type { LoggerHolder } from '../logger.js';
import { ENTITIES } from './entities/index.js';
import { MIGRATIONS } from './migrations/index.js';
import { sqliteOptions } from './sqlite.js';

export type Orm = MikroORM;
export type { EntityManager };

/** Our RequestContext name, distinct from an application's own MikroORM context ('default'). */
export const CONTEXT_NAME = 'service-auth';

/** How long opening the database may take before `ready` rejects. */
const CONNECT_TIMEOUT_MS = 10_000;

export class StorageError extends Error {
  override name = 'StorageError';
}

/**
 * The MikroORM options for a `sqlite:` or `postgresql://` URL. With a `log`, the query builder's
 * own warnings (a pooled connection lost, say) go to its logger instead of to the console.
 */
export async function ormOptions(databaseUrl: string, log?: LoggerHolder): Promise<Options> {
  const common: Options = {
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: {
      tableName: 'service_auth_migrations',
      migrationsList: MIGRATIONS,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
    discovery: { warnWhenNoEntities: false },
    // A mistyped database name should fail, not create a new, empty database.
    ensureDatabase: false,
    // Each request and each service call works on its own fork (see Storage.em()).
    allowGlobalContext: false,
    contextName: CONTEXT_NAME,
    debug: false,
  };
  if (databaseUrl.startsWith('sqlite:')) return { ...common, ...(await sqliteOptions(databaseUrl.slice('sqlite:'.length))) };
  const { PostgreSqlDriver } = await import('@mikro-orm/postgresql');
  return {
    ...common,
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    pool: { min: 0, max: 10, acquireTimeoutMillis: CONNECT_TIMEOUT_MS },
    driverOptions: {
      connection: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS },
      ...(log && { log: { warn: (message: string) => log.logger.warn(`database: ${message}`), error: (message: string) => log.logger.error(`database: ${message}`) } }),
    },
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
    orm = await MikroORM.init(await ormOptions(databaseUrl, options.log));
  } catch (error) {
    throw new StorageError(`cannot open the database ${where}: ${describe(error)}`, { cause: error });
  }
  try {
    const check = await orm.checkConnection();
    if (!check.ok) throw new Error(check.reason);
    if (options.migrate) await migrate(orm);
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
  const migrator = orm.getMigrator();
  for (let attempt = 1; ; attempt++) {
    try {
      await migrator.up();
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 100));
      const pending = await migrator.getPendingMigrations().catch(() => undefined);
      if (pending?.length === 0) return;
    }
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Driver messages sometimes repeat the connection string; never let a password through.
  return redactUrl(message).replace(/password=[^\s&]+/gi, 'password=***');
}
