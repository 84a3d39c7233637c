/**
 * Writes src/storage/migrations/frozen/: the SQL each migration runs, for SQLite and for
 * PostgreSQL, as MikroORM 6's knex compiles it. MikroORM 7 has no knex, so the package runs these
 * statements there; on MikroORM 6 it still compiles the migrations as they are written, and
 * test/storage/frozen-migrations.test.ts fails if the two differ (run this script after changing
 * or adding a migration: `npx tsx scripts/freeze-migrations.ts`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { AbstractSqlDriver } from '@mikro-orm/knex';
import type { Migration } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { MIGRATIONS } from '../src/storage/migrations/index.js';

export const FROZEN_FOLDER = fileURLToPath(new URL('../src/storage/migrations/frozen/', import.meta.url));

type Platform = 'sqlite' | 'postgresql';
type Compiled = Record<Platform, { up: string[]; down: string[] }>;

const DRIVERS: Record<Platform, Options> = {
  sqlite: { driver: SqliteDriver, dbName: ':memory:' },
  postgresql: { driver: PostgreSqlDriver, clientUrl: 'postgresql://compile@127.0.0.1:1/only' },
};

/** Every migration's statements, by name, compiled without a connection. */
export async function compileMigrations(): Promise<Map<string, Compiled>> {
  const compiled = new Map<string, Compiled>();
  for (const platform of ['sqlite', 'postgresql'] as const) {
    const discovery = { warnWhenNoEntities: false };
    const orm = await MikroORM.init({ ...DRIVERS[platform], entities: [], connect: false, discovery });
    try {
      for (const { name, class: listed } of MIGRATIONS) {
        const Class = listed as unknown as new (...args: ConstructorParameters<typeof Migration>) => Migration;
        const statements = async (direction: 'up' | 'down'): Promise<string[]> => {
          const migration = new Class(orm.em.getDriver() as AbstractSqlDriver, orm.config);
          await migration[direction]();
          return migration.getQueries().map((query) => (typeof query === 'string' ? query : query.toQuery()));
        };
        const entry = compiled.get(name!) ?? ({} as Compiled);
        entry[platform] = { up: await statements('up'), down: await statements('down') };
        compiled.set(name!, entry);
      }
    } finally {
      await orm.close(true);
    }
  }
  return compiled;
}

/** A string literal as Prettier writes it (single quotes unless the text has more of them), cut under 120 columns. */
function literal(text: string, indent: string): string {
  const quote = (part: string): string =>
    (part.match(/'/g) ?? []).length > (part.match(/"/g) ?? []).length
      ? JSON.stringify(part)
      : `'${JSON.stringify(part).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
  const parts: string[] = [];
  let rest = text;
  while (rest.length > 100) {
    const cut = rest.lastIndexOf(' ', 100);
    const at = cut > 20 ? cut + 1 : 100;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  parts.push(rest);
  return parts.map(quote).join(` +\n${indent}  `);
}

/** The source of one frozen migration's file. */
function frozenSource(name: string, compiled: Compiled): string {
  const item = (sql: string): string => `      ${literal(sql, '      ')},\n`;
  const list = (statements: string[]): string =>
    statements.length === 0 ? '[]' : `[\n${statements.map(item).join('')}    ]`;
  const platform = (key: Platform): string =>
    `  ${key}: {\n    up: ${list(compiled[key].up)},\n    down: ${list(compiled[key].down)},\n  },\n`;
  return (
    `// ../${name}.ts as MikroORM 6 compiles it.\n` +
    `// Written by scripts/freeze-migrations.ts: do not edit.\n` +
    `import type { FrozenMigration } from './frozen-migration.js';\n\n` +
    `export const ${name}: FrozenMigration = {\n${platform('sqlite')}${platform('postgresql')}};\n`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Written as Prettier lays them out, so that `npm run format:check` passes on what this writes.
  const { format, resolveConfig } = await import('prettier');
  for (const [name, compiled] of await compileMigrations()) {
    const path = join(FROZEN_FOLDER, `${name}.ts`);
    const options = { ...(await resolveConfig(path)), filepath: path };
    writeFileSync(path, await format(frozenSource(name, compiled), options));
  }
}
