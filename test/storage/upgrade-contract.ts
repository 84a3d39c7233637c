/**
 * An upgrade keeps what the previous release stored: a database written by part 1 (de66bf8, its
 * own code, see upgrade-fixture.ts and scripts/make-upgrade-fixture.ts), opened by this package
 * with its migrations on, still logs its users in and accepts their tokens, session and reset link.
 * Run on SQLite and PostgreSQL (upgrade-*.test.ts), like storage-contract.ts.
 *
 * The fixtures (test/storage/fixtures/part1.*) were made once by running the release itself,
 * commit de66bf8, through scripts/make-upgrade-fixture.ts: its own `new ServiceAuth(app)`,
 * `users.create` (an admin; an editor with two roles), `tokens.create` (PBKDF2, with scopes),
 * `tokens.importLegacy` (a SHA-256 token), a login over HTTP (the session) and a forgot request
 * (the pending reset link), on SQLite and on PostgreSQL, then `sqlite3 .dump` and `pg_dump
 * --inserts`. A release does not change, so neither should they; to remake them anyway:
 *
 *   fixtures="$PWD/test/storage/fixtures"        # in the root of this repository
 *   git worktree add /tmp/release-de66bf8 de66bf8
 *   cp scripts/make-upgrade-fixture.ts /tmp/release-de66bf8/scripts/
 *   cd /tmp/release-de66bf8 && npm ci
 *   SERVICE_AUTH_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test \
 *     npx tsx scripts/make-upgrade-fixture.ts "$fixtures"
 *   cd - && git worktree remove --force /tmp/release-de66bf8
 *
 * The app runs with SERVICE_AUTH_EMAIL_CONFIRMATION on, so that a login proves the migration
 * confirmed the existing users: an unconfirmed address would be a 403 `email_unconfirmed`.
 */
import { createHash } from 'node:crypto';
import { MikroORM } from '@mikro-orm/core';
import { expect } from 'chai';
import request from 'supertest';
import { ApiToken, Session } from '../../src/storage/entities/index.js';
import { ormOptions } from '../../src/storage/orm.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { databaseSchema, migrationsOf, MIKRO_ORM_MAJOR } from '../helpers/orm.js';
import {
  loadRelease,
  RELEASE,
  RELEASE_MIGRATIONS,
  UPGRADE_MIGRATIONS,
  type Backend,
  type ReleaseUser,
} from './upgrade-fixture.js';

export interface UpgradeTarget {
  backend: Backend;
  /** A URL to a fresh, empty database, and how to get rid of it afterwards. */
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

const SETTINGS = { SERVICE_AUTH_EMAIL_CONFIRMATION: true, SERVICE_AUTH_RATE_LIMIT_ENABLED: false };
const NEW_PASSWORD = 'After-The-Upgrade-Reset-3';

/** The migrations table as it is (name and when each ran), and the tables with their columns. */
async function stateOf(
  url: string,
): Promise<{ migrations: { name: string; executed_at: Date }[]; pending: string[]; tables: Record<string, string[]> }> {
  const orm = await MikroORM.init(await ormOptions(url));
  try {
    const schema = await databaseSchema(orm);
    const tables = Object.fromEntries(
      schema.getTables().map((table) => [
        table.name,
        table
          .getColumns()
          .map((column) => column.name)
          .sort(),
      ]),
    );
    return {
      migrations: (await migrationsOf(orm).executed()).map(({ name, executed_at }) => ({ name, executed_at })),
      pending: (await migrationsOf(orm).pending()).map((m) => m.name),
      tables,
    };
  } finally {
    await orm.close();
  }
}

export function upgradeContract(target: UpgradeTarget): void {
  const made = RELEASE[target.backend];
  const passwords = RELEASE.passwords;
  let database: { url: string; drop(): Promise<void> };
  let shift: number;
  let released: Awaited<ReturnType<typeof stateOf>>;
  let t: TestApp;

  /** The user as the release reported it, its times moved as the database's were. */
  const expectSameUser = (user: Record<string, unknown>, release: ReleaseUser) => {
    expect(user).to.deep.include({
      id: release.id,
      email: release.email,
      is_admin: release.is_admin,
      roles: release.roles,
    });
    expect(Date.parse(String(user['created_at']))).to.equal(Date.parse(release.created_at) + shift);
    expect(user).to.deep.include({ email_confirmed: true, disabled: false });
  };

  before(async () => {
    database = await target.create();
    shift = await loadRelease(target.backend, database.url);
    released = await stateOf(database.url);
    t = await createTestApp({ ...SETTINGS, SERVICE_AUTH_DATABASE_URL: database.url });
  });

  after(async () => {
    await t?.auth.close();
    await database?.drop();
  });

  it('finds the release’s migrations run and only the later ones pending, and runs them', async () => {
    expect(released.migrations.map((m) => m.name)).to.deep.equal(RELEASE_MIGRATIONS);
    expect(released.pending).to.deep.equal(UPGRADE_MIGRATIONS);
    const upgraded = await stateOf(database.url);
    expect(upgraded.migrations.map((m) => m.name)).to.deep.equal([...RELEASE_MIGRATIONS, ...UPGRADE_MIGRATIONS]);
    expect(upgraded.migrations.slice(0, 2)).to.deep.equal(released.migrations);
    expect(upgraded.pending).to.deep.equal([]);
  });

  it('leaves exactly the schema the entities describe', async () => {
    const orm = await MikroORM.init(await ormOptions(database.url));
    try {
      expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).to.equal('');
    } finally {
      await orm.close();
    }
  });

  it('accepts the release’s session cookie, listed under the first 16 hex digits of its hash', async () => {
    const secret = made.session_cookie.slice(made.session_cookie.indexOf('=') + 1);
    const hash = createHash('sha256').update(secret).digest('hex');
    // Last seen when it was made: part 1 did not keep track, and the migration says so. Read from
    // the table before a request uses the cookie: a use 30 s or more after the fixture was made (a
    // slow machine) is noted, and rightly moves the time listed.
    const row = await (await t.parts.storage.em()).fork().findOneOrFail(Session, { idHash: hash });
    expect(row.lastSeenAt.getTime()).to.equal(row.createdAt.getTime());

    const me = await request(t.app).get('/service-auth/me').set('Cookie', made.session_cookie).expect(200);
    expectSameUser(me.body.user, made.users.admin);

    const listed = await request(t.app)
      .get('/service-auth/api/sessions')
      .set('Cookie', made.session_cookie)
      .expect(200);
    const publicId = hash.slice(0, 16);
    expect(listed.body.sessions).to.have.length(1);
    const [session] = listed.body.sessions;
    expect(session).to.include({ id: publicId, current: true, user_agent: null });
    expect(session.id).to.match(/^[0-9a-f]{16}$/);
  });

  it('accepts the release’s API token with its scopes, and the imported legacy token', async () => {
    const token = await request(t.app)
      .get('/service-auth/me')
      .set('Authorization', `Bearer ${made.api_token.token}`)
      .expect(200);
    expectSameUser(token.body.user, made.users.editor);
    expect((await t.auth.tokens.verify(made.api_token.token))?.scopes).to.deep.equal(made.api_token.scopes);

    const legacy = await request(t.app)
      .get('/service-auth/me')
      .set('Authorization', `Bearer ${made.legacy_token.token}`)
      .expect(200);
    expectSameUser(legacy.body.user, made.users.admin);
    const listed = await request(t.app)
      .get('/service-auth/api/tokens')
      .set('Authorization', `Bearer ${made.legacy_token.token}`)
      .expect(200);
    expect(listed.body.tokens.map((x: { id: string; legacy: boolean }) => [x.id, x.legacy])).to.deep.equal([
      [made.legacy_token.id, true],
    ]);
  });

  it('logs each user in with the password they had, confirmed and with their roles', async () => {
    for (const who of ['admin', 'editor'] as const) {
      const login = await request(t.app)
        .post('/service-auth/login')
        .send({ email: made.users[who].email, password: passwords[who] })
        .expect(200);
      expectSameUser(login.body.user, made.users[who]);
    }
  });

  it('completes the reset link mailed before the upgrade, once', async () => {
    const editor = made.users.editor;
    await request(t.app)
      .post('/service-auth/reset')
      .send({ token: made.reset_token.token, password: NEW_PASSWORD })
      .expect(200);
    await request(t.app)
      .post('/service-auth/reset')
      .send({ token: made.reset_token.token, password: 'Yet-Another-Password-4' })
      .expect(400);
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: editor.email, password: passwords.editor })
      .expect(401);
    const login = await request(t.app)
      .post('/service-auth/login')
      .send({ email: editor.email, password: NEW_PASSWORD })
      .expect(200);
    expectSameUser(login.body.user, editor);
  });

  it('binds none of the release’s tokens to an organization, and lets its users make one and join it', async () => {
    const tokens = await (await t.parts.storage.em()).fork().find(ApiToken, {});
    expect(tokens.map((token) => token.org ?? null))
      .to.deep.equal(tokens.map(() => null))
      .and.to.have.length(2);
    t.auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
    t.auth.defineOrgRole('member', [{ action: 'read', subject: 'Organization' }]);
    const org = await t.auth.orgs.create({ name: 'After the upgrade', owner: made.users.admin.email });
    await t.auth.orgs.addMember(org.slug, made.users.editor.email, ['member']);
    expect((await t.auth.orgs.members(org.id)).map((m) => [m.user_id, m.roles])).to.deep.equal([
      [made.users.admin.id, ['owner']],
      [made.users.editor.id, ['member']],
    ]);
    // The admin's legacy token (the editor's went with the reset above) still works, unbound.
    await request(t.app).get('/service-auth/me').set('Authorization', `Bearer ${made.legacy_token.token}`).expect(200);
  });

  it('starts again on the upgraded database without migrating again', async () => {
    const upgraded = await stateOf(database.url);
    const second = await createTestApp({ ...SETTINGS, SERVICE_AUTH_DATABASE_URL: database.url });
    try {
      await request(second.app).get('/service-auth/me').set('Cookie', made.session_cookie).expect(200);
    } finally {
      await second.auth.close();
    }
    expect(await stateOf(database.url)).to.deep.equal(upgraded);
  });

  it('rolls back to the release’s tables, sessions kept, and forward again', async () => {
    await t.auth.close();
    const orm = await MikroORM.init(await ormOptions(database.url));
    try {
      // The release's state: MikroORM 6's `to` is the last migration undone, 7's the first one kept.
      const to = MIKRO_ORM_MAJOR >= 7 ? RELEASE_MIGRATIONS.at(-1)! : UPGRADE_MIGRATIONS[0]!;
      await orm.migrator.down({ to });
    } finally {
      await orm.close();
    }
    const down = await stateOf(database.url);
    expect(down.tables).to.deep.equal(released.tables);
    expect(down.pending).to.deep.equal(UPGRADE_MIGRATIONS);

    t = await createTestApp({ ...SETTINGS, SERVICE_AUTH_DATABASE_URL: database.url });
    const me = await request(t.app).get('/service-auth/me').set('Cookie', made.session_cookie).expect(200);
    expectSameUser(me.body.user, made.users.admin);
  });
}
