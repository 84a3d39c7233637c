/**
 * `sqliteOptions` from the package's index: the application's own MikroORM on the package's
 * SQLite file opened as the package opens it (docs/configuration.md#sharing-an-sqlite-file). Its
 * transactions that read and then write take the write lock first, and so wait for a write of the
 * package's instead of failing with SQLITE_BUSY on a stale read, as MikroORM's defaults would.
 */
import { defineEntity } from '@mikro-orm/core';
import { defineConfig, MikroORM } from '@mikro-orm/core';
import { expect } from 'chai';
import { BUSY_TIMEOUT_MS, sqliteOptions } from '../../src/index.js';
import { createTestApp, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { execute, heldTransaction, MIKRO_ORM_MAJOR, onStatement, SqliteDriver } from '../helpers/orm.js';

const p = defineEntity.properties;
const AppNote = defineEntity({
  name: 'AppNote',
  tableName: 'app_notes',
  properties: { id: p.integer().primary().autoincrement(), body: p.string() },
});

describe('sqliteOptions: the application’s own MikroORM on the package’s SQLite file', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  let orm: MikroORM;
  before(async () => {
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    // As docs/configuration.md shows it (the driver: @mikro-orm/sqlite's defineConfig on 6, @mikro-orm/sql's SqliteDriver on 7).
    orm = await MikroORM.init(
      defineConfig({
        driver: SqliteDriver,
        ...sqliteOptions(database.url.slice('sqlite:'.length)),
        entities: [AppNote],
        allowGlobalContext: true,
      }),
    );
    await execute(orm.em, 'create table app_notes (id integer primary key autoincrement, body text not null)');
  });
  after(async () => {
    await orm.close(true);
    await t.auth.close();
    await database.remove();
  });

  it('waits with a busy timeout, in WAL, with foreign keys enforced', async () => {
    const pragma = async (name: string) => Object.values((await execute<object[]>(orm.em, `pragma ${name}`))[0]!)[0];
    // On MikroORM 7, node:sqlite would wait for the lock synchronously, stopping the process: SQLite's
    // own wait is off, and the package's dialect waits BUSY_TIMEOUT_MS itself (sqlite-busy.test.ts).
    const busyTimeout = MIKRO_ORM_MAJOR >= 7 ? 0 : BUSY_TIMEOUT_MS;
    expect([await pragma('busy_timeout'), await pragma('journal_mode'), await pragma('foreign_keys')]).to.deep.equal([
      busyTimeout,
      'wal',
      1,
    ]);
  });

  it('begins a write transaction with BEGIN IMMEDIATE: one that reads then writes waits for the package’s write, and reads after it', async () => {
    const begins: string[] = [];
    await onStatement(orm.em, (sql) => /^BEGIN/i.test(sql) && begins.push(sql));
    // The package's connection holds the write lock, in a transaction that wrote.
    const held = await heldTransaction(
      await t.parts.storage.em(),
      "insert into app_notes (body) values ('the package wrote first')",
    );

    const counted = orm.em.fork().transactional(async (tx) => {
      const count = await tx.count(AppNote);
      tx.create(AppNote, { body: `after ${count}` });
    });
    // Released once the application's transaction has asked to begin.
    while (begins.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await held.commit();
    await counted;

    expect(begins.map((sql) => sql.toUpperCase().replace(/;$/, ''))).to.deep.equal(['BEGIN IMMEDIATE']);
    const notes = await orm.em.fork().find(AppNote, {}, { orderBy: { id: 'asc' } });
    expect(notes.map((note) => note.body)).to.deep.equal(['the package wrote first', 'after 1']);
  });
});
