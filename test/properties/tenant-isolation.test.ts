/**
 * Tenant isolation, proven by property (CONTRACT-3 §20.1): whatever the organization roles say,
 * no rule of theirs reaches another organization's resource. For random global and organization
 * roles (tenant-rules.ts), a member of one organization, and rows of every organization:
 *
 * - in memory: on every row of another organization (or of none), and on every other
 *   organization itself, the ability in the organization decides exactly as the user's global
 *   ability does: the organization's rules neither grant nor refuse anything there;
 * - through `accessibleBy(…, { org })` and `em.find`, on SQLite and on PostgreSQL (when
 *   SERVICE_AUTH_TEST_DATABASE_URL is set): the rows selected are exactly the organization's own
 *   rows that the ability allows, for `Doc` rows and for `Organization` rows alike.
 */
import { subject } from '@casl/ability';
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import type { AppAbility } from '../../src/authorization/abilities.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { Doc, idsWhere, Org, ORGS, openTenantTables, storeDocs, tenantCase, type TenantCase } from './tenant-rules.js';

/** The regression cases fast-check found, kept as they were printed. */
const FOUND: TenantCase[] = [];

function define(t: TestApp, c: TenantCase): void {
  for (const role of c.globalRoles) t.auth.defineRole(role.name, role.rules, { includes: role.includes });
  for (const role of c.orgRoles) t.auth.defineOrgRole(role.name, role.rules, { includes: role.includes });
}

/** The ability in the case's organization, and the user's global one. */
function abilities(t: TestApp, c: TenantCase): { inOrg: AppAbility; global: AppAbility } {
  const org = ORGS[c.org - 1]!;
  return { inOrg: t.parts.abilities.abilityFor(principal(c), { org, roles: c.membership }), global: t.auth.abilityFor(c.user) };
}

const principal = (c: TenantCase) => ({ ...c.user, isAdmin: c.user.is_admin, roles: new Set(c.user.roles) as ReadonlySet<string> });

function checkInMemory(t: TestApp, c: TenantCase): void {
  define(t, c);
  const { inOrg, global } = abilities(t, c);
  for (const row of c.docs.filter((doc) => doc.org_id !== c.org)) {
    const doc = subject('Doc', { ...row });
    expect(inOrg.can(c.action, doc), `${c.action} ${JSON.stringify(row)} outside organization ${c.org}`).to.equal(global.can(c.action, doc));
  }
  for (const org of ORGS.filter((org) => org.id !== c.org)) {
    const target = subject('Organization', { ...org });
    expect(inOrg.can(c.action, target), `${c.action} organization ${org.id} from organization ${c.org}`).to.equal(global.can(c.action, target));
  }
}

describe('tenant isolation: no organization rule reaches another organization [in memory]', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.auth.close());

  it('decides on every other organization and its rows exactly as the global roles do', () => {
    fc.assert(
      fc.property(tenantCase(), (c) => checkInMemory(t, c)),
      { numRuns: 400 },
    );
  });

  it('holds for the cases found before', () => {
    for (const c of FOUND) checkInMemory(t, c);
  });
});

/** The suite through accessibleBy and the database `open` makes. */
function accessibleBySuite(open: () => Promise<{ url?: string; drop(): Promise<void> }>): void {
  let t: TestApp;
  let orm: MikroORM | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    t = await createTestApp();
    const database = await open();
    drop = database.drop;
    orm = await openTenantTables(database.url);
  });
  after(async () => {
    await orm?.close();
    await drop?.();
    await t.auth.close();
  });

  async function check(c: TenantCase): Promise<void> {
    define(t, c);
    const { inOrg } = abilities(t, c);
    await storeDocs(orm!, c.docs);
    const docs = await filterIn(t, c, 'Doc');
    const expected = c.docs.filter((row) => row.org_id === c.org && inOrg.can(c.action, subject('Doc', { ...row }))).map((row) => row.id);
    expect(await idsWhere(orm!, Doc, docs), `Doc filter ${JSON.stringify(docs)}`).to.deep.equal(expected);
    const orgs = await filterIn(t, c, 'Organization');
    const own = ORGS.filter((org) => org.id === c.org && inOrg.can(c.action, subject('Organization', { ...org }))).map((org) => org.id);
    expect(await idsWhere(orm!, Org, orgs), `Organization filter ${JSON.stringify(orgs)}`).to.deep.equal(own);
  }

  it("selects exactly the organization's own rows the ability allows: Doc and Organization rows", async () => {
    await fc.assert(
      fc.asyncProperty(tenantCase(), (c) => check(c)),
      { numRuns: 120 },
    );
  });
}

/** `auth.accessibleBy(user, action, type, { org })` for the case's user as a member of its organization. */
async function filterIn(t: TestApp, c: TenantCase, type: string): Promise<unknown> {
  return t.auth.accessibleBy(c.user, c.action, type, { org: c.org });
}

describe('tenant isolation through accessibleBy [SQLite]', () => {
  accessibleBySuite(async () => ({ drop: async () => {} }));
});

describePostgres('tenant isolation through accessibleBy', () => {
  accessibleBySuite(createPostgresDatabase);
});
