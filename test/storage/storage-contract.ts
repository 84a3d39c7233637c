/**
 * What storage must do, whichever database holds it. Run against SQLite and PostgreSQL
 * (test/storage/*.test.ts) so that the one set of migrations is proven on both.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import express from 'express';
import { SERVICE_AUTH_TABLES, ServiceAuth } from '../../src/index.js';
import { defineEntity, MikroORM, type Options } from '@mikro-orm/core';
import { ormOptions } from '../../src/storage/orm.js';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import { captureLogger, outboxMails, PASSWORD, resetTokenFrom, temporaryDirectory } from '../helpers/app.js';
import { databaseSchema, migrationsOf, sqliteDefaults, updateSchema } from '../helpers/orm.js';

/** The database's own account of its schema (tables, columns, indexes, keys) and of the migrations it ran. */
async function schemaOf(url: string): Promise<{ tables: { name: string }[]; migrations: string[] }> {
  const orm = await MikroORM.init(await ormOptions(url));
  try {
    const schema = await databaseSchema(orm);
    const migrations = (await migrationsOf(orm).executed()).map((m) => m.name);
    return { tables: JSON.parse(JSON.stringify(schema.getTables())), migrations };
  } finally {
    await orm.close();
  }
}

/** Every table of the database (of the current schema on PostgreSQL), sorted by name. */
async function tablesOf(url: string): Promise<string[]> {
  const orm = await MikroORM.init(await ormOptions(url));
  try {
    const connection = orm.em.getConnection() as unknown as { execute<T>(sql: string): Promise<T> };
    const sql = url.startsWith('sqlite:')
      ? "select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'"
      : 'select table_name as name from information_schema.tables where table_schema = current_schema()';
    return (await connection.execute<{ name: string }[]>(sql)).map((row) => row.name).sort();
  } finally {
    await orm.close();
  }
}

/** An application's own entity, in its own table, as its own MikroORM would define it. */
const AppNote = defineEntity({
  name: 'AppNote',
  tableName: 'app_notes',
  properties: (p) => ({ id: p.integer().primary().autoincrement(), text: p.string() }),
});

/** The application's own MikroORM on the package's database, with its own options. */
async function applicationOrm(url: string, options: Options = {}): Promise<MikroORM> {
  const driver = url.startsWith('sqlite:')
    ? sqliteDefaults(url.slice('sqlite:'.length))
    : { driver: (await import('@mikro-orm/postgresql')).PostgreSqlDriver, clientUrl: url };
  return MikroORM.init({ ...driver, entities: [AppNote], debug: false, ...options } as Options);
}

export interface StorageTarget {
  /** A URL to a fresh, empty database, and how to get rid of it afterwards. */
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

export function storageContract(target: StorageTarget): void {
  let database: { url: string; drop(): Promise<void> };
  let auth: ServiceAuth;

  before(async () => {
    database = await target.create();
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', database.url);
    auth = new ServiceAuth(app);
    auth.logger = captureLogger();
    await auth.ready;
  });

  after(async () => {
    await auth?.close();
    await database?.drop();
  });

  it('migrates a fresh database to exactly the schema the entities describe', async () => {
    const orm = await MikroORM.init(await ormOptions(database.url));
    try {
      expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).to.equal('');
      expect(await migrationsOf(orm).pending()).to.deep.equal([]);
      const executed = await migrationsOf(orm).executed();
      expect(executed.map((m) => m.name)).to.include('Migration20261121000000_initial');
    } finally {
      await orm.close();
    }
  });

  it('starts again on a migrated database without changing it', async () => {
    const before = await schemaOf(database.url);
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', database.url);
    const second = new ServiceAuth(app);
    second.logger = captureLogger();
    await second.ready;
    await second.close();
    expect(await schemaOf(database.url)).to.deep.equal(before);
    expect(before.tables.map((table) => table.name)).to.include('service_auth_users');
  });

  it('stores users with lower-cased, unique emails', async () => {
    const created = await auth.users.create({ email: '  Ada@Example.COM ', password: PASSWORD, roles: ['admin'] });
    expect(created.email).to.equal('ada@example.com');
    expect(created.id).to.be.a('number');
    expect((await auth.users.findByEmail('ADA@example.com'))?.id).to.equal(created.id);
    expect((await auth.users.findById(created.id))?.email).to.equal('ada@example.com');
    expect(await auth.users.findByEmail('nobody@example.com')).to.equal(null);
  });

  it('refuses a second user with the same email, even when both arrive at once', async () => {
    const attempts = await Promise.allSettled(
      [1, 2, 3].map(() => auth.users.create({ email: 'twin@example.com', password: PASSWORD })),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).to.have.length(1);
    for (const failed of attempts.filter((a) => a.status === 'rejected')) {
      expect((failed as PromiseRejectedResult).reason).to.include({ code: 'email_taken' });
    }
    expect((await auth.users.list()).filter((u) => u.email === 'twin@example.com')).to.have.length(1);
  });

  it('keeps timestamps as UTC instants', async () => {
    const before = Date.now();
    const user = await auth.users.create({ email: 'clock@example.com', password: PASSWORD });
    const stored = (await auth.users.findById(user.id))!;
    expect(stored.created_at.getTime()).to.be.within(before - 1000, Date.now() + 1000);
    expect(stored.toJSON().created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('links users and roles, creating roles on demand', async () => {
    const user = await auth.users.create({
      email: 'roles@example.com',
      password: PASSWORD,
      roles: ['editor', 'admin'],
    });
    expect([...user.roles]).to.deep.equal(['admin', 'editor']);
    expect([...(await auth.users.addRole(user.id, 'analyst')).roles]).to.deep.equal(['admin', 'analyst', 'editor']);
    expect([...(await auth.users.removeRole('roles@example.com', 'admin')).roles]).to.deep.equal(['analyst', 'editor']);
    expect((await auth.roles.list()).map((r) => r.name)).to.include.members(['admin', 'analyst', 'editor']);
    expect(await auth.roles.create('viewer')).to.equal(true);
    expect(await auth.roles.create('viewer')).to.equal(false);
  });

  it('changes a password so that only the new one verifies', async () => {
    const user = await auth.users.create({ email: 'change@example.com', password: PASSWORD });
    await auth.users.setPassword(user.id, 'Another-Password-77');
    expect((await auth.users.authenticate('change@example.com', 'Another-Password-77'))?.id).to.equal(user.id);
    expect(await auth.users.authenticate('change@example.com', PASSWORD)).to.equal(null);
  });

  it('stores, verifies, lists and revokes API tokens, legacy ones included', async () => {
    const user = await auth.users.create({ email: 'tokens@example.com', password: PASSWORD });
    const created = await auth.tokens.create(user.id, { name: 'ci', scopes: ['deploy:prod', 'read'] });
    const record = await auth.tokens.verify(created.token);
    expect(record).to.include({ publicId: created.id, userId: user.id });
    expect(record!.scopes).to.deep.equal(['deploy:prod', 'read']);

    const legacyRaw = 'an-old-token-from-before';
    const sha256 = createHash('sha256').update(legacyRaw).digest('hex');
    const legacy = await auth.tokens.importLegacy(user.id, { sha256, name: 'old' });
    expect((await auth.tokens.verify(legacyRaw))?.publicId).to.equal(legacy.id);

    const listed = await auth.tokens.list({ user: user.id });
    expect(listed.map((t) => [t.name, t.legacy, t.email])).to.deep.equal([
      ['ci', false, 'tokens@example.com'],
      ['old', true, 'tokens@example.com'],
    ]);
    expect((await auth.tokens.list({ legacy: true })).map((t) => t.id)).to.deep.equal([legacy.id]);

    await auth.tokens.revoke(created.id);
    expect(await auth.tokens.verify(created.token)).to.equal(null);
    expect((await auth.tokens.list({ user: user.id })).map((t) => t.id)).to.deep.equal([legacy.id]);
  });

  it('keeps the per-user token cap under concurrent creations', async () => {
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', database.url);
    app.set('SERVICE_AUTH_MAX_TOKENS_PER_USER', 2);
    const capped = new ServiceAuth(app);
    capped.logger = captureLogger();
    try {
      await capped.ready;
      const user = await capped.users.create({ email: 'cap@example.com', password: PASSWORD });
      const results = await Promise.allSettled(
        [1, 2, 3, 4].map((n) => capped.tokens.create(user.id, { name: `t${n}` })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(2);
      for (const failed of results.filter((r) => r.status === 'rejected')) {
        expect((failed as PromiseRejectedResult).reason).to.include({ code: 'token_limit' });
      }
    } finally {
      await capped.close();
    }
  });

  it('lets exactly one of two concurrent resets with one token succeed', async () => {
    const outbox = await temporaryDirectory();
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', database.url);
    app.set('SERVICE_AUTH_MAIL_OUTBOX', outbox);
    app.set('SERVICE_AUTH_RATE_LIMIT_ENABLED', false);
    const resetting = new ServiceAuth(app);
    resetting.logger = captureLogger();
    try {
      await resetting.ready;
      await resetting.users.create({ email: 'race@example.com', password: PASSWORD });
      await request(app).post('/service-auth/forgot').send({ email: 'race@example.com' }).expect(202);
      const token = resetTokenFrom((await outboxMails(outbox))[0]!);
      const results = await Promise.all(
        ['First-Racer-Password-1', 'Second-Racer-Password-2'].map((password) =>
          request(app).post('/service-auth/reset').send({ token, password }),
        ),
      );
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 400]);
    } finally {
      await resetting.close();
      await rm(outbox, { recursive: true, force: true });
    }
  });

  it('lets concurrent creations share a role none of them found', async () => {
    const users = await Promise.all(
      [1, 2, 3].map((n) =>
        auth.users.create({ email: `crowd${n}@example.com`, password: PASSWORD, roles: ['brand-new-role'] }),
      ),
    );
    for (const user of users) expect([...user.roles]).to.deep.equal(['brand-new-role']);
    expect((await auth.roles.list()).filter((role) => role.name === 'brand-new-role')).to.have.length(1);
  });

  it('imports one legacy hash once, even when two imports race', async () => {
    const user = await auth.users.create({ email: 'importer@example.com', password: PASSWORD });
    const sha256 = createHash('sha256').update('raced-legacy-token').digest('hex');
    const results = await Promise.allSettled(
      [1, 2].map((n) => auth.tokens.importLegacy(user.id, { sha256, name: `import ${n}` })),
    );
    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    expect((await auth.tokens.list({ user: user.id })).filter((token) => token.legacy)).to.have.length(1);
  });

  it('writes nothing when a user cannot be created', async () => {
    const count = (await auth.users.list()).length;
    const roles = (await auth.roles.list()).length;
    await auth.users.create({ email: 'weak@example.com', password: 'weak', roles: ['newrole'] }).catch(() => undefined);
    await auth.users.create({ email: 'not-an-email', password: PASSWORD, roles: ['newrole'] }).catch(() => undefined);
    await auth.users
      .create({ email: 'ada@example.com', password: PASSWORD, roles: ['newrole'] })
      .catch(() => undefined);
    expect((await auth.users.list()).length).to.equal(count);
    expect((await auth.roles.list()).length).to.equal(roles);
  });

  it('names every table it creates in SERVICE_AUTH_TABLES, its migrations table included', async () => {
    expect(await tablesOf(database.url)).to.deep.equal([...SERVICE_AUTH_TABLES].sort());
  });

  it("keeps every table, the audit log included, through an application's schema:update that skips SERVICE_AUTH_TABLES", async () => {
    const dropsAll = await applicationOrm(database.url);
    try {
      // Without the setting, the application's schema:update would drop every table of the package.
      const sql = await dropsAll.schema.getUpdateSchemaSQL({ wrap: false });
      for (const table of SERVICE_AUTH_TABLES)
        expect(sql).to.match(new RegExp(`drop table [^;]*\\b${table}\\b`), table);
    } finally {
      await dropsAll.close();
    }
    await auth.users.create({ email: 'audited@example.com', password: PASSWORD });
    const events = (await auth.audit.query({ limit: 1000 })).length;
    expect(events).to.be.above(0);

    // As docs/configuration.md says (ignoreRoutines: MikroORM 7 would drop the audit log's PostgreSQL function).
    const schemaGenerator = { skipTables: [...SERVICE_AUTH_TABLES], ignoreRoutines: true };
    const orm = await applicationOrm(database.url, { schemaGenerator } as Options);
    try {
      await updateSchema(orm);
      await orm.em.fork().insert(AppNote, { text: 'mine' });
      await auth.users.create({ email: 'after@example.com', password: PASSWORD }); // appends to the audit log
      expect(await tablesOf(database.url)).to.deep.equal([...SERVICE_AUTH_TABLES, 'app_notes'].sort());
      // The package's tables are still exactly what its entities describe, with their rows.
      const own = await MikroORM.init(await ormOptions(database.url));
      try {
        expect(
          (await own.schema.getUpdateSchemaSQL({ wrap: false })).replace(/drop table[^;]*\bapp_notes\b[^;]*;\s*/, ''),
        ).to.equal('');
      } finally {
        await own.close();
      }
      expect((await auth.audit.query({ limit: 1000 })).length).to.be.above(events);
      expect(await auth.users.findByEmail('audited@example.com')).to.not.equal(null);
    } finally {
      await orm.em.getConnection().execute('drop table app_notes');
      await orm.close();
    }
  });
}
