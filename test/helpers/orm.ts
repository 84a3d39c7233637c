/**
 * What the tests do with MikroORM that differs between 6 (SQL through knex) and 7 (through
 * Kysely), each way chosen by the installed major as the package chooses its SQL layer
 * (src/storage/sql-layer.ts): an application's own SQLite with MikroORM's defaults, the schema
 * generator's two methods the tests use, a write lock held on purpose, and the statements a
 * connection runs, as it is given them.
 */
import type { EntityManager, MikroORM, Options } from '@mikro-orm/core';
import { MIKRO_ORM_MAJOR, sqlLayer } from '../../src/storage/sql-layer.js';

export { MIKRO_ORM_MAJOR };

/** MikroORM's SQL layer package: knex's on 6, Kysely's on 7. */
export const SQL_LAYER_PACKAGE = MIKRO_ORM_MAJOR >= 7 ? '@mikro-orm/sql' : '@mikro-orm/knex';

/** The EntityManager method that hands out the SQL layer itself (which req.em refuses). */
export const SQL_LAYER_METHOD = MIKRO_ORM_MAJOR >= 7 ? 'getKysely' : 'getKnex';

/**
 * `describe(title, suite)` on MikroORM 6; on 7, the same title with one pending test that says
 * why the suite runs on 6 only (mocha lists it as pending, with the reason, in every run).
 */
export function describeOnMikroOrm6(title: string, reason: string, suite: () => void): void {
  if (MIKRO_ORM_MAJOR < 7) describe(title, suite);
  else describe(title, () => it.skip(`runs on MikroORM 6 only: ${reason}`));
}

/** `describe(title, suite)` on MikroORM 7; on 6, pending as describeOnMikroOrm6 is on 7. */
export function describeOnMikroOrm7(title: string, reason: string, suite: (this: Mocha.Suite) => void): void {
  if (MIKRO_ORM_MAJOR >= 7) describe(title, suite);
  else describe(title, () => it.skip(`runs on MikroORM 7 only: ${reason}`));
}

/** The SQLite driver of the installed MikroORM (`@mikro-orm/sqlite`'s on 6, `@mikro-orm/sql`'s on 7). */
export const SqliteDriver = await sqlLayer.sqliteDriver();

const SQL_PACKAGE = '@mikro-orm/sql'; // MikroORM 7's; the project's types are MikroORM 6's
const sql =
  MIKRO_ORM_MAJOR >= 7 ? ((await import(SQL_PACKAGE)) as { NodeSqliteDialect: new (dbName: string) => object }) : null;

/**
 * An application's own SQLite database (a file, or `:memory:`) with MikroORM's defaults: on 7,
 * `node:sqlite` through its NodeSqliteDialect, which its SqliteDriver needs to be given.
 */
export function sqliteDefaults(dbName: string): Options {
  return { driver: SqliteDriver, dbName, ...(sql && { driverOptions: new sql.NodeSqliteDialect(dbName) }) } as Options;
}

interface SchemaGenerator6 {
  createSchema(): Promise<void>;
  updateSchema(): Promise<void>;
}
interface SchemaGenerator7 {
  create(): Promise<void>;
  update(): Promise<void>;
}

/** Creates the tables of the ORM's entities (`createSchema()` on 6, `create()` on 7). */
export async function createSchema(orm: MikroORM): Promise<void> {
  const schema = orm.schema as unknown as SchemaGenerator6 & SchemaGenerator7;
  await (MIKRO_ORM_MAJOR >= 7 ? schema.create() : schema.createSchema());
}

/** Brings the tables in line with the ORM's entities (`updateSchema()` on 6, `update()` on 7). */
export async function updateSchema(orm: MikroORM): Promise<void> {
  const schema = orm.schema as unknown as SchemaGenerator6 & SchemaGenerator7;
  await (MIKRO_ORM_MAJOR >= 7 ? schema.update() : schema.updateSchema());
}

/** A row of the migrations table. */
export interface MigrationRow {
  name: string;
  executed_at: Date;
}

type Migrator6 = Record<'getExecutedMigrations' | 'getPendingMigrations', () => Promise<{ name: string }[]>>;
type Migrator7 = Record<'getExecuted' | 'getPending', () => Promise<{ name: string }[]>>;

/** The migrations the ORM's migrator has applied, and those it has not (the methods' names differ in 7). */
export function migrationsOf(orm: MikroORM): {
  executed(): Promise<MigrationRow[]>;
  pending(): Promise<{ name: string }[]>;
} {
  const migrator = orm.migrator as unknown as Migrator6 & Migrator7;
  const seven = MIKRO_ORM_MAJOR >= 7;
  return {
    executed: () => (seven ? migrator.getExecuted() : migrator.getExecutedMigrations()) as Promise<MigrationRow[]>,
    pending: () => (seven ? migrator.getPending() : migrator.getPendingMigrations()),
  };
}

/** A table as MikroORM's DatabaseSchema reads it from the database. */
export interface SchemaTable {
  name: string;
  getColumns(): { name: string }[];
}

/**
 * The database's own account of its schema (MikroORM's DatabaseSchema: @mikro-orm/knex's on 6,
 * @mikro-orm/sql's on 7), read on a fork of `orm.em`.
 */
export async function databaseSchema(orm: MikroORM): Promise<{ getTables(): SchemaTable[] }> {
  const { DatabaseSchema } = (await import(SQL_LAYER_PACKAGE)) as {
    DatabaseSchema: { create(...args: unknown[]): Promise<{ getTables(): SchemaTable[] }> };
  };
  const em = orm.em.fork();
  return DatabaseSchema.create(em.getConnection(), em.getPlatform(), orm.config);
}

interface SqlConnection {
  begin(): Promise<unknown>;
  execute(sql: string, params: unknown[], method: 'run', ctx: unknown): Promise<unknown>;
  commit(ctx: unknown): Promise<void>;
}

/** Runs `sql` on `em`'s connection: its rows (`all`). */
export function execute<T = Record<string, unknown>[]>(em: EntityManager, sql: string): Promise<T> {
  return (em.getConnection() as unknown as { execute(sql: string): Promise<T> }).execute(sql);
}

/** A transaction begun the default way (`BEGIN`) on `em`'s connection that ran `statement`, until committed. */
export async function heldTransaction(em: EntityManager, statement: string): Promise<{ commit(): Promise<void> }> {
  const connection = em.getConnection() as unknown as SqlConnection;
  const ctx = await connection.begin();
  await connection.execute(statement, [], 'run', ctx);
  return { commit: () => connection.commit(ctx) };
}

type Listener = (sql: string) => void;

/**
 * Calls `listener` with each statement `em`'s connection hands the database, as it hands it
 * over (before the answer): everything, `BEGIN IMMEDIATE` and the package's own SQL included. On
 * 6, knex's `query` event; on 7, the database client's own: node:sqlite's one connection, or
 * each client of the `pg` pool.
 */
export async function onStatement(em: EntityManager, listener: Listener): Promise<void> {
  const connection = em.getConnection() as unknown as SqlLayerConnection;
  if (MIKRO_ORM_MAJOR < 7) {
    connection.getKnex!().on('query', (query: { sql: string }) => listener(query.sql));
    return;
  }
  if (sqlLayer.isSqlite(em.getPlatform())) {
    // Kysely's SQLite driver has one connection, handed out for as long as the callback runs.
    const client = connection.getClient!();
    const sqlite = await client.getExecutor().provideConnection(async (held) => held);
    listenTo(sqlite, 'executeQuery', (query) => (query as { sql: string }).sql, listener);
  } else {
    const pool = await connection.getNativeClient!();
    pool.on('acquire', (client) => listenTo(client, 'query', pgText, listener));
  }
}

interface SqlLayerConnection {
  getKnex?(): { on(event: 'query', listener: (query: { sql: string }) => void): void };
  getClient?(): { getExecutor(): { provideConnection<T>(consumer: (connection: object) => Promise<T>): Promise<T> } };
  getNativeClient?(): Promise<{ on(event: 'acquire', listener: (client: object) => void): void }>;
}

const listening = new WeakMap<object, Set<Listener>>();

/** Wraps `target[method]` (once) to tell each listener of `target` the SQL of its first argument. */
function listenTo(target: object, method: string, sqlOf: (query: unknown) => string, listener: Listener): void {
  let listeners = listening.get(target);
  if (!listeners) {
    listening.set(target, (listeners = new Set()));
    const held = target as Record<string, (...args: unknown[]) => unknown>;
    const original = held[method]!;
    const all = listeners;
    held[method] = function (this: unknown, ...args: unknown[]) {
      const text = sqlOf(args[0]);
      for (const each of all) each(text);
      return original.apply(this, args);
    };
  }
  listeners.add(listener);
}

/** The SQL of what `pg`'s `client.query` is given: a string, a query config, or a cursor. */
const pgText = (query: unknown): string =>
  typeof query === 'string' ? query : String((query as { text?: string }).text);
