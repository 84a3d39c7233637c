/**
 * The demo's routes where authorization sees the resource, on the real demo (`npm start`): the
 * reports a user may read, notes guarded on the note itself and on the fields a request sets, and
 * the role every registration gets. Users: two members who registered over HTTP, an analyst, an
 * admin and a user without roles, made by an operator on the demo's database.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { startDemo, type RunningDemo } from '../helpers/processes.js';
import { DemoClient } from './demo-client.js';

const NORTH = [
  { id: 1, team: 'north', title: 'North plan' },
  { id: 2, team: 'north', title: 'North budget' },
];
const SOUTH = [
  { id: 3, team: 'south', title: 'South plan' },
  { id: 4, team: 'south', title: 'South budget' },
];

describe('demo: authorization that sees the resource', () => {
  let dir: string;
  let demo: RunningDemo;
  let operator: TestApp;
  let client: DemoClient;
  const ids: Record<string, number> = {};
  const registeredRoles: Record<string, string[]> = {};
  const [mia, max, ann, boss, plain] = ['mia', 'max', 'ann', 'boss', 'plain'].map((name) => `${name}@example.com`) as [
    string,
    string,
    string,
    string,
    string,
  ];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'service-auth-demo-'));
    demo = await startDemo(dir);
    client = new DemoClient(demo.url);
    operator = await createTestApp({ SERVICE_AUTH_DATABASE_URL: `sqlite:${join(dir, 'service-auth.sqlite')}` });
    for (const [email, roles, isAdmin] of [
      [ann, ['analyst'], false],
      [boss, ['admin'], true],
      [plain, [], false],
    ] as const) {
      ids[email] = (await operator.auth.users.create({ email, password: PASSWORD, roles, isAdmin })).id;
      await client.login(email);
    }
    for (const email of [mia, max]) {
      const user = await client.register(email);
      ids[email] = user.id;
      registeredRoles[email] = user.roles;
    }
  });

  after(async () => {
    await operator?.auth.close();
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives everyone who registers the role member (SERVICE_AUTH_DEFAULT_ROLES)', async () => {
    expect(registeredRoles).to.deep.equal({ [mia]: ['member'], [max]: ['member'] });
    expect((await operator.auth.users.findByEmail(mia))!.roles).to.deep.equal(new Set(['member']));
    expect(
      (await operator.auth.users.findByEmail(plain))!.roles.size,
      'users made otherwise keep their roles',
    ).to.equal(0);
  });

  describe('GET /reports: the rows accessibleBy(req, "read", "Report") selects, by id', () => {
    it('an analyst: the two north reports', async () => {
      expect(await client.get('/reports', ann)).to.deep.include({ status: 200, body: { reports: NORTH } });
    });

    it('an admin: all four', async () => {
      expect(await client.get('/reports', boss)).to.deep.include({
        status: 200,
        body: { reports: [...NORTH, ...SOUTH] },
      });
    });

    it('a member, and a user without roles: none', async () => {
      expect(await client.get('/reports', mia)).to.deep.include({ status: 200, body: { reports: [] } });
      expect(await client.get('/reports', plain)).to.deep.include({ status: 200, body: { reports: [] } });
    });

    it('nobody logged in: 401', async () => {
      expect((await client.get('/reports')).status).to.equal(401);
    });
  });

  describe('notes', () => {
    let own: number;
    let others: number;

    before(async () => {
      const created = await client.call('POST', '/notes', mia, { title: 'Groceries', body: 'eggs, milk' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      own = created.body.id;
      others = (await client.call('POST', '/notes', max, { title: 'Max', body: '' })).body.id;
    });

    it('POST /notes creates a note owned by the caller: 201 with it, and where it is', async () => {
      const created = await client.call('POST', '/notes', mia, { title: 'Ideas', body: 'a demo' });
      expect(created.status).to.equal(201);
      expect(created.body).to.deep.equal({ id: created.body.id, owner_id: ids[mia], title: 'Ideas', body: 'a demo' });
      expect(created.headers.get('location')).to.equal(`/notes/${created.body.id}`);
    });

    it('POST /notes checks title (1 to 200 characters) and body (up to 10,000): 400 bad_request naming the fields', async () => {
      const refused = async (body: unknown) => {
        const answer = await client.call('POST', '/notes', mia, body);
        expect(answer.status, JSON.stringify(body)).to.equal(400);
        expect(answer.body.code).to.equal('bad_request');
        return answer.body.errors.map((error: { field: string }) => error.field);
      };
      expect(await refused({})).to.deep.equal(['title', 'body']);
      expect(await refused({ title: '', body: 'x' })).to.deep.equal(['title']);
      expect(await refused({ title: 'x'.repeat(201), body: 7 })).to.deep.equal(['title', 'body']);
      expect(await refused({ title: 'x', body: 'y'.repeat(10_001) })).to.deep.equal(['body']);
      expect(await refused({ title: 'x', body: 'y', owner_id: ids[max] })).to.deep.equal(['owner_id']);
      expect(
        (await client.call('POST', '/notes', mia, { title: 'x'.repeat(200), body: 'y'.repeat(10_000) })).status,
      ).to.equal(201);
      expect((await client.call('POST', '/notes', undefined, { title: 'x', body: 'y' })).status).to.equal(401);
    });

    it('GET /notes/:id: 200 for its owner, 403 for another member, 404 for a note that is not there', async () => {
      expect(await client.get(`/notes/${own}`, mia)).to.deep.include({
        status: 200,
        body: { id: own, owner_id: ids[mia], title: 'Groceries', body: 'eggs, milk' },
      });
      const refused = await client.get(`/notes/${own}`, max);
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('forbidden');
      for (const id of ['999999', 'abc', '0', '07', '99999999999']) {
        const missing = await client.get(`/notes/${id}`, mia);
        expect(missing.status, id).to.equal(404);
        expect(missing.body.code).to.equal('not_found');
      }
    });

    it('GET /notes/:id: an admin reads any; a user without roles is refused 403 before anything is looked up', async () => {
      expect((await client.get(`/notes/${own}`, boss)).status).to.equal(200);
      expect((await client.get(`/notes/${own}`, plain)).status).to.equal(403);
      expect((await client.get('/notes/999999', plain)).status).to.equal(403);
      expect((await client.get(`/notes/${own}`)).status).to.equal(401);
    });

    it('PATCH /notes/:id: its owner changes title and body; another member 403; a missing note 404', async () => {
      const changed = await client.call('PATCH', `/notes/${own}`, mia, { title: 'Shopping' });
      expect(changed).to.deep.include({
        status: 200,
        body: { id: own, owner_id: ids[mia], title: 'Shopping', body: 'eggs, milk' },
      });
      expect((await client.get(`/notes/${own}`, mia)).body.title).to.equal('Shopping');

      expect((await client.call('PATCH', `/notes/${own}`, max, { title: 'Mine now' })).status).to.equal(403);
      expect((await client.call('PATCH', `/notes/${others}`, mia, { body: 'hello' })).status).to.equal(403);
      expect((await client.call('PATCH', '/notes/999999', mia, { title: 'x' })).status).to.equal(404);
      expect((await client.call('PATCH', '/notes/abc', mia, { title: 'x' })).status).to.equal(404);
      expect((await client.get(`/notes/${others}`, max)).body).to.include({ title: 'Max', body: '' });
    });

    it('PATCH /notes/:id with owner_id in the body: 403 naming owner_id, and nothing changes', async () => {
      const refused = await client.call('PATCH', `/notes/${own}`, mia, { title: 'Gift', owner_id: ids[max] });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ code: 'forbidden' });
      expect(refused.body.detail).to.contain('owner_id');
      expect(refused.body.errors).to.deep.equal([{ field: 'owner_id', message: 'you may not update this field' }]);
      expect((await client.get(`/notes/${own}`, mia)).body).to.include({ owner_id: ids[mia], title: 'Shopping' });
    });

    it('PATCH /notes/:id checks the values too: 400 for a title too long', async () => {
      const refused = await client.call('PATCH', `/notes/${own}`, mia, { title: 'x'.repeat(201) });
      expect(refused.status).to.equal(400);
      expect(refused.body.errors.map((error: { field: string }) => error.field)).to.deep.equal(['title']);
    });

    it("an analyst is a member too (role analyst includes member): their own notes, not another's", async () => {
      const created = await client.call('POST', '/notes', ann, { title: 'Analysis', body: 'north is up' });
      expect(created.status).to.equal(201);
      expect((await client.get(`/notes/${created.body.id}`, ann)).status).to.equal(200);
      expect((await client.call('PATCH', `/notes/${created.body.id}`, ann, { body: 'north is down' })).status).to.equal(
        200,
      );
      expect((await client.get(`/notes/${own}`, ann)).status).to.equal(403);
    });
  });

  describe('PATCH /users/:user_id: every field the body sets must be one the user may update', () => {
    it('a member on their own id, setting email (and password): 200 with the sorted fields', async () => {
      expect(await client.call('PATCH', `/users/${ids[mia]}`, mia, { email: 'new@example.com' })).to.deep.include({
        status: 200,
        body: { user_id: ids[mia], fields: ['email'] },
      });
      expect((await client.call('PATCH', `/users/${ids[mia]}`, mia, { password: 'x', email: 'y' })).body).to.deep.equal(
        { user_id: ids[mia], fields: ['email', 'password'] },
      );
    });

    it('a member setting is_admin on their own id: 403 naming is_admin', async () => {
      const refused = await client.call('PATCH', `/users/${ids[mia]}`, mia, {
        email: 'new@example.com',
        is_admin: true,
      });
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('forbidden');
      expect(refused.body.errors).to.deep.equal([{ field: 'is_admin', message: 'you may not update this field' }]);
    });

    it("a member on another user's id: 403 whatever the body", async () => {
      for (const body of [{ email: 'new@example.com' }, {}, { is_admin: true }]) {
        expect((await client.call('PATCH', `/users/${ids[max]}`, mia, body)).status, JSON.stringify(body)).to.equal(
          403,
        );
      }
    });

    it('an admin may set anything on anyone; a user without roles nothing, not even on their own id', async () => {
      expect(
        (await client.call('PATCH', `/users/${ids[mia]}`, boss, { is_admin: true, email: 'x' })).body,
      ).to.deep.equal({ user_id: ids[mia], fields: ['email', 'is_admin'] });
      expect((await client.call('PATCH', `/users/${ids[plain]}`, plain, { email: 'x' })).status).to.equal(403);
    });
  });
});
