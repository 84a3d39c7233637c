import { expect } from 'chai';
import { subject } from '@casl/ability';
import { DriverException } from '@mikro-orm/core';
import express, { type Request } from 'express';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

interface Note {
  id: number;
  owner_id?: number;
  title: string;
  status?: string;
}

/** What the routes' `load` sees: notes by id, and how often it was asked. */
const notes = new Map<number, Note>();
let loads = 0;
const load = async (req: Request): Promise<Note | null> => {
  loads++;
  if (req.params['id'] === 'down')
    throw new DriverException(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    );
  return notes.get(Number(req.params['id'])) ?? null;
};

describe('require({ action, subject, load, fields })', () => {
  let t: TestApp;
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineRole('member', [
        { action: ['read', 'update'], subject: 'Note', conditions: { owner_id: '${user.id}' } },
        {
          action: 'update',
          subject: 'Note',
          inverted: true,
          conditions: { status: 'locked' },
          reason: 'Locked notes cannot be changed',
        },
        { action: 'update', subject: 'Profile', conditions: { user_id: '${user.id}' }, fields: ['email', 'name'] },
      ]);
      auth.defineRole('reviewer', [{ action: 'read', subject: 'Note', conditions: { status: { $ne: 'draft' } } }]);
      app.use(express.json());
      app.get('/notes/:id', auth.require({ action: 'read', subject: 'Note', load }), (req, res) =>
        res.json({ note: req.resource }),
      );
      app.patch('/notes/:id', auth.require({ action: 'update', subject: 'Note', load, fields: 'body' }), (req, res) =>
        res.json({ note: req.resource, body: req.body }),
      );
      app.patch(
        '/profiles/:user_id',
        auth.require({ action: 'update', subject: 'Profile', fields: 'body' }),
        (req, res) => res.json({ fields: Object.keys(req.body).sort() }),
      );
    });
    for (const [name, roles] of [
      ['ada', ['member']],
      ['bob', ['member']],
      ['rita', ['reviewer']],
      ['nobody', []],
    ] as const) {
      const user = await t.auth.users.create({ email: `${name}@example.com`, password: PASSWORD, roles: [...roles] });
      ids[name] = user.id;
      cookies[name] = sessionCookieFrom(
        await request(t.app)
          .post('/service-auth/login')
          .send({ email: `${name}@example.com`, password: PASSWORD })
          .expect(200),
      )!;
    }
    notes.set(1, { id: 1, owner_id: ids['ada']!, title: "Ada's" });
    notes.set(2, { id: 2, owner_id: ids['bob']!, title: "Bob's" });
    notes.set(3, { id: 3, owner_id: ids['ada']!, title: 'Locked', status: 'locked' });
    notes.set(4, { id: 4, title: 'No owner, no status' });
    notes.set(5, { id: 5, owner_id: ids['ada']!, title: 'Published', status: 'published' });
  });
  after(() => t.auth.close());

  const as = (who: string) => ({
    get: (path: string) => request(t.app).get(path).set('Cookie', cookies[who]!),
    patch: (path: string, body: object) =>
      request(t.app).patch(path).set('Cookie', cookies[who]!).set('Sec-Fetch-Site', 'same-origin').send(body),
  });

  it("hands the handler the resource it loaded and allowed: one's own note", async () => {
    const response = await as('ada').get('/notes/1').expect(200);
    expect(response.body.note).to.deep.equal({ id: 1, owner_id: ids['ada'], title: "Ada's" });
  });

  it("refuses another member's note 403, a missing one 404", async () => {
    expect((await as('ada').get('/notes/2').expect(403)).body.code).to.equal('forbidden');
    expect((await as('ada').get('/notes/99').expect(404)).body.code).to.equal('not_found');
    expect((await as('ada').patch('/notes/2', { title: 'x' }).expect(403)).body.code).to.equal('forbidden');
  });

  it('refuses a user whose ability allows the action on no note at all before loading anything', async () => {
    const before = loads;
    expect((await as('nobody').get('/notes/1').expect(403)).body.code).to.equal('forbidden');
    expect((await as('nobody').get('/notes/99').expect(403)).body.code).to.equal('forbidden');
    expect(loads).to.equal(before);
  });

  it('lets a condition be met only by a field the object has: a missing field denies, even for $ne', async () => {
    // Note 4 has no status: CASL alone would find `status $ne 'draft'` true of it.
    await as('rita').get('/notes/5').expect(200);
    await as('rita').get('/notes/4').expect(403);
    await as('rita').get('/notes/1').expect(403);
    await as('ada').get('/notes/4').expect(403);
  });

  it("answers with the deciding rule's reason when it gives one", async () => {
    const response = await as('ada').patch('/notes/3', { title: 'x' }).expect(403);
    expect(response.body.detail).to.equal('Locked notes cannot be changed');
  });

  it('checks every field the body sets, naming each one refused, with the resource loaded', async () => {
    t.auth.defineRole('member', [
      { action: ['read'], subject: 'Note', conditions: { owner_id: '${user.id}' } },
      { action: 'update', subject: 'Note', conditions: { owner_id: '${user.id}' }, fields: ['title'] },
      { action: 'update', subject: 'Profile', conditions: { user_id: '${user.id}' }, fields: ['email', 'name'] },
    ]);
    expect((await as('ada').patch('/notes/1', { title: 'New' }).expect(200)).body.body).to.deep.equal({ title: 'New' });
    const refused = await as('ada').patch('/notes/1', { title: 'New', owner_id: ids['bob'], status: 'x' }).expect(403);
    expect(refused.body.errors).to.deep.equal([
      { field: 'owner_id', message: 'you may not update this field' },
      { field: 'status', message: 'you may not update this field' },
    ]);
  });

  it('checks the body against the URL context without load: own profile, permitted fields only', async () => {
    const own = await as('ada').patch(`/profiles/${ids['ada']}`, { email: 'a@example.com', name: 'Ada' }).expect(200);
    expect(own.body.fields).to.deep.equal(['email', 'name']);
    const refused = await as('ada').patch(`/profiles/${ids['ada']}`, { is_admin: true }).expect(403);
    expect(refused.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['is_admin']);
    await as('ada').patch(`/profiles/${ids['bob']}`, { email: 'b@example.com' }).expect(403);
  });

  it('answers 503 when loading finds the database out of reach, and sets no resource', async () => {
    const response = await as('ada').get('/notes/down').expect(503);
    expect(response.body.code).to.equal('unavailable');
  });

  it('refuses options that make no sense when the route is declared', () => {
    expect(() => t.auth.require({ action: 'read', subject: 'Note', load: 'notes' as never })).to.throw(
      TypeError,
      /load must be a function/,
    );
    expect(() => t.auth.require({ action: 'read', subject: 'Note', fields: 'query' as never })).to.throw(
      TypeError,
      /'body'/,
    );
  });
});

describe('permittedFields and pickPermitted', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    t.auth.defineRole('member', [
      { action: 'read', subject: 'User', conditions: { id: '${user.id}' } },
      { action: 'read', subject: 'User', fields: ['id', 'email'] },
      { action: 'read', subject: 'User', inverted: true, fields: ['password_hash'] },
    ]);
  });
  after(() => t.auth.close());
  const ada = { id: 7, email: 'ada@example.com', roles: ['member'] };

  it('lists the fields the rules allow: all of its own record but the hidden one, two of anyone else', () => {
    const own = { id: 7, email: 'ada@example.com', name: 'Ada', password_hash: 'x' };
    expect(t.auth.permittedFields(ada, 'read', subject('User', { ...own }))).to.deep.equal(['email', 'id', 'name']);
    expect(t.auth.permittedFields(ada, 'read', subject('User', { ...own, id: 8 }))).to.deep.equal(['email', 'id']);
    expect(t.auth.permittedFields(ada, 'read', 'User', ['id', 'email', 'name', 'password_hash'])).to.deep.equal([
      'email',
      'id',
      'name',
    ]);
  });

  it('picks the permitted keys of an object for a response', () => {
    const other = { id: 8, email: 'bob@example.com', name: 'Bob', password_hash: 'x' };
    expect(t.auth.pickPermitted(ada, 'read', 'User', other)).to.deep.equal({ id: 8, email: 'bob@example.com' });
    expect(t.auth.pickPermitted({ ...ada, roles: [] }, 'read', 'User', other)).to.deep.equal({});
    // The object itself is left as it was, untagged.
    expect(Object.getOwnPropertyNames(other)).to.deep.equal(['id', 'email', 'name', 'password_hash']);
  });
});
