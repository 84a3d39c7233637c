/**
 * Makes the fixtures of test/storage/upgrade-contract.ts: a database as the PREVIOUS RELEASE (part
 * 1, commit de66bf8, migrations `initial` and `unique_token_hash`) leaves it, written by that
 * release's own code, dumped as SQL text for SQLite and for PostgreSQL, with the raw credentials
 * that work against it. Databases are never committed; their dumps are.
 *
 * The script imports `../src/index.js`, so it must run from a checkout of the release, not from
 * this one (it refuses a database whose migrations are not the release's):
 *
 *   fixtures="$PWD/test/storage/fixtures"        # in the root of this repository
 *   git worktree add /tmp/release-de66bf8 de66bf8
 *   cp scripts/make-upgrade-fixture.ts /tmp/release-de66bf8/scripts/
 *   cd /tmp/release-de66bf8 && npm ci
 *   SERVICE_AUTH_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test \
 *     npx tsx scripts/make-upgrade-fixture.ts "$fixtures"
 *   cd - && git worktree remove --force /tmp/release-de66bf8
 *
 * It needs the `sqlite3` and `pg_dump` programs (a pg_dump no older than the server). What it
 * writes: part1.sqlite.sql (`sqlite3 .dump`), part1.postgres.sql (`pg_dump --inserts`, its psql
 * meta-commands removed so that one simple query can load it) and part1.credentials.json.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { ServiceAuth, type Mail } from '../src/index.js';
import { ormOptions } from '../src/storage/orm.js';

/** What part 1 had run: anything else means this is not the release's code. */
const RELEASE_MIGRATIONS = ['Migration20261121000000_initial', 'Migration20261122000000_unique_token_hash'];

/** Chosen here, not drawn: the same on both databases. */
const PASSWORDS = { admin: 'Release-Admin-Password-1', editor: 'Release-Editor-Password-2' };
const LEGACY_TOKEN = 'legacy-token-issued-by-the-old-system-0123456789';

interface Made {
  /** When the data was written: the test moves every stored time by (now - made_at). */
  made_at: string;
  users: Record<
    'admin' | 'editor',
    { id: number; email: string; is_admin: boolean; roles: string[]; created_at: string }
  >;
  /** `name=value`, as the release's login set it. */
  session_cookie: string;
  api_token: { id: string; token: string; owner: 'editor'; scopes: string[] };
  legacy_token: { id: string; token: string; owner: 'admin' };
  /** The token of the mailed reset link, not used yet. */
  reset_token: { token: string; owner: 'editor' };
}

/** The release writes the data through its own API and a real login and reset request over HTTP. */
async function populate(databaseUrl: string): Promise<Made> {
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', databaseUrl);
  app.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', false);
  const auth = new ServiceAuth(app);
  const mails: Mail[] = [];
  auth.mail = {
    async send(mail) {
      mails.push(mail);
    },
  };
  app.use(auth.errorHandler);
  await auth.ready;
  try {
    const admin = await auth.users.create({
      email: 'admin@example.com',
      password: PASSWORDS.admin,
      isAdmin: true,
      roles: ['admin'],
    });
    const editor = await auth.users.create({
      email: 'editor@example.com',
      password: PASSWORDS.editor,
      roles: ['editor', 'analyst'],
    });
    const created = await auth.tokens.create(editor.id, { name: 'deploy bot', scopes: ['deploy:prod', 'read'] });
    const sha256 = createHash('sha256').update(LEGACY_TOKEN).digest('hex');
    const legacy = await auth.tokens.importLegacy(admin.id, { sha256, name: 'from the old system' });

    const login = await request(app)
      .post('/service-auth/login')
      .send({ email: admin.email, password: PASSWORDS.admin })
      .expect(200);
    const cookie = ((login.headers['set-cookie'] as unknown as string[] | undefined) ?? []).find((c) =>
      c.startsWith('service_auth_session='),
    );
    if (!cookie) throw new Error('the login set no session cookie');

    await request(app).post('/service-auth/forgot').send({ email: editor.email }).expect(202);
    // The release mails after answering: wait for the mail rather than for a fixed time.
    for (let attempt = 0; mails.length === 0; attempt++) {
      if (attempt > 200) throw new Error('no reset mail arrived');
      await new Promise((done) => setTimeout(done, 20));
    }
    const reset = /reset\?token=([A-Za-z0-9_-]+)/.exec(mails[0]!.text)?.[1];
    if (!reset) throw new Error(`no reset link in: ${mails[0]!.text}`);

    const user = (u: typeof admin) => ({
      id: u.id,
      email: u.email,
      is_admin: u.is_admin,
      roles: [...u.roles],
      created_at: u.created_at.toISOString(),
    });
    return {
      made_at: new Date().toISOString(),
      users: { admin: user(admin), editor: user(editor) },
      session_cookie: cookie.split(';')[0]!,
      api_token: { id: created.id, token: created.token, owner: 'editor', scopes: created.scopes },
      legacy_token: { id: legacy.id, token: LEGACY_TOKEN, owner: 'admin' },
      reset_token: { token: reset, owner: 'editor' },
    };
  } finally {
    await auth.close();
  }
}

async function assertRelease(databaseUrl: string): Promise<void> {
  const orm = await MikroORM.init(await ormOptions(databaseUrl));
  try {
    const executed = (await orm.getMigrator().getExecutedMigrations()).map((m) => m.name);
    if (JSON.stringify(executed) !== JSON.stringify(RELEASE_MIGRATIONS)) {
      throw new Error(
        `not the previous release: it ran ${executed.join(', ')}; run this script from a checkout of de66bf8`,
      );
    }
  } finally {
    await orm.close();
  }
}

async function sqliteFixture(): Promise<{ sql: string; made: Made }> {
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-fixture-'));
  try {
    const file = join(dir, 'auth.sqlite');
    const made = await populate(`sqlite:${file}`);
    await assertRelease(`sqlite:${file}`);
    return { sql: execFileSync('sqlite3', [file, '.dump'], { encoding: 'utf8' }), made };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgresFixture(serverUrl: string): Promise<{ sql: string; made: Made }> {
  const name = `service_auth_fixture_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const made = await populate(url.toString());
    await assertRelease(url.toString());
    const dump = execFileSync('pg_dump', ['--inserts', '--no-owner', '--no-privileges', url.toString()], {
      encoding: 'utf8',
    });
    // `\restrict` and `\unrestrict` are for psql; the test loads the dump as one simple query.
    return {
      sql: dump
        .split('\n')
        .filter((line) => !line.startsWith('\\'))
        .join('\n'),
      made,
    };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const [target] = process.argv.slice(2);
  const serverUrl = process.env['SERVICE_AUTH_TEST_DATABASE_URL'];
  if (!target || !serverUrl) {
    throw new Error(
      'usage: SERVICE_AUTH_TEST_DATABASE_URL=postgresql://… tsx scripts/make-upgrade-fixture.ts <fixtures directory>',
    );
  }
  const release = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const sqlite = await sqliteFixture();
  const postgres = await postgresFixture(serverUrl);
  const header = (kind: string) =>
    `-- A part-1 database (${kind}) written by service-auth ${release}: scripts/make-upgrade-fixture.ts\n`;
  await writeFile(join(resolve(target), 'part1.sqlite.sql'), header('SQLite') + sqlite.sql);
  await writeFile(join(resolve(target), 'part1.postgres.sql'), header('PostgreSQL') + postgres.sql);
  const credentials = { release, passwords: PASSWORDS, sqlite: sqlite.made, postgresql: postgres.made };
  await writeFile(join(resolve(target), 'part1.credentials.json'), `${JSON.stringify(credentials, null, 2)}\n`);
  console.log(`fixtures of ${release} written to ${resolve(target)}`);
}

await main();
