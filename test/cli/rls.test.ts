/**
 * `auth rls apply --app`: the application's tenant tables get their row-level security policy
 * (docs/row-level-security.md), printed with `--print`, applied idempotently on PostgreSQL.
 */
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import { createSchema } from '../helpers/orm.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { entities } from './fixtures/rls-entities.js';
import { runCli } from './cli-process.js';

const APP = 'test/cli/fixtures/rls-app.ts';
const rls = (args: string[]) => runCli(['auth', 'rls', 'apply', '--app', APP, ...args], { runner: 'tsx' });

describe('auth rls apply', () => {
  it("--print prints each tenant table's statements, and nothing for a table without the tenant field", async () => {
    const { code, stdout, stderr } = await rls(['--print', '--database', 'postgresql://nobody@127.0.0.1:1/none']);
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    expect(stdout).to.match(/^alter table (?:"public"\.)?"rls_cli_invoices" enable row level security;$/m);
    expect(stdout).to.match(/^alter table (?:"public"\.)?"rls_cli_invoices" force row level security;$/m);
    const condition = `("org_id" = nullif(current_setting('service_auth.org_id', true), '')::int)`;
    expect(stdout).to.match(/^create policy service_auth_tenant on \S+ using /m);
    expect(stdout).to.include(`using ${condition} with check ${condition};\n`);
    expect(stdout).not.to.include('rls_cli_countries');
  });

  it('on a database that is not PostgreSQL, says so and fails', async () => {
    const { code, stderr } = await rls(['--print', '--database', 'sqlite::memory:']);
    expect(code).to.equal(1);
    expect(stderr).to.match(/Row-level security is PostgreSQL's: the database is sqlite:/);
  });
});

describePostgres('auth rls apply', () => {
  let database: { url: string; drop(): Promise<void> };
  let orm: MikroORM;
  before(async () => {
    database = await createPostgresDatabase();
    orm = await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: database.url, entities, debug: false });
    await createSchema(orm);
  });
  after(async () => {
    await orm?.close();
    await database?.drop();
  });

  it('gives the tenant table one policy, forced, however often it runs', async () => {
    for (let run = 0; run < 2; run++) {
      const { code, stderr } = await rls(['--database', database.url]);
      expect(stderr).to.equal('');
      expect(code).to.equal(0);
    }
    const tables = await orm.em.getConnection().execute(
      `select c.relname, c.relrowsecurity, c.relforcerowsecurity,
         (select count(*)::int from pg_policy p where p.polrelid = c.oid) as policies
       from pg_class c where c.relname like 'rls_cli_%' and c.relkind = 'r' order by c.relname`,
    );
    expect(tables).to.deep.equal([
      { relname: 'rls_cli_countries', relrowsecurity: false, relforcerowsecurity: false, policies: 0 },
      { relname: 'rls_cli_invoices', relrowsecurity: true, relforcerowsecurity: true, policies: 1 },
    ]);
  });
});
