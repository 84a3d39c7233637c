/**
 * `require({ …, load, conceal })`: a resource the user may not see answers exactly what a missing
 * one answers (status, headers, problem, page), so that its id cannot be probed; and
 * `auth.resource<T>(req)`, the typed way to read what the guard loaded.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import express, { type Request } from 'express';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';

interface Note {
  id: number;
  owner_id?: number;
  title: string;
  status?: string;
}

const MISSING = 999;
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('require({ …, load, conceal }) and auth.resource(req)', () => {
  let t: TestApp;
  const notes = new Map<number, Note>();
  const load = async (req: Request): Promise<Note | null> => notes.get(Number(req.params['id'])) ?? null;
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineRole('member', [
        {
          action: ['read', 'update'],
          subject: 'Note',
          conditions: { owner_id: '${user.id}' },
          fields: ['id', 'owner_id', 'title', 'status'],
        },
        { action: 'update', subject: 'Note', inverted: true, fields: ['owner_id'], reason: 'A note keeps its owner' },
      ]);
      auth.defineRole('reviewer', [
        { action: 'read', subject: 'Note', conditions: { status: 'published' } },
        { action: 'update', subject: 'Note', conditions: { owner_id: '${user.id}' } },
      ]);
      app.use(express.json());
      app.get('/notes/:id', auth.require({ action: 'read', subject: 'Note', load }), (req, res) =>
        res.json({ note: auth.resource<Note>(req) }),
      );
      app.get('/hidden/:id', auth.require({ action: 'read', subject: 'Note', load, conceal: true }), (req, res) =>
        res.json({ title: auth.resource<Note>(req).title }),
      );
      app.patch(
        '/hidden/:id',
        auth.require({ action: 'update', subject: 'Note', load, fields: 'body', conceal: true }),
        (req, res) => res.json({ note: req.resource }),
      );
      app.patch('/shared/:id', auth.require({ action: 'update', subject: 'Note', load, conceal: 'read' }), (req, res) =>
        res.json({ note: req.resource }),
      );
      app.get('/unguarded/:id', auth.loginRequired, (req, res) => res.json({ note: auth.resource<Note>(req) }));
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
    notes.set(3, { id: 3, owner_id: ids['bob']!, title: "Bob's, published", status: 'published' });
  });
  after(() => t.auth.close());

  const as = (who: string) => ({
    get: (path: string, accept = 'application/json') =>
      request(t.app).get(path).set('Cookie', cookies[who]!).set('Accept', accept),
    patch: (path: string, body: object) =>
      request(t.app).patch(path).set('Cookie', cookies[who]!).set('Sec-Fetch-Site', 'same-origin').send(body),
  });

  /** What a client can tell an answer by: status, the headers that vary, and the body. */
  const answer = (response: request.Response) => ({
    status: response.status,
    type: response.headers['content-type'],
    cacheControl: response.headers['cache-control'],
    length: response.headers['content-length'],
    body: response.text,
  });

  describe('with conceal: true', () => {
    it("answers another member's note exactly as a missing one: 404 not_found, same headers, same problem", async () => {
      const refused = answer(await as('ada').get('/hidden/2'));
      const missing = answer(await as('ada').get(`/hidden/${MISSING}`));
      expect(refused).to.deep.equal(missing);
      expect(refused.status).to.equal(404);
      expect(JSON.parse(refused.body)).to.include({ code: 'not_found', status: 404 });
    });

    it('shows a browser the same page for both', async () => {
      const refused = answer(await as('ada').get('/hidden/2', HTML));
      const missing = answer(await as('ada').get(`/hidden/${MISSING}`, HTML));
      expect(refused.type).to.match(/^text\/html/);
      expect(refused).to.deep.equal(missing);
    });

    it('still hands the handler a note the user may read', async () => {
      expect((await as('ada').get('/hidden/1').expect(200)).body).to.deep.equal({ title: "Ada's" });
    });

    it('conceals only the decision on the resource: a refused field of a visible note stays 403 naming it', async () => {
      const response = await as('ada').patch('/hidden/1', { owner_id: ids['bob'] }).expect(403);
      expect(response.body.code).to.equal('forbidden');
      expect(response.body.errors).to.deep.equal([{ field: 'owner_id', message: 'you may not update this field' }]);
      // On a note the user may not update at all, the body is never looked at: a 404 like a missing one.
      expect(answer(await as('ada').patch('/hidden/2', { owner_id: ids['bob'] }))).to.deep.equal(
        answer(await as('ada').patch(`/hidden/${MISSING}`, { owner_id: ids['bob'] })),
      );
    });

    it('refuses a user who may read no note at all 403 before loading, whether the id exists or not', async () => {
      const existing = answer(await as('nobody').get('/hidden/1'));
      expect(existing.status).to.equal(403);
      expect(existing).to.deep.equal(answer(await as('nobody').get(`/hidden/${MISSING}`)));
    });

    it('answers every note, whoever owns it and whatever its status, either 200 or exactly as a missing one (property)', async () => {
      const users = ['ada', 'bob', 'rita'] as const;
      const missing = Object.fromEntries(
        await Promise.all(users.map(async (who) => [who, answer(await as(who).get(`/hidden/${MISSING}`))] as const)),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            owner: fc.option(fc.constantFrom(...users), { nil: undefined }),
            status: fc.option(fc.constantFrom('draft', 'published'), { nil: undefined }),
          }),
          fc.constantFrom(...users),
          async ({ owner, status }, who) => {
            notes.set(100, {
              id: 100,
              title: 'random',
              ...(owner && { owner_id: ids[owner]! }),
              ...(status && { status }),
            });
            const got = answer(await as(who).get('/hidden/100'));
            const readable = (who !== 'rita' && owner === who) || (who === 'rita' && status === 'published');
            if (readable) expect(got.status).to.equal(200);
            else expect(got).to.deep.equal(missing[who]);
          },
        ),
        { numRuns: 40 },
      );
      notes.delete(100);
    });
  });

  describe("with conceal: 'read'", () => {
    it('tells a user who may read the note but not update it 403, and one who may not read it the 404 of a missing note', async () => {
      const readable = await as('rita').patch('/shared/3', { title: 'x' }).expect(403);
      expect(readable.body.code).to.equal('forbidden');
      const hidden = answer(await as('rita').patch('/shared/2', { title: 'x' }));
      expect(hidden.status).to.equal(404);
      expect(hidden).to.deep.equal(answer(await as('rita').patch(`/shared/${MISSING}`, { title: 'x' })));
    });
  });

  describe('without conceal', () => {
    it("refuses another member's note 403 and a missing one 404, as before", async () => {
      expect((await as('ada').get('/notes/2').expect(403)).body.code).to.equal('forbidden');
      expect((await as('ada').get(`/notes/${MISSING}`).expect(404)).body.code).to.equal('not_found');
    });
  });

  describe('auth.resource<T>(req)', () => {
    it('returns what the guard loaded and allowed', async () => {
      expect((await as('ada').get('/notes/1').expect(200)).body.note).to.deep.equal({
        id: 1,
        owner_id: ids['ada'],
        title: "Ada's",
      });
    });

    it('throws a TypeError naming the missing guard when none loaded a resource: a 500, the reason in the log', async () => {
      t.log.entries.length = 0;
      const response = await as('ada').get('/unguarded/1').expect(500);
      expect(response.body.code).to.equal('internal_error');
      expect(response.text).not.to.contain('require(');
      expect(t.log.text()).to.contain(
        'TypeError: auth.resource(req): no require({ action, subject, load }) guard loaded a resource for this request',
      );
    });
  });

  it('refuses conceal that makes no sense when the route is declared', () => {
    expect(() => t.auth.require({ action: 'read', subject: 'Note', conceal: true })).to.throw(
      TypeError,
      'conceal needs load',
    );
    expect(() => t.auth.require({ action: 'read', subject: 'Note', load, conceal: 1 as never })).to.throw(
      TypeError,
      'conceal is true, false or an action',
    );
    expect(() => t.auth.require({ action: 'read', subject: 'Note', conceal: false })).not.to.throw();
  });
});
