/**
 * The migrations as MikroORM 7 runs them (frozen SQL, src/storage/migrations/frozen/) against the
 * migrations as written, compiled by MikroORM 6's knex: the same statements, and the same schema.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { Migration, Migrator } from '@mikro-orm/migrations';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { compileMigrations, FROZEN_FOLDER } from '../../scripts/freeze-migrations.js';
import { frozenMigrations } from '../../src/storage/migrations/frozen/index.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { sqlLayer } from '../../src/storage/sql-layer.js';

async function schemaAfter(migrationsList: typeof MIGRATIONS): Promise<string[]> {
  const orm = await MikroORM.init({
    driver: SqliteDriver,
    dbName: ':memory:',
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: { migrationsList, silent: true, tableName: 'frozen_test_migrations' },
  });
  try {
    await orm.getMigrator().up();
    const rows = await orm.em
      .getConnection()
      .execute<{ sql: string | null }[]>(
        "select sql from sqlite_master where name not like 'sqlite_%' and name <> 'frozen_test_migrations' order by name",
      );
    return rows.map((row) => row.sql ?? '');
  } finally {
    await orm.close(true);
  }
}

describe('frozen migrations (what MikroORM 7 runs)', () => {
  it('are what MikroORM 6 compiles the migrations to, on SQLite and PostgreSQL', async () => {
    for (const [name, compiled] of await compileMigrations()) {
      // The statements, not the file's text: Prettier lays the file out.
      const module = (await import(join(FROZEN_FOLDER, `${name}.ts`))) as Record<string, unknown>;
      expect(module[name], `${name} changed: npx tsx scripts/freeze-migrations.ts`).to.deep.equal(compiled);
    }
  });

  it('build on SQLite the schema the migrations build', async () => {
    const frozen = frozenMigrations(Migration, (platform) => sqlLayer.isSqlite(platform));
    expect(frozen.map(({ name }) => name)).to.deep.equal(MIGRATIONS.map(({ name }) => name));
    const [live, replayed] = [await schemaAfter(MIGRATIONS), await schemaAfter(frozen)];
    expect(replayed).to.have.length.above(20);
    expect(replayed).to.deep.equal(live);
  });
});
