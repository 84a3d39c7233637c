/**
 * Requests in an organization (CONTRACT-3 §20.2) through a real application: `orgRequired` by id
 * or slug, 404 for a non-member exactly as for no organization (unless a global rule lets them
 * read it), `req.org`, `req.membership` and the ability in the organization for the guards after
 * it (`require` on the URL context, with `load` and `fields`), and tokens bound to an organization.
 */
import { subject } from '@casl/ability';
import { expect } from 'chai';
import type { Express, Request } from 'express';
import express from 'express';
import request from 'supertest';
import type { ServiceAuth } from '../../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { PROBLEM } from '../helpers/problems.js';

interface Project {
  id: number;
  org_id: number;
  name: string;
  lead_id: number;
}
const projects: Project[] = [];

function routes(app: Express, auth: ServiceAuth): void {
  auth.defineRole('admin', [{ action: 'manage', subject: 'all' }]);
  auth.defineRole('reader', [{ action: 'read', subject: 'Project' }]);
  auth.defineOrgRole('owner', [{ action: 'manage', subject: 'all' }]);
  auth.defineOrgRole('viewer', [{ action: 'read', subject: ['Organization', 'Project'] }]);
  auth.defineOrgRole('member', {
    includes: ['viewer'],
    rules: [
      { action: 'create', subject: 'Project' },
      { action: 'update', subject: 'Project', fields: ['name'], conditions: { lead_id: '${user.id}' } },
    ],
  });
  const load = (req: Request) => projects.find((project) => project.id === Number(req.params['id'])) ?? null;
  const describe = (req: Request) => ({ org: req.org, roles: req.membership?.roles ?? null, user: req.user!.email });
  app.use(express.json());
  app.get('/orgs/:org', auth.orgRequired(), (req, res) => res.json(describe(req)));
  app.get(
    '/o/:tenant/about',
    auth.orgRequired('tenant'),
    auth.require({ action: 'read', subject: 'Organization' }),
    (req, res) => res.json(describe(req)),
  );
  app.post(
    '/orgs/:org/projects',
    auth.orgRequired(),
    auth.require({ action: 'create', subject: 'Project' }),
    (req, res) => res.status(201).json({ created: true }),
  );
  app.get('/orgs/:org/projects', auth.orgRequired(), (req, res) => {
    const ability = auth.abilityFor(req);
    res.json({
      ids: projects
        .filter((project) => project.org_id === req.org!.id && ability.can('read', subject('Project', { ...project })))
        .map((p) => p.id),
      filter: auth.accessibleBy(req, 'read', 'Project'),
    });
  });
  app.get(
    '/orgs/:org/projects/:id',
    auth.orgRequired(),
    auth.require({ action: 'read', subject: 'Project', load }),
    (req, res) => res.json({ project: req.resource }),
  );
  app.post(
    '/orgs/:org/checked-projects',
    auth.orgRequired(),
    auth.require({ action: 'create', subject: 'Project', fields: 'body' }),
    (_req, res) => res.status(201).json({ created: true }),
  );
  app.patch(
    '/orgs/:org/projects/:id',
    auth.orgRequired(),
    auth.require({ action: 'update', subject: 'Project', load, fields: 'body' }),
    (_req, res) => res.json({ updated: true }),
  );
  app.get('/orgs/:org/why/:id', auth.orgRequired(), (req, res) => {
    const project = projects.find((p) => p.id === Number(req.params['id']))!;
    res.json({
      why: auth.explain(req, 'update', 'Project', { lead_id: project.lead_id }, 'name'),
      fields: auth.permittedFields(req, 'update', subject('Project', { ...project })),
    });
  });
  app.get('/outside', auth.loginRequired, (req, res) =>
    res.json({ readsProjects: req.ability!.can('read', 'Project'), org: req.org ?? null }),
  );
  // Service code that asks in an organization the URL names, with the request, without orgRequired.
  // `?as=user`: the same with `req.user`, which is bound to the request's credential (its token's organization).
  app.get('/service/:name/:question', auth.loginRequired, async (req, res) => {
    const org = String(req.params['name']);
    const who = req.query['as'] === 'user' ? req.user! : req;
    const answers: Record<string, () => Promise<unknown>> = {
      ability: async () => (await auth.abilityFor(who, { org })).can('delete', 'Organization'),
      rows: () => auth.accessibleBy(who, 'read', 'Project', { org }),
      explain: async () => (await auth.explain(who, 'delete', 'Organization', {}, { org })).allowed,
    };
    res.json({ answer: await answers[String(req.params['question'])]!() });
  });
}

describe('requests in an organization', () => {
  let t: TestApp;
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let acme: number;
  let globex: number;

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, routes);
    for (const [name, roles] of [
      ['olga', []],
      ['mia', []],
      ['vic', []],
      ['stranger', []],
      ['root', ['admin']],
      ['rita', ['reader']],
    ] as const) {
      ids[name] = (
        await t.auth.users.create({ email: `${name}@example.com`, password: PASSWORD, roles: [...roles] })
      ).id;
      const response = await request(t.app)
        .post('/service-auth/login')
        .send({ email: `${name}@example.com`, password: PASSWORD })
        .expect(200);
      cookies[name] = sessionCookieFrom(response)!;
    }
    acme = (await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: ids['olga']! })).id;
    globex = (await t.auth.orgs.create({ name: 'Globex', slug: 'globex', owner: ids['olga']! })).id;
    await t.auth.orgs.addMember(acme, ids['mia']!, ['member']);
    await t.auth.orgs.addMember(acme, ids['vic']!, ['viewer']);
    await t.auth.orgs.addMember(globex, ids['vic']!, ['member']);
    projects.push(
      { id: 1, org_id: acme, name: 'rocket', lead_id: ids['mia']! },
      { id: 2, org_id: acme, name: 'anvil', lead_id: ids['olga']! },
      { id: 3, org_id: globex, name: 'globe', lead_id: ids['mia']! },
    );
  });
  after(() => t.auth.close());

  const get = (path: string, who: string) => request(t.app).get(path).set('Cookie', cookies[who]!);

  it("sets req.org and req.membership for a member, by the organization's slug or id", async () => {
    const bySlug = await get('/orgs/acme', 'mia').expect(200);
    expect(bySlug.body).to.deep.include({ roles: ['member'], user: 'mia@example.com' });
    expect(bySlug.body.org).to.deep.include({ id: acme, slug: 'acme', name: 'Acme' });
    const byId = await get(`/orgs/${acme}`, 'mia').expect(200);
    expect(byId.body).to.deep.equal(bySlug.body);
    // Another parameter name.
    expect((await get('/o/acme/about', 'vic').expect(200)).body.roles).to.deep.equal(['viewer']);
  });

  it('answers a non-member 404 not_found exactly as for an organization that does not exist', async () => {
    const foreign = await get('/orgs/acme', 'stranger').expect(404);
    const missing = await get('/orgs/nowhere', 'stranger').expect(404);
    const missingId = await get('/orgs/999', 'mia').expect(404);
    expect(foreign.headers['content-type']).to.match(PROBLEM);
    expect(foreign.body).to.deep.equal(missing.body);
    expect(missing.body).to.deep.equal(missingId.body);
    expect(foreign.body).to.include({ status: 404, code: 'not_found' });
    // A global rule that reads other things does not let a stranger in.
    await get('/orgs/acme', 'rita').expect(404);
    await request(t.app).get('/orgs/acme').expect(401);
  });

  it('lets in a non-member whose global ability reads the organization, with the global roles only', async () => {
    const { body } = await get('/orgs/globex', 'root').expect(200);
    expect(body).to.deep.include({ roles: null });
    expect(body.org).to.deep.include({ id: globex, slug: 'globex' });
  });

  it('decides the guards after it with the ability in the organization, on a URL context of the organization', async () => {
    const asMember = await request(t.app)
      .post('/orgs/acme/projects')
      .set('Cookie', cookies['mia']!)
      .send({ name: 'x' });
    const asViewer = await request(t.app)
      .post('/orgs/acme/projects')
      .set('Cookie', cookies['vic']!)
      .send({ name: 'x' });
    expect([asMember.status, asViewer.status]).to.deep.equal([201, 403]);
    // vic is a member in globex: there he may.
    await request(t.app).post('/orgs/globex/projects').set('Cookie', cookies['vic']!).send({ name: 'x' }).expect(201);
    // Outside any organization the organization roles grant nothing.
    expect((await get('/outside', 'mia').expect(200)).body).to.deep.equal({ readsProjects: false, org: null });
  });

  it("refuses a loaded resource of another organization, and checks the body's fields in the organization", async () => {
    expect((await get('/orgs/acme/projects/1', 'vic').expect(200)).body.project).to.include({ id: 1 });
    // Project 3 is globex's: vic is a member there, but the request is in acme.
    const foreign = await get('/orgs/acme/projects/3', 'vic').expect(403);
    expect(foreign.body.code).to.equal('forbidden');
    await get('/orgs/globex/projects/3', 'vic').expect(200);
    await request(t.app)
      .patch('/orgs/acme/projects/1')
      .set('Cookie', cookies['mia']!)
      .send({ name: 'renamed' })
      .expect(200);
    const field = await request(t.app)
      .patch('/orgs/acme/projects/1')
      .set('Cookie', cookies['mia']!)
      .send({ name: 'x', lead_id: 1 })
      .expect(403);
    expect(field.body.errors).to.deep.equal([{ field: 'lead_id', message: 'you may not update this field' }]);
    // Not the lead of project 2.
    await request(t.app).patch('/orgs/acme/projects/2').set('Cookie', cookies['mia']!).send({ name: 'x' }).expect(403);
    // mia leads project 3, but in globex she is no member: 404 before anything is loaded.
    await request(t.app)
      .patch('/orgs/globex/projects/3')
      .set('Cookie', cookies['mia']!)
      .send({ name: 'x' })
      .expect(404);
  });

  it('refuses a body whose tenant field names another organization, whatever the rules let the fields be', async () => {
    const misplaced = [{ field: 'org_id', message: 'names another organization than the one of the request' }];
    // mia may create projects in acme, any field: not one in globex, where she is no member.
    const created = await request(t.app)
      .post('/orgs/acme/checked-projects')
      .set('Cookie', cookies['mia']!)
      .send({ name: 'x', org_id: globex })
      .expect(403);
    expect(created.body).to.include({ code: 'forbidden' });
    expect(created.body.errors).to.deep.equal(misplaced);
    await request(t.app)
      .post('/orgs/acme/checked-projects')
      .set('Cookie', cookies['mia']!)
      .send({ name: 'x', org_id: acme })
      .expect(201);
    await request(t.app)
      .post('/orgs/acme/checked-projects')
      .set('Cookie', cookies['mia']!)
      .send({ name: 'x' })
      .expect(201);
    // olga owns acme (manage all): she may set every field of its projects, but not move one out of it.
    const moved = await request(t.app)
      .patch('/orgs/acme/projects/2')
      .set('Cookie', cookies['olga']!)
      .send({ org_id: globex })
      .expect(403);
    expect(moved.body.errors).to.deep.equal(misplaced);
    await request(t.app)
      .patch('/orgs/acme/projects/2')
      .set('Cookie', cookies['olga']!)
      .send({ org_id: acme, name: 'anvil' })
      .expect(200);
  });

  it('lets abilityFor(req) and accessibleBy(req) decide in the organization, its rows only', async () => {
    const { body } = await get('/orgs/acme/projects', 'olga').expect(200);
    expect(body.ids).to.deep.equal([1, 2]);
    expect(body.filter).to.deep.equal({ $and: [{ org_id: acme }, { org_id: acme }] });
    // A global admin who is no member: every row by the global rule, but of acme only.
    expect((await get('/orgs/acme/projects', 'root').expect(200)).body.filter).to.deep.equal({
      $and: [{ id: { $ne: null } }, { org_id: acme }],
    });
  });

  it('lets explain(req) and permittedFields(req) decide in the organization, the subject its own', async () => {
    const { body } = await get('/orgs/acme/why/1', 'mia').expect(200);
    expect(body.why).to.deep.include({ allowed: true });
    expect(body.why.rule).to.deep.include({ role: 'member', org_role: true, fields: ['name'] });
    expect(body.fields).to.deep.equal(['name']);
    // vic only views acme: no field of it.
    expect((await get('/orgs/acme/why/1', 'vic').expect(200)).body).to.deep.equal({
      why: { allowed: false, rule: null, why_not: [] },
      fields: [],
    });
  });

  it('answers abilityFor, accessibleBy and explain with { org } in service code, from the membership', async () => {
    const mia = await t.auth.users.get(ids['mia']!);
    const ability = await t.auth.abilityFor(mia, { org: 'acme' });
    expect(ability.can('create', 'Project')).to.equal(true);
    expect((await t.auth.abilityFor(mia, { org: globex })).can('create', 'Project')).to.equal(false);
    expect(await t.auth.accessibleBy(mia, 'create', 'Project', { org: globex })).to.deep.equal({
      $and: [{ id: { $in: [] } }, { org_id: globex }],
    });
    const why = await t.auth.explain(mia, 'update', 'Project', { lead_id: ids['mia'] }, { org: 'acme', field: 'name' });
    expect(why).to.deep.include({ allowed: true });
    expect(why.rule).to.deep.include({
      role: 'member',
      org_role: true,
      conditions: { lead_id: ids['mia'], org_id: acme },
    });
    let error: unknown;
    try {
      await t.auth.abilityFor(mia, { org: 'nowhere' });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.include({ code: 'not_found' });
  });
});

describe('tokens bound to an organization', () => {
  let t: TestApp;
  let cookie: string;
  let acme: number;
  let globex: number;
  let bound: { id: string; token: string; org: unknown };
  let unbound: string;

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, routes);
    const vic = await t.auth.users.create({ email: 'vic@example.com', password: PASSWORD });
    const olga = await t.auth.users.create({ email: 'olga@example.com', password: PASSWORD, roles: ['reader'] });
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'olga@example.com', password: PASSWORD })
        .expect(200),
    )!;
    acme = (await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: olga.id })).id;
    globex = (await t.auth.orgs.create({ name: 'Globex', slug: 'globex', owner: olga.id })).id;
    await t.auth.orgs.create({ name: 'Initech', slug: 'initech', owner: vic.id });
    const created = await request(t.app)
      .post('/service-auth/api/tokens')
      .set('Cookie', cookie)
      .send({ name: 'ci', org: 'acme' })
      .expect(201);
    bound = created.body;
    unbound = (
      await request(t.app).post('/service-auth/api/tokens').set('Cookie', cookie).send({ name: 'all' }).expect(201)
    ).body.token;
  });
  after(() => t.auth.close());

  const bearer = (path: string, token: string) => request(t.app).get(path).set('Authorization', `Bearer ${token}`);

  it("carries org { id, slug } in the token's JSON, created and listed (null when unbound)", async () => {
    expect(bound.org).to.deep.equal({ id: acme, slug: 'acme' });
    const { body } = await request(t.app).get('/service-auth/api/tokens').set('Cookie', cookie).expect(200);
    expect(body.tokens.map((token: { name: string; org: unknown }) => [token.name, token.org])).to.deep.equal([
      ['ci', { id: acme, slug: 'acme' }],
      ['all', null],
    ]);
    // By id too, in code.
    const byId = await t.auth.tokens.create('olga@example.com', { name: 'by id', org: globex });
    expect(byId.org).to.deep.equal({ id: globex, slug: 'globex' });
  });

  it('acts in its organization, is 403 forbidden in another, and has the global roles only outside every organization', async () => {
    expect((await bearer('/orgs/acme', bound.token).expect(200)).body.roles).to.deep.equal(['owner']);
    const other = await bearer('/orgs/globex', bound.token).expect(403);
    expect(other.body).to.include({ code: 'forbidden', detail: 'This token is bound to another organization' });
    // Where its user is no member, 404 like anyone's request.
    await bearer('/orgs/initech', bound.token).expect(404);
    expect((await bearer('/outside', bound.token).expect(200)).body).to.deep.equal({ readsProjects: true, org: null });
    // An unbound token acts in every organization of its user.
    await bearer('/orgs/acme', unbound).expect(200);
    await bearer('/orgs/globex', unbound).expect(200);
  });

  it('is 403 forbidden in another organization when service code asks there with the request ({ org }), as orgRequired is', async () => {
    for (const question of ['ability', 'rows', 'explain', 'ability?as=user', 'rows?as=user', 'explain?as=user']) {
      expect((await bearer(`/service/acme/${question}`, bound.token).expect(200)).body.answer, question).to.not.equal(
        false,
      );
      const other = await bearer(`/service/globex/${question}`, bound.token).expect(403);
      expect(other.body, question).to.include({
        code: 'forbidden',
        detail: 'This token is bound to another organization',
      });
      // The same user with a session, or an unbound token, is the owner there.
      expect(
        (await request(t.app).get(`/service/globex/${question}`).set('Cookie', cookie).expect(200)).body.answer,
        question,
      ).to.not.equal(false);
      expect((await bearer(`/service/globex/${question}`, unbound).expect(200)).body.answer, question).to.not.equal(
        false,
      );
    }
  });

  it('refuses an organization that does not exist or the user is not a member of, alike, and creates nothing', async () => {
    const problem = (org: unknown) =>
      request(t.app).post('/service-auth/api/tokens').set('Cookie', cookie).send({ name: 'x', org }).expect(400);
    const missing = await problem('nowhere');
    const foreign = await problem('initech');
    expect(missing.body).to.include({ code: 'bad_request' });
    expect(missing.body.errors).to.deep.equal([{ field: 'org', message: 'is no organization you are a member of' }]);
    expect(foreign.body).to.deep.equal(missing.body);
    const MALFORMED = [{ field: 'org', message: 'must be an organization id or slug, as in its URL (7, acme)' }];
    expect((await problem(true)).body.errors).to.deep.equal(MALFORMED);
    // The parser of URLs: what a URL would not take is refused, not tidied into an organization's id or slug.
    const acme = (await t.auth.orgs.find('acme'))!;
    for (const spelling of [
      ` ${acme.id}`,
      `${acme.id} `,
      `${acme.id}.0`,
      `0${acme.id}`,
      `+${acme.id}`,
      ' acme',
      'ACME',
    ]) {
      expect((await problem(spelling)).body.errors, JSON.stringify(spelling)).to.deep.equal(MALFORMED);
      await request(t.app)
        .get(`/service-auth/api/orgs/${encodeURIComponent(spelling)}`)
        .set('Cookie', cookie)
        .expect(404);
    }
    expect(await t.auth.tokens.list({ user: 'olga@example.com' })).to.have.length(3);
  });

  it('dies with its organization', async () => {
    await t.auth.orgs.delete('acme');
    await bearer('/outside', bound.token).expect(401);
    await bearer('/outside', unbound).expect(200);
  });
});
