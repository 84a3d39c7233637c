/**
 * The migrations as MikroORM 7 runs them (frozen SQL, src/storage/migrations/frozen/) against the
 * migrations as written, compiled by MikroORM 6's knex: the same statements, and the same schema.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { MikroORM, type MigrationObject } from '@mikro-orm/core';
import { Migration, Migrator } from '@mikro-orm/migrations';
import { frozenMigrations } from '../../src/storage/migrations/frozen/index.js';
import { sqlLayer } from '../../src/storage/sql-layer.js';
import { describeOnMikroOrm6, sqliteDefaults } from '../helpers/orm.js';

// The migrations as written, and the script that compiles them, need knex: MikroORM 6's.
const written = async () => (await import('../../src/storage/migrations/index.js')).MIGRATIONS;
const freezing = () => import('../../scripts/freeze-migrations.js');

async function schemaAfter(migrationsList: MigrationObject[]): Promise<string[]> {
  const orm = await MikroORM.init({
    ...sqliteDefaults(':memory:'),
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: { migrationsList, silent: true, tableName: 'frozen_test_migrations' },
  });
  try {
    await orm.migrator.up();
    const connection = orm.em.getConnection() as unknown as { execute<T>(sql: string): Promise<T> };
    const rows = await connection.execute<{ sql: string | null }[]>(
      "select sql from sqlite_master where name not like 'sqlite_%' and name <> 'frozen_test_migrations' order by name",
    );
    return rows.map((row) => row.sql ?? '');
  } finally {
    await orm.close(true);
  }
}

const WHY = 'it compares them with what knex compiles the migrations to; on 7, the storage contract migrates with them';

describeOnMikroOrm6('frozen migrations (what MikroORM 7 runs)', WHY, () => {
  it('are what MikroORM 6 compiles the migrations to, on SQLite and PostgreSQL', async () => {
    const { compileMigrations, FROZEN_FOLDER } = await freezing();
    for (const [name, compiled] of await compileMigrations()) {
      // The statements, not the file's text: Prettier lays the file out.
      const module = (await import(join(FROZEN_FOLDER, `${name}.ts`))) as Record<string, unknown>;
      expect(module[name], `${name} changed: npx tsx scripts/freeze-migrations.ts`).to.deep.equal(compiled);
    }
  });

  it('build on SQLite the schema the migrations build', async () => {
    const frozen = frozenMigrations(Migration, (platform) => sqlLayer.isSqlite(platform));
    const migrations = await written();
    expect(frozen.map(({ name }) => name)).to.deep.equal(migrations.map(({ name }) => name));
    const [live, replayed] = [await schemaAfter(migrations), await schemaAfter(frozen)];
    expect(replayed).to.have.length.above(20);
    expect(replayed).to.deep.equal(live);
  });
});
