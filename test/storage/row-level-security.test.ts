/**
 * SERVICE_AUTH_TENANT_RLS: PostgreSQL row-level security on the tenant tables of the ORM given to
 * `auth.enforce`. Raw SQL through req.em's own transaction (its knex transaction,
 * `getTransactionContext()`) sees no other organization's rows and cannot write into another;
 * req.em's reads and flushes set the organization themselves; start-up refuses a role the
 * policies would not bind. On the real PostgreSQL, in a database of its own and with roles named
 * for this run (other suites use the same server).
 */
import { randomBytes } from 'node:crypto';
import { defineEntity, MikroORM, type EntityManager } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import fc from 'fast-check';
import request from 'supertest';
import { ConfigError } from '../../src/config/error.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { createSchema, MIKRO_ORM_MAJOR, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;
const RlsInvoice = defineEntity({
  name: 'RlsInvoice',
  tableName: 'rls_invoices',
  properties: { id: p.integer().primary(), org_id: p.integer(), title: p.string() },
});
const RlsCountry = defineEntity({
  name: 'RlsCountry',
  tableName: 'rls_countries',
  properties: { id: p.integer().primary(), name: p.string() },
});
const entities = [RlsInvoice, RlsCountry];

type Row = { id: number; org_id: number };

/**
 * Rows through the transaction req.em's transaction runs in (knex's on MikroORM 6, Kysely's on 7):
 * SQL req.em itself would refuse. `?` placeholders.
 */
async function rawInTransaction<T>(em: EntityManager, sql: string, bindings: unknown[] = []): Promise<T[]> {
  return (await em.transactional(async (inner) => {
    const trx = inner.getTransactionContext<SqlTransaction>()!;
    if (MIKRO_ORM_MAJOR < 7) return ((await trx.raw!(sql, bindings)) as { rows: T[] }).rows;
    let n = 0;
    const numbered = sql.replace(/\?/g, () => `$${++n}`); // PostgreSQL's, as Kysely hands it to pg
    const query = { kind: 'RawNode', sqlFragments: [numbered], parameters: [] };
    return ((await trx.executeQuery!({ sql: numbered, parameters: bindings, query })) as { rows: T[] }).rows;
  })) as T[];
}

interface SqlTransaction {
  raw?(sql: string, bindings: unknown[]): Promise<unknown>;
  executeQuery?(query: object): Promise<unknown>;
}

describe('SERVICE_AUTH_TENANT_RLS', () => {
  it('is a boolean: another value is a ConfigError naming the key', async () => {
    const error = await createTestApp({ SERVICE_AUTH_TENANT_RLS: 'maybe' }).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).to.be.instanceOf(ConfigError).with.property('key', 'SERVICE_AUTH_TENANT_RLS');
  });

  it('with an ORM on SQLite, auth.enforce throws a ConfigError naming the key', async () => {
    const t = await createTestApp({ SERVICE_AUTH_TENANT_RLS: true });
    const orm = await MikroORM.init({ ...sqliteDefaults(':memory:'), entities, debug: false });
    try {
      expect(() => t.auth.enforce(orm)).to.throw(ConfigError, /SERVICE_AUTH_TENANT_RLS.*PostgreSQL's.*Sqlite/);
    } finally {
      await orm.close();
      await t.auth.close();
    }
  });
});

describePostgres('row-level security on the tenant tables', () => {
  const suffix = randomBytes(4).toString('hex');
  const role = `sa_rls_app_${suffix}`;
  const ownerRole = `sa_rls_owner_${suffix}`;
  let database: { url: string; drop(): Promise<void> };
  let owner: MikroORM;
  let app: MikroORM;
  let t: TestApp;
  let orgs: [number, number, number];
  let me: { id: number; email: string; roles: string[] };
  let token: string;

  const sql = (query: string, params: unknown[] = []) => owner.em.getConnection().execute(query, params);
  const urlAs = (name: string): string => {
    const url = new URL(database.url);
    url.username = name;
    url.password = 'rls-test';
    return url.toString();
  };
  const open = (name: string) =>
    MikroORM.init({ driver: PostgreSqlDriver, clientUrl: urlAs(name), entities, debug: false });
  /** The tables' rows as the (superuser) owner sees them: every organization's. */
  const allRows = async (): Promise<Row[]> => (await sql('select id, org_id from rls_invoices order by id')) as Row[];
  const seed = async (rows: Row[]): Promise<void> => {
    await sql('delete from rls_invoices');
    for (const row of rows)
      await sql('insert into rls_invoices (id, org_id, title) values (?, ?, ?)', [row.id, row.org_id, `#${row.id}`]);
  };

  before(async () => {
    database = await createPostgresDatabase();
    owner = await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: database.url, entities, debug: false });
    await createSchema(owner);
    t = await createTestApp({ SERVICE_AUTH_TENANT_RLS: true }, (http, auth) => {
      const inOrg = auth.orgRequired();
      http.get('/orgs/:org/invoices', inOrg, async (req, res) => {
        res.json({ ids: (await req.em.find(RlsInvoice, {}, { orderBy: { id: 'asc' } })).map((row) => row.id) });
      });
      http.get('/orgs/:org/invoices/raw', inOrg, async (req, res) => {
        res.json({
          ids: (await rawInTransaction<Row>(req.em, 'select id from rls_invoices order by id')).map((row) => row.id),
        });
      });
    });
    // Twice: the statements are idempotent.
    await t.auth.applyTenantPolicies(owner);
    expect(await t.auth.applyTenantPolicies(owner)).to.deep.equal(t.auth.tenantPolicies(owner));
    expect(await sql("select count(*)::int as n from pg_policy where polname = 'service_auth_tenant'")).to.deep.equal([
      { n: 1 },
    ]);
    await sql(`create role ${role} login password 'rls-test'`);
    await sql(`grant select, insert, update, delete on all tables in schema public to ${role}`);
    app = await open(role);
    await t.auth.enforce(app, { public: [RlsCountry] });
    t.auth.defineOrgRole('owner', []);
    t.auth.defineOrgRole('clerk', [{ action: 'manage', subject: 'RlsInvoice' }]);
    t.auth.defineRole('auditor', [{ action: 'read', subject: 'RlsInvoice' }]);
    const boss = await t.auth.users.create({ email: 'boss@example.com', password: PASSWORD });
    const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const made = [];
    for (const slug of ['rls-a', 'rls-b', 'rls-c'])
      made.push(await t.auth.orgs.create({ name: slug, slug, owner: boss.id }));
    for (const org of made) await t.auth.orgs.addMember(org.id, user.id, ['clerk']);
    orgs = [made[0]!.id, made[1]!.id, made[2]!.id];
    me = { id: user.id, email: user.email, roles: ['auditor'] };
    token = (await t.auth.tokens.create(user, { name: 'rls' })).token;
  });
  after(async () => {
    await app?.close();
    await owner?.close();
    await t?.auth.close();
    await database?.drop();
    const admin = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: process.env['SERVICE_AUTH_TEST_DATABASE_URL'],
      entities,
      discovery: { warnWhenNoEntities: false },
      debug: false,
    });
    try {
      for (const name of [role, ownerRole]) await admin.em.getConnection().execute(`drop role if exists ${name}`);
    } finally {
      await admin.close();
    }
  });

  it("raw SQL in req.em's transaction sees only the organization's rows", async () => {
    const [a, b] = orgs;
    await seed([
      { id: 1, org_id: a },
      { id: 2, org_id: b },
      { id: 3, org_id: a },
    ]);
    const em = await t.auth.em(me, { org: a });
    expect(await rawInTransaction<Row>(em, 'select id, org_id from rls_invoices order by id')).to.deep.equal([
      { id: 1, org_id: a },
      { id: 3, org_id: a },
    ]);
    expect(await rawInTransaction<Row>(em, 'select id from rls_invoices where id = 2')).to.deep.equal([]);
    // And req.em's own reads, outside a transaction, in one that sets the organization.
    expect((await em.find(RlsInvoice, {}, { orderBy: { id: 'asc' } })).map((row) => row.id)).to.deep.equal([1, 3]);
  });

  it("over HTTP, req.em and raw SQL in its transaction see the URL organization's rows only", async () => {
    const [a, b] = orgs;
    await seed([
      { id: 1, org_id: a },
      { id: 2, org_id: b },
      { id: 3, org_id: b },
    ]);
    const get = async (path: string) =>
      (await request(t.app).get(path).set('Authorization', `Bearer ${token}`).expect(200)).body as { ids: number[] };
    expect(await get('/orgs/rls-a/invoices')).to.deep.equal({ ids: [1] });
    expect(await get('/orgs/rls-a/invoices/raw')).to.deep.equal({ ids: [1] });
    expect(await get('/orgs/rls-b/invoices/raw')).to.deep.equal({ ids: [2, 3] });
  });

  it("raw SQL in req.em's transaction cannot write another organization's rows", async () => {
    const [a, b] = orgs;
    await seed([
      { id: 1, org_id: a },
      { id: 2, org_id: b },
    ]);
    const em = await t.auth.em(me, { org: a });
    const refused = (query: string) =>
      rawInTransaction(em, query).then(
        () => expect.fail(`${query}: written`),
        (error: Error) => error.message,
      );
    expect(await refused(`insert into rls_invoices (id, org_id, title) values (9, ${b}, 'x')`)).to.match(
      /row-level security/,
    );
    expect(await refused(`update rls_invoices set org_id = ${b} where id = 1`)).to.match(/row-level security/);
    // Rows the policy hides are not there to update or delete.
    expect(await rawInTransaction(em, "update rls_invoices set title = 'y' where id = 2 returning id")).to.deep.equal(
      [],
    );
    expect(await rawInTransaction(em, 'delete from rls_invoices where id = 2 returning id')).to.deep.equal([]);
    expect(await allRows()).to.deep.equal([
      { id: 1, org_id: a },
      { id: 2, org_id: b },
    ]);
    expect(await sql('select title from rls_invoices where id = 2')).to.deep.equal([{ title: '#2' }]);
  });

  it("req.em's flush writes in its organization, through the policy's check", async () => {
    const [a] = orgs;
    await seed([]);
    const em = await t.auth.em(me, { org: a });
    em.create(RlsInvoice, { id: 5, title: 'new' } as never);
    await em.flush();
    expect(await allRows()).to.deep.equal([{ id: 5, org_id: a }]);
  });

  it('outside an organization a tenant table shows nothing, to req.em and to the application', async () => {
    const [a, b] = orgs;
    await seed([
      { id: 1, org_id: a },
      { id: 2, org_id: b },
    ]);
    // The global role may read every invoice; the policy, without an organization set, shows none.
    expect(await t.auth.em(me).find(RlsInvoice, {})).to.deep.equal([]);
    expect(await app.em.fork().find(RlsInvoice, {})).to.deep.equal([]);
    expect(await app.em.fork().getConnection().execute('select id from rls_invoices')).to.deep.equal([]);
    // A table without the tenant field has no policy.
    await sql("insert into rls_countries (id, name) values (1, 'France') on conflict do nothing");
    expect((await t.auth.em(me).find(RlsCountry, {})).map((row) => row.name)).to.deep.equal(['France']);
  });

  it("raw selects in req.em's transaction return exactly the organization's rows (property)", async () => {
    const rowsOf = fc.uniqueArray(
      fc.record({ id: fc.integer({ min: 1, max: 60 }), org: fc.integer({ min: 0, max: 2 }) }),
      {
        selector: (row) => row.id,
        maxLength: 12,
      },
    );
    await fc.assert(
      fc.asyncProperty(rowsOf, fc.integer({ min: 0, max: 2 }), async (generated, asked) => {
        const rows = generated.map(({ id, org }) => ({ id, org_id: orgs[org]! })).sort((x, y) => x.id - y.id);
        await seed(rows);
        const em = await t.auth.em(me, { org: orgs[asked]! });
        const expected = rows.filter((row) => row.org_id === orgs[asked]);
        expect(await rawInTransaction<Row>(em, 'select id, org_id from rls_invoices order by id')).to.deep.equal(
          expected,
        );
        expect(await rawInTransaction<Row>(em, 'select count(*)::int as n from rls_invoices')).to.deep.equal([
          { n: expected.length },
        ]);
      }),
      { numRuns: 30 },
    );
  });

  describe('start-up refuses a role the policies would not bind', () => {
    const refusal = async (orm: MikroORM): Promise<string> => {
      const other = await createTestApp({ SERVICE_AUTH_TENANT_RLS: true });
      try {
        return await other.auth.enforce(orm).then(
          () => expect.fail('started'),
          (error: Error) => error.message,
        );
      } finally {
        await other.auth.close();
      }
    };

    it('a superuser', async () => {
      expect(await refusal(owner)).to.match(
        /SERVICE_AUTH_TENANT_RLS is on, but the database role "\w+" is a superuser.*CREATE ROLE/,
      );
    });

    it('a role with BYPASSRLS', async () => {
      await sql(`alter role ${role} bypassrls`);
      const bypassing = await open(role);
      try {
        expect(await refusal(bypassing)).to.match(new RegExp(`role "${role}" has BYPASSRLS`));
      } finally {
        await bypassing.close();
        await sql(`alter role ${role} nobypassrls`);
      }
    });

    it("the tables' owner where a table does not force row-level security; a table without the policy", async () => {
      await sql(`create role ${ownerRole} login password 'rls-test'`);
      await sql(`alter table rls_invoices owner to ${ownerRole}`);
      const owning = await open(ownerRole);
      try {
        // Forced: the owner is bound too, and may start.
        const started = await createTestApp({ SERVICE_AUTH_TENANT_RLS: true });
        await started.auth.enforce(owning);
        await started.auth.close();
        await sql('alter table rls_invoices no force row level security');
        expect(await refusal(owning)).to.match(
          new RegExp(`role "${ownerRole}" owns \\S+, which does not force row-level security`),
        );
        await sql('drop policy service_auth_tenant on rls_invoices');
        const fix = 'run `auth rls apply --app <module>`, auth.applyTenantPolicies(orm)';
        expect(await refusal(app)).to.include(`the table "public"."rls_invoices" has no tenant policy (${fix}`);
      } finally {
        await owning.close();
        await sql(`alter table rls_invoices owner to current_user`);
        await t.auth.applyTenantPolicies(owner);
      }
    });
  });
});
