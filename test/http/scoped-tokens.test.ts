/**
 * Scopes that bind (CONTRACT-3 §25a), over HTTP with real tokens: a token's ability is its
 * owner's intersected with its scopes' rules on every guard (`require` alone, with `load`, with
 * `fields`, a named policy), in `req.ability`, `accessibleBy(req, …)`, `permittedFields` and
 * `explain`, in an organization too; unscoped tokens and sessions keep the user's whole ability;
 * undefined scopes are refused at creation (422 `unknown_scope`) once any scope is defined.
 */
import { expect } from 'chai';
import { subject } from '@casl/ability';
import express, { type Express, type Request } from 'express';
import request from 'supertest';
import type { ServiceAuth } from '../../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

interface Note {
  id: number;
  owner_id: number;
  title: string;
  status: string;
  org_id?: number;
}
const notes: Note[] = [];

/** The scopes of the suite, as an application defines them. */
function defineScopes(auth: ServiceAuth): void {
  auth.defineScope('notes:read', [{ action: 'read', subject: 'Note' }], 'Read your notes');
  auth.defineScope(
    'notes:write',
    [{ action: ['read', 'create', 'update', 'delete'], subject: 'Note' }],
    'Read and write your notes',
  );
  auth.defineScope(
    'notes:titles',
    [
      { action: 'update', subject: 'Note', fields: ['title'] },
      { action: 'read', subject: 'Note' },
    ],
    'Rename your notes',
  );
  auth.defineScope(
    'notes:published',
    [{ action: 'read', subject: 'Note', conditions: { status: 'published' } }],
    'Read your published notes',
  );
  auth.defineScope(
    'projects:read',
    [{ action: 'read', subject: ['Organization', 'Project'] }],
    'Read the projects of your organizations',
  );
}

function routes(app: Express, auth: ServiceAuth): void {
  auth.defineRole('writer', [
    { action: 'create', subject: 'Note' },
    { action: ['read', 'update', 'delete'], subject: 'Note', conditions: { owner_id: '${user.id}' } },
  ]);
  auth.defineOrgRole('member', [{ action: ['read', 'create'], subject: ['Organization', 'Project'] }]);
  auth.definePolicy('isWriter', (user) => user.roles.has('writer'));
  const load = (req: Request) => notes.find((note) => note.id === Number(req.params['id'])) ?? null;
  app.use(express.json());
  app.get('/notes/:id', auth.require({ action: 'read', subject: 'Note', load }), (req, res) =>
    res.json({ note: req.resource }),
  );
  app.post('/notes', auth.require({ action: 'create', subject: 'Note' }), (_req, res) =>
    res.status(201).json({ created: true }),
  );
  app.patch('/notes/:id', auth.require({ action: 'update', subject: 'Note', load, fields: 'body' }), (_req, res) =>
    res.json({ updated: true }),
  );
  app.delete('/notes/:id', auth.require({ action: 'delete', subject: 'Note', load }), (_req, res) =>
    res.status(204).end(),
  );
  app.post('/by-policy', auth.require({ policy: 'isWriter' }), (_req, res) => res.json({ passed: true }));
  app.get('/labelled', auth.tokenRequired, auth.requireScopes('notes:read'), (_req, res) => res.json({ passed: true }));
  // `?as=user`: every question asked with `req.user` instead, which carries the request's credential.
  app.get('/mine', auth.loginRequired, (req, res) => {
    const note = subject('Note', { ...notes[0]! });
    const who = req.query['as'] === 'user' ? req.user! : req;
    res.json({
      filter: auth.accessibleBy(who, 'read', 'Note'),
      canUpdate: who === req ? req.ability!.can('update', note) : auth.abilityFor(who).can('update', note),
      fields: auth.permittedFields(who, 'update', note),
      picked: auth.pickPermitted(who, 'update', 'Note', { ...notes[0]! }),
      why: auth.explain(who, 'create', 'Note', { owner_id: req.user!.id }),
    });
  });
  app.post(
    '/orgs/:org/projects',
    auth.orgRequired(),
    auth.require({ action: 'create', subject: 'Project' }),
    (_req, res) => res.status(201).json({ created: true }),
  );
  app.get('/orgs/:org/projects', auth.orgRequired(), auth.require({ action: 'read', subject: 'Project' }), (req, res) =>
    res.json({ filter: auth.accessibleBy(req, 'read', 'Project') }),
  );
}

describe('scopes that bind what a token can do', () => {
  let t: TestApp;
  let ada: number;
  let cookie: string;
  let acme: number;
  let globex: number;
  /** A token of Ada's with these scopes (none: every scope), perhaps bound to an organization; one per kind (each costs a derivation). */
  const made = new Map<string, string>();
  const tokenOf = async (scopes: string[], org?: string) => {
    const key = `${scopes.join(' ')}@${org ?? ''}`;
    if (!made.has(key))
      made.set(key, (await t.auth.tokens.create(ada, { name: `t${scopes.join('-')}`, scopes, org })).token);
    return made.get(key)!;
  };

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false, SERVICE_AUTH_MAX_TOKENS_PER_USER: 100 }, routes);
    t.parts.knownOrgRole = (name) => ['owner', 'member'].includes(name);
    ada = (await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['writer'] })).id;
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
    const olga = (await t.auth.users.create({ email: 'olga@example.com', password: PASSWORD })).id;
    acme = (await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: olga })).id;
    globex = (await t.auth.orgs.create({ name: 'Globex', slug: 'globex', owner: olga })).id;
    await t.auth.orgs.addMember(acme, ada, ['member']);
    await t.auth.orgs.addMember(globex, ada, ['member']);
    notes.push(
      { id: 1, owner_id: ada, title: 'Draft', status: 'draft' },
      { id: 2, owner_id: ada, title: 'Out', status: 'published' },
      { id: 3, owner_id: olga, title: "Olga's", status: 'draft' },
    );
  });
  after(() => t.auth.close());

  const as = (token: string) => ({
    get: (path: string) => request(t.app).get(path).set('Authorization', `Bearer ${token}`),
    post: (path: string, body: object = {}) =>
      request(t.app).post(path).set('Authorization', `Bearer ${token}`).send(body),
    patch: (path: string, body: object) =>
      request(t.app).patch(path).set('Authorization', `Bearer ${token}`).send(body),
    delete: (path: string) => request(t.app).delete(path).set('Authorization', `Bearer ${token}`),
  });

  describe('before any scope is defined', () => {
    it('keeps scopes as labels: a token with any scope has its owner’s whole ability, and requireScopes still decides', async () => {
      const labelled = await tokenOf(['notes:read']);
      const other = await tokenOf(['old:label']);
      await as(labelled).post('/notes').expect(201);
      await as(other).post('/notes').expect(201);
      await as(labelled).get('/labelled').expect(200);
      expect((await as(other).get('/labelled').expect(403)).body.code).to.equal('insufficient_scope');
    });
  });

  describe('once scopes are defined', () => {
    let legacy: string;
    before(async () => {
      legacy = await tokenOf(['old:label']);
      defineScopes(t.auth);
    });

    it('refuses a read-only token on a write route guarded by require alone, saying its scopes refused, and lets it read', async () => {
      const reader = await tokenOf(['notes:read']);
      const refused = await as(reader).post('/notes').expect(403);
      expect(refused.body).to.include({ code: 'forbidden', detail: "This token's scopes do not allow this" });
      expect((await as(reader).get('/notes/1').expect(200)).body.note.id).to.equal(1);
      // Its owner's rules still bind: another user's note is refused, whatever the scope.
      await as(reader).get('/notes/3').expect(403);
      // A token with a write scope, one without scopes, and the session write.
      await as(await tokenOf(['notes:write']))
        .post('/notes')
        .expect(201);
      await as(await tokenOf([]))
        .post('/notes')
        .expect(201);
      await request(t.app)
        .post('/notes')
        .set('Cookie', cookie)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({})
        .expect(201);
    });

    it('binds through load and fields: the loaded note, and each field the body sets', async () => {
      const reader = await tokenOf(['notes:read']);
      expect((await as(reader).delete('/notes/1').expect(403)).body.detail).to.equal(
        "This token's scopes do not allow this",
      );
      await as(reader).patch('/notes/1', { title: 'x' }).expect(403);
      const renamer = await tokenOf(['notes:titles']);
      await as(renamer).patch('/notes/1', { title: 'Renamed' }).expect(200);
      const fields = await as(renamer).patch('/notes/1', { title: 'Renamed', status: 'published' }).expect(403);
      expect(fields.body.errors).to.deep.equal([{ field: 'status', message: 'you may not update this field' }]);
      await as(await tokenOf(['notes:write']))
        .patch('/notes/1', { title: 'Renamed', status: 'draft' })
        .expect(200);
    });

    it('narrows req.ability, accessibleBy(req), permittedFields, pickPermitted and explain', async () => {
      const published = (
        await as(await tokenOf(['notes:published']))
          .get('/mine')
          .expect(200)
      ).body;
      expect(published.filter).to.deep.equal({ $and: [{ owner_id: ada }, { status: 'published' }] });
      expect(published.canUpdate).to.equal(false);
      expect(published.fields).to.deep.equal([]);
      expect(published.picked).to.deep.equal({});
      expect(published.why).to.deep.include({ allowed: false, refused_by: 'scopes' });
      expect(published.why.rule).to.include({
        role: null,
        inverted: true,
        reason: "This token's scopes do not allow this",
      });

      const renamer = (
        await as(await tokenOf(['notes:titles']))
          .get('/mine')
          .expect(200)
      ).body;
      expect(renamer.canUpdate).to.equal(true);
      expect(renamer.fields).to.deep.equal(['title']);
      expect(renamer.picked).to.deep.equal({ title: notes[0]!.title });

      const whole = (
        await as(await tokenOf([]))
          .get('/mine')
          .expect(200)
      ).body;
      expect(whole.filter).to.deep.equal({ owner_id: ada });
      expect(whole.fields).to.deep.equal(['id', 'owner_id', 'status', 'title']);
      expect(whole.why).to.deep.include({ allowed: true });
      expect(whole.why).not.to.have.property('refused_by');
    });

    it('decides alike when service code is handed req.user: it carries the token’s scopes', async () => {
      for (const scopes of [['notes:published'], ['notes:titles'], []]) {
        const token = await tokenOf(scopes);
        const withRequest = (await as(token).get('/mine').expect(200)).body;
        expect((await as(token).get('/mine?as=user').expect(200)).body, scopes.join(' ')).to.deep.equal(withRequest);
      }
    });

    it('binds a named policy guard too: a scoped token needs a scope that grants satisfy on it', async () => {
      await as(await tokenOf(['notes:write']))
        .post('/by-policy')
        .expect(403);
      await as(await tokenOf([]))
        .post('/by-policy')
        .expect(200);
    });

    it('binds in an organization, and with an org-bound token', async () => {
      const reader = await tokenOf(['projects:read']);
      expect((await as(reader).post('/orgs/acme/projects').expect(403)).body.detail).to.equal(
        "This token's scopes do not allow this",
      );
      expect((await as(reader).get('/orgs/acme/projects').expect(200)).body.filter).to.deep.equal({
        $and: [{ $and: [{ org_id: acme }, { id: { $ne: null } }] }, { org_id: acme }],
      });
      await as(await tokenOf([]))
        .post('/orgs/acme/projects')
        .expect(201);
      const bound = await tokenOf(['projects:read'], 'acme');
      await as(bound).get('/orgs/acme/projects').expect(200);
      await as(bound).post('/orgs/acme/projects').expect(403);
      expect((await as(bound).get('/orgs/globex/projects').expect(403)).body.detail).to.equal(
        'This token is bound to another organization',
      );
    });

    it('gives a token whose scopes are all undefined (made before) nothing', async () => {
      await as(legacy).get('/notes/1').expect(403);
      await as(legacy).post('/notes').expect(403);
    });

    it('refuses to make a token with an undefined scope: 422 unknown_scope naming it, over HTTP and in code', async () => {
      const refused = await request(t.app)
        .post('/service-auth/api/tokens')
        .set('Cookie', cookie)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({ name: 'ci', scopes: ['notes:read', 'notes:raed'] })
        .expect(422);
      expect(refused.body).to.include({ code: 'unknown_scope', detail: 'no scope named "notes:raed"' });
      const error = await t.auth.tokens.create(ada, { name: 'ci', scopes: ['nope'] }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).to.include({ code: 'unknown_scope', status: 422 });
      const listed = await t.auth.tokens.list({ user: ada });
      expect(listed.map((token) => token.name)).not.to.include('ci');
    });

    it('offers the defined scopes on the tokens page, with their descriptions, and lists them in the OpenAPI document', async () => {
      const page = await request(t.app)
        .get('/service-auth/tokens')
        .set('Cookie', cookie)
        .set('Accept', 'text/html')
        .expect(200);
      expect(page.text).to.include('type="checkbox" id="scope-0" name="scopes" value="notes:published"');
      expect(page.text).to.include('Rename your notes');
      // Two checked boxes send the field twice.
      const created = await request(t.app)
        .post('/service-auth/api/tokens')
        .set('Cookie', cookie)
        .set('Sec-Fetch-Site', 'same-origin')
        .set('Accept', 'text/html')
        .type('form')
        .send('name=page&scopes=notes%3Aread&scopes=projects%3Aread')
        .expect(201);
      expect(created.text).to.include('notes:read projects:read');
      const document = (await request(t.app).get('/service-auth/openapi.json').expect(200)).body;
      expect(document['x-scopes'].map((scope: { name: string }) => scope.name)).to.deep.equal([
        'notes:published',
        'notes:read',
        'notes:titles',
        'notes:write',
        'projects:read',
      ]);
      expect(document.paths['/api/tokens'].post.responses['422']).to.exist;
    });
  });
});

describe('auth.defineScope and the scopes of policy files', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.auth.close());

  it('checks a scope as a role, and refuses a name a token cannot carry, an empty description and an inverted rule', () => {
    expect(() => t.auth.defineScope('Notes Read', [], 'x')).to.throw(TypeError, /must match \[a-z0-9:._-\]\{1,64\}/);
    expect(() => t.auth.defineScope('notes:read', [{ action: 'read', subject: 'Note' }], ' ')).to.throw(
      TypeError,
      /scope "notes:read": the description/,
    );
    expect(() => t.auth.defineScope('notes:read', [{ action: 'read' } as never], 'Read')).to.throw(
      TypeError,
      /scope "notes:read", rule 1: "subject"/,
    );
    expect(() =>
      t.auth.defineScope('notes:read', [{ action: 'read', subject: 'Note', conditions: { $where: 'x' } }], 'Read'),
    ).to.throw(TypeError, /\$where/);
    expect(() =>
      t.auth.defineScope(
        'notes:read',
        [{ action: 'read', subject: 'Note', conditions: { org_id: '${org.id}' } }],
        'Read',
      ),
    ).to.throw(TypeError, /scope "notes:read", rule 1/);
    expect(() =>
      t.auth.defineScope('notes:read', [{ action: 'read', subject: 'Note', inverted: true }], 'Read'),
    ).to.throw(TypeError, /rule 1: "inverted": a scope only grants/);
    expect(t.auth.scopes).to.deep.equal([]);
    t.auth.defineScope(
      'notes:mine',
      [{ action: 'read', subject: 'Note', conditions: { owner_id: '${user.id}' } }],
      'Read your notes',
    );
    expect(t.auth.scopes).to.deep.equal([{ name: 'notes:mine', description: 'Read your notes' }]);
    const ability = t.auth.abilityFor({ id: 7, email: 'a@example.com', roles: [] }, { scopes: ['notes:mine'] });
    expect(ability.can('read', subject('Note', { owner_id: 7 })), 'the owner has no role: nothing').to.equal(false);
  });

  it('loads scopes from a { roles, orgRoles, scopes } file, and names the file and path of a bad one', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'scopes-'));
    try {
      const file = join(dir, 'policies.json');
      await writeFile(
        file,
        JSON.stringify({
          roles: { reader: [{ action: 'read', subject: 'Task' }] },
          scopes: { 'tasks:read': { description: 'Read tasks', rules: [{ action: 'read', subject: 'Task' }] } },
        }),
      );
      t.auth.loadPolicies(file);
      expect(t.auth.scopes).to.deep.equal([{ name: 'tasks:read', description: 'Read tasks' }]);
      await writeFile(file, JSON.stringify({ scopes: { 'tasks:write': { rules: [{ action: 'write' }] } } }));
      expect(() => t.auth.loadPolicies(file)).to.throw(
        TypeError,
        /\$\.scopes\["tasks:write"\]\.description: must be a non-empty string.*rules\[0\]\.subject/s,
      );
      await writeFile(
        file,
        JSON.stringify({
          scopes: {
            'tasks:write': { description: 'Write', rules: [{ action: 'update', subject: 'Task', inverted: true }] },
          },
        }),
      );
      expect(() => t.auth.loadPolicies(file)).to.throw(
        TypeError,
        /policies\.json: scope "tasks:write", rule 1: "inverted"/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
