/**
 * The three leaks of CONTRACT-4's introduction, each a line an application forgets, written as the
 * new user wrote them but with `req.em` (§29): a guard without `load` then `findOne` by id; a PATCH
 * that points an invoice at another tenant's project while only the body's fields are checked; a
 * list route without `accessibleBy`. Over HTTP, on the application's own MikroORM (SQLite in memory).
 */
import { defineEntity, MikroORM, type InferEntity } from '@mikro-orm/core';
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import type { ServiceAuth } from '../../src/index.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { createSchema, sqliteDefaults } from '../helpers/orm.js';

const p = defineEntity.properties;
const InvoiceProject = defineEntity({
  name: 'InvoiceProject',
  tableName: 'careless_projects',
  properties: { id: p.integer().primary(), org_id: p.integer(), name: p.string() },
});
const Invoice = defineEntity({
  name: 'Invoice',
  tableName: 'careless_invoices',
  properties: {
    id: p.integer().primary(),
    org_id: p.integer(),
    project: () => p.manyToOne(InvoiceProject).nullable(),
    body: p.string(),
    total: p.integer(),
  },
});
type Invoice = InferEntity<typeof Invoice>;

function routes(app: Express, auth: ServiceAuth): void {
  auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
  auth.defineOrgRole('viewer', [{ action: 'read', subject: ['Organization', 'Invoice', 'InvoiceProject'] }]);
  auth.defineOrgRole('clerk', {
    includes: ['viewer'],
    rules: [{ action: 'update', subject: 'Invoice', fields: ['body', 'project'] }],
  });
  const json = express.json();
  const inOrg = auth.orgRequired();
  // Leak 1: the guard checks the URL's subject (it belongs to the organization), not the invoice.
  app.get('/orgs/:org/invoices/:id', inOrg, auth.require({ action: 'read', subject: 'Invoice' }), async (req, res) => {
    const invoice = await req.em.findOne(Invoice, { id: Number(req.params['id']) });
    res.json({ invoice });
  });
  app.get('/orgs/:org/invoices/:id/or-fail', inOrg, async (req, res) => {
    res.json({ invoice: await req.em.findOneOrFail(Invoice, Number(req.params['id'])) });
  });
  // Leak 2: only the body's fields are checked, not where `project` points.
  const updateBody = auth.require({ action: 'update', subject: 'Invoice', fields: 'body' });
  app.patch('/orgs/:org/invoices/:id', inOrg, json, updateBody, async (req, res) => {
    const invoice = await req.em.findOneOrFail(Invoice, Number(req.params['id']));
    req.em.assign(invoice, req.body as Partial<Invoice>);
    await req.em.flush();
    res.json({ invoice });
  });
  // No guard beyond the organization at all: the flush decides.
  app.put('/orgs/:org/invoices/:id', inOrg, json, async (req, res) => {
    const invoice = req.em.getReference(Invoice, Number(req.params['id']));
    req.em.assign(invoice, req.body as Partial<Invoice>);
    await req.em.flush();
    res.json({ ok: true });
  });
  // Leak 3: a list without accessibleBy.
  app.get('/orgs/:org/invoices', inOrg, async (req, res) => {
    res.json({ invoices: (await req.em.find(Invoice, {}, { orderBy: { id: 'asc' } })).map((invoice) => invoice.id) });
  });
  app.get('/raw', auth.loginRequired, async (req, res) => {
    res.json({
      rows: await (req.em as unknown as { execute(sql: string): Promise<unknown> }).execute(
        'select * from careless_invoices',
      ),
    });
  });
}

describe('the careless handlers of CONTRACT-4, with req.em', () => {
  let t: TestApp;
  let orm: MikroORM;
  const tokens: Record<string, string> = {};
  let acme: number;
  let globex: number;

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, routes);
    orm = await MikroORM.init({
      ...sqliteDefaults(':memory:'),
      entities: [Invoice, InvoiceProject],
      debug: false,
    });
    await createSchema(orm);
    t.auth.enforce(orm);
    const users: Record<string, number> = {};
    for (const name of ['olga', 'vic', 'cleo', 'gina']) {
      users[name] = (await t.auth.users.create({ email: `${name}@example.com`, password: PASSWORD })).id;
    }
    acme = (await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: users['olga']! })).id;
    globex = (await t.auth.orgs.create({ name: 'Globex', slug: 'globex', owner: users['gina']! })).id;
    await t.auth.orgs.addMember(acme, users['vic']!, ['viewer']);
    await t.auth.orgs.addMember(acme, users['cleo']!, ['clerk']);
    for (const name of Object.keys(users))
      tokens[name] = (await t.auth.tokens.create(users[name]!, { name: 'test' })).token;
    const em = orm.em.fork();
    em.create(InvoiceProject, { id: 3, org_id: acme, name: 'acme site' });
    em.create(InvoiceProject, { id: 4, org_id: globex, name: 'globex site' });
    em.create(Invoice, { id: 1, org_id: acme, project: 3, body: 'acme invoice', total: 10 });
    em.create(Invoice, { id: 2, org_id: globex, project: 4, body: 'globex invoice', total: 20 });
    await em.flush();
  });
  after(async () => {
    await t.auth.close();
    await orm.close();
  });

  const as = (who: string) => ({ Authorization: `Bearer ${tokens[who]}` });

  it("a guard without load, then findOne by id: another tenant's invoice is not found", async () => {
    expect((await request(t.app).get('/orgs/acme/invoices/2').set(as('vic')).expect(200)).body).to.deep.equal({
      invoice: null,
    });
    const own = await request(t.app).get('/orgs/acme/invoices/1').set(as('vic')).expect(200);
    expect(own.body.invoice).to.include({ id: 1, body: 'acme invoice' });
    const hidden = await request(t.app).get('/orgs/acme/invoices/2/or-fail').set(as('vic')).expect(404);
    const missing = await request(t.app).get('/orgs/acme/invoices/99/or-fail').set(as('vic')).expect(404);
    expect(hidden.body).to.deep.equal(missing.body);
    expect(hidden.body).to.include({ code: 'not_found' });
  });

  it("PATCH { project: 4 } with fields: 'body': refused, and nothing is written", async () => {
    const refused = await request(t.app)
      .patch('/orgs/acme/invoices/1')
      .set(as('cleo'))
      .send({ project: 4 })
      .expect(403);
    expect(refused.body).to.include({ code: 'forbidden' });
    expect(refused.body.detail).to.match(/project of this Invoice: names a InvoiceProject that you cannot read/);
    const row = await orm.em.fork().findOneOrFail(Invoice, 1);
    expect(row.project?.id).to.equal(3);
    // The same route with what the clerk may do passes.
    await request(t.app).patch('/orgs/acme/invoices/1').set(as('cleo')).send({ body: 'amended' }).expect(200);
    expect((await orm.em.fork().findOneOrFail(Invoice, 1)).body).to.equal('amended');
    // A field the rules do not let the clerk update, and the tenant field, are refused at flush.
    const put = (who: string, id: number, body: object) =>
      request(t.app).put(`/orgs/acme/invoices/${id}`).set(as(who)).send(body);
    expect((await put('cleo', 1, { total: 0 }).expect(403)).body.detail).to.equal(
      'You may not update the total of this Invoice',
    );
    const moved = await put('olga', 1, { org_id: globex }).expect(403);
    expect(moved.body.detail).to.match(/update the org_id of this Invoice: names another organization/);
    expect((await put('vic', 1, { body: 'x' }).expect(403)).body.detail).to.equal(
      'You may not update the body of this Invoice',
    );
    // A reference to another tenant's row, written without reading it first.
    const foreign = await put('olga', 2, { body: 'x' }).expect(403);
    expect(foreign.body.detail).to.match(/update this Invoice: it belongs to another organization/);
    const rows = await orm.em.fork().find(Invoice, {}, { orderBy: { id: 'asc' } });
    expect(rows.map(({ org_id, body, total }) => ({ org_id, body, total }))).to.deep.equal([
      { org_id: acme, body: 'amended', total: 10 },
      { org_id: globex, body: 'globex invoice', total: 20 },
    ]);
  });

  it("a list route without accessibleBy: the organization's rows only, and none for a non-member", async () => {
    expect((await request(t.app).get('/orgs/acme/invoices').set(as('vic')).expect(200)).body.invoices).to.deep.equal([
      1,
    ]);
    expect((await request(t.app).get('/orgs/globex/invoices').set(as('gina')).expect(200)).body.invoices).to.deep.equal(
      [2],
    );
    await request(t.app).get('/orgs/globex/invoices').set(as('vic')).expect(404);
  });

  it('raw SQL through req.em is a TypeError pointing at the application’s own em', async () => {
    const response = await request(t.app).get('/raw').set(as('olga')).expect(500);
    expect(response.body.code).to.not.equal('forbidden');
    expect(t.log.text()).to.match(/req\.em\.execute\(\) cannot be checked.*use the application's own EntityManager/);
  });
});
