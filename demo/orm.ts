/**
 * The demo's own MikroORM, as an application has its own beside service-auth's: its entities
 * (`Report`, `Note`) on the same database URL as the package, in tables of its own (`demo_*`).
 * Its migrations create them, recorded in their own table (`demo_migrations`); never
 * `schema:update`, which would take the package's tables for strays.
 */
import { MikroORM, type EntityManager } from '@mikro-orm/core';
import type { Request } from 'express';
import { migrate, ormOptions } from '../src/storage/orm.js';
import { ENTITIES } from './entities/index.js';
import { MIGRATIONS } from './migrations/index.js';

/** Opens the demo's ORM on `databaseUrl` (`sqlite:<path>`, `sqlite::memory:`, `postgresql://…`) and migrates it. */
export async function openDemoOrm(databaseUrl: string): Promise<MikroORM> {
  // The package's options for the driver and pool (SQLite's busy timeout and WAL), with our own
  // entities, migrations and context name.
  const options = await ormOptions(databaseUrl);
  const orm = await MikroORM.init({
    ...options,
    entities: ENTITIES,
    migrations: { ...options.migrations, tableName: 'demo_migrations', migrationsList: MIGRATIONS },
    contextName: 'demo',
  });
  try {
    // Several demo processes may start at once on a fresh database: one migrates, the others retry.
    await migrate(orm);
    return orm;
  } catch (error) {
    await orm.close(true).catch(() => undefined);
    throw error;
  }
}

/**
 * The demo's database, opened (and migrated) on first use: when `npm start` awaits `ready`, or by
 * the first request that needs it. Importing the app opens nothing of its own, so the CLI's
 * `--app demo/app.ts` finds the database as the package alone leaves it.
 */
export class DemoDatabase {
  private opening: Promise<MikroORM> | undefined;
  private readonly forks = new WeakMap<Request, EntityManager>();

  /**
   * `databaseUrl` says where, once the database may be opened (after the package's own `ready`);
   * `opened` is told the ORM once it is open and migrated (the app registers it: `auth.enforce`).
   */
  constructor(
    private readonly databaseUrl: () => Promise<string>,
    private readonly opened: (orm: MikroORM) => void = () => undefined,
  ) {}

  /** Resolves once the demo's tables are migrated (and seeded); opens the database if nobody has. */
  get ready(): Promise<void> {
    return this.open().then(() => undefined);
  }

  /**
   * The request's entity manager (an `em.fork()`, made on first use): what a guard's `load` found
   * is what the handler changes and flushes.
   */
  async em(req: Request): Promise<EntityManager> {
    const orm = await this.open();
    let em = this.forks.get(req);
    if (!em) {
      em = orm.em.fork();
      this.forks.set(req, em);
    }
    return em;
  }

  /** Closes the connection, if it was opened (once it is open, if it is still opening). */
  async close(): Promise<void> {
    const orm = await this.opening?.catch(() => undefined);
    await orm?.close(true);
  }

  private open(): Promise<MikroORM> {
    return (this.opening ??= this.databaseUrl()
      .then(openDemoOrm)
      .then((orm) => {
        this.opened(orm);
        return orm;
      }));
  }
}
