/**
 * The previous release's database (part 1, de66bf8), as scripts/make-upgrade-fixture.ts dumped it
 * from that release's own run: fixtures/part1.{sqlite,postgres}.sql and the raw credentials that
 * worked against it, fixtures/part1.credentials.json. See the script for how to remake them.
 *
 * Loading moves every stored time of the service's tables by (now - made_at), so the database is
 * as the release left it a moment ago: the reset link (an hour) and the session (14 days) are as
 * live as they were, whenever the test runs. Times keep their order and distances.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { MIKRO_ORM_MAJOR } from '../helpers/orm.js';

export type Backend = 'sqlite' | 'postgresql';

export interface ReleaseUser {
  id: number;
  email: string;
  is_admin: boolean;
  roles: string[];
  created_at: string;
}

/** What the release wrote on one database, with the secrets it handed out. */
export interface ReleaseData {
  made_at: string;
  users: Record<'admin' | 'editor', ReleaseUser>;
  /** `service_auth_session=…`, as the release's login set it (the admin's). */
  session_cookie: string;
  api_token: { id: string; token: string; owner: 'editor'; scopes: string[] };
  legacy_token: { id: string; token: string; owner: 'admin' };
  reset_token: { token: string; owner: 'editor' };
}

interface Credentials {
  release: string;
  passwords: Record<'admin' | 'editor', string>;
  sqlite: ReleaseData;
  postgresql: ReleaseData;
}

const FIXTURES = new URL('./fixtures/', import.meta.url);

export const RELEASE: Credentials = JSON.parse(readFileSync(new URL('part1.credentials.json', FIXTURES), 'utf8'));

/** The migrations the release had run, and the one it did not have. */
export const RELEASE_MIGRATIONS = ['Migration20261121000000_initial', 'Migration20261122000000_unique_token_hash'];
/** What the release lacks, in order: the account lifecycle, then the change feed. */
export const UPGRADE_MIGRATIONS = [
  'Migration20261123000000_account_lifecycle',
  'Migration20261124000000_change_feed',
  'Migration20261125000000_audit_log',
  'Migration20261125100000_second_factor',
  'Migration20261126000000_organizations',
  'Migration20261127000000_identities',
  'Migration20261127100000_impersonation',
];

/**
 * Loads the release's dump into the empty database at `url`; returns how far its times were moved
 * (milliseconds), for comparing with the times the release reported.
 */
export async function loadRelease(backend: Backend, url: string): Promise<number> {
  const shift = Date.now() - Date.parse(RELEASE[backend].made_at);
  if (backend === 'sqlite') await loadSqlite(url.slice('sqlite:'.length), shift);
  else await loadPostgres(url, shift);
  return shift;
}

async function loadSqlite(file: string, shift: number): Promise<void> {
  const sql = await readFile(new URL('part1.sqlite.sql', FIXTURES), 'utf8');
  const db = await openSqlite(file);
  try {
    await db.exec(sql);
    // The release's MikroORM stores a datetime as milliseconds since the epoch.
    for (const { name } of await db.all<{ name: string }>(
      dataTables("select name from sqlite_master where type = 'table'"),
    )) {
      for (const column of await db.all<{ name: string; type: string }>(`pragma table_info(${name})`)) {
        if (column.type === 'datetime')
          await db.run(
            `update ${name} set ${column.name} = ${column.name} + ? where ${column.name} is not null`,
            shift,
          );
      }
    }
  } finally {
    await db.close();
  }
}

interface SqliteFile {
  exec(sql: string): Promise<void>;
  all<T>(statement: string): Promise<T[]>;
  run(statement: string, ...params: number[]): Promise<void>;
  close(): Promise<void>;
}

/** The file, opened with the SQLite library the installed MikroORM uses: sqlite3 on 6, node:sqlite on 7. */
async function openSqlite(file: string): Promise<SqliteFile> {
  if (MIKRO_ORM_MAJOR >= 7) {
    const NODE_SQLITE = 'node:sqlite'; // Node 22.5+, as MikroORM 7 is; the project's types are Node 20's
    const { DatabaseSync } = (await import(NODE_SQLITE)) as {
      DatabaseSync: new (file: string) => {
        exec(sql: string): void;
        prepare(sql: string): { all(): unknown[]; run(...params: number[]): void };
        close(): void;
      };
    };
    const db = new DatabaseSync(file);
    return {
      exec: async (sql) => db.exec(sql),
      all: async <T>(statement: string) => db.prepare(statement).all() as T[],
      run: async (statement, ...params) => void db.prepare(statement).run(...params),
      close: async () => db.close(),
    };
  }
  const { default: sqlite3 } = await import('sqlite3');
  const db = new sqlite3.Database(file);
  const done = (resolve: () => void, reject: (error: Error) => void) => (error: Error | null) =>
    error ? reject(error) : resolve();
  return {
    exec: (sql) => new Promise((resolve, reject) => db.exec(sql, done(resolve, reject))),
    all: <T>(statement: string) =>
      new Promise<T[]>((resolve, reject) =>
        db.all<T>(statement, (error, rows) => (error ? reject(error) : resolve(rows))),
      ),
    run: (statement, ...params) => new Promise((resolve, reject) => db.run(statement, params, done(resolve, reject))),
    close: () => new Promise((resolve) => db.close(() => resolve())),
  };
}

async function loadPostgres(url: string, shift: number): Promise<void> {
  const sql = await readFile(new URL('part1.postgres.sql', FIXTURES), 'utf8');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // pg_dump's text, less its psql meta-commands: statements that one simple query runs in turn.
    await client.query(sql);
    const columns = await client.query<{ table_name: string; column_name: string }>(
      dataTables(
        "select table_name, column_name from information_schema.columns where table_schema = 'public' and data_type = 'timestamp with time zone'",
        'table_name',
      ),
    );
    for (const { table_name: table, column_name: column } of columns.rows) {
      await client.query(`update public.${table} set ${column} = ${column} + $1 * interval '1 millisecond'`, [shift]);
    }
  } finally {
    await client.end();
  }
}

/** The service's own tables; the migrations table keeps the times the release ran them at. */
function dataTables(select: string, column = 'name'): string {
  return `${select} and ${column} like 'service\\_auth\\_%' escape '\\' and ${column} <> 'service_auth_migrations'`;
}
