/**
 * The `load` guard with rules that follow relations (CONTRACT-3 §21): it populates, on the MikroORM
 * entity `load` found, the relations the rules for the action name before it checks, and reads
 * them as CASL and `accessibleBy` do; on a plain object, a relation that is missing denies. And
 * `can` refuses to read a relation that is not loaded rather than decide on nothing.
 */
import { expect } from 'chai';
import { subject } from '@casl/ability';
import type { MikroORM } from '@mikro-orm/core';
import express, { type Request } from 'express';
import request from 'supertest';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { onStatement } from '../helpers/orm.js';
import { openGraph, storeGraph, Task } from '../helpers/task-graph.js';

describe('require({ load }) with rules that follow relations', () => {
  let t: TestApp;
  let orm: MikroORM;
  let statements = 0;
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};
  /** Plain objects for the routes under /plain: tasks by id. */
  const plain = new Map<number, object>();

  before(async () => {
    orm = await openGraph();
    await onStatement(orm.em, () => void statements++);
    const find = (req: Request, populate: boolean) =>
      orm.em.fork().findOne(Task, Number(req.params['id']), populate ? { populate: ['project.members'] } : {});
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      auth.defineRole('member', [
        { action: 'read', subject: 'Task', conditions: { 'project.members.user_id': '${user.id}' } },
        {
          action: 'read',
          subject: 'Task',
          inverted: true,
          conditions: { 'project.members': { $elemMatch: { user_id: '${user.id}', role: 'guest' } } },
          reason: 'Guests read no tasks',
        },
      ]);
      auth.defineRole('viewer', [
        { action: 'read', subject: 'Task', conditions: { 'project.archived': { $ne: true } } },
      ]);
      app.use(express.json());
      app.get(
        '/tasks/:id',
        auth.require({ action: 'read', subject: 'Task', load: (req) => find(req, false) }),
        (req, res) => res.json({ id: (req.resource as Task).id }),
      );
      app.get(
        '/populated/:id',
        auth.require({ action: 'read', subject: 'Task', load: (req) => find(req, true) }),
        (req, res) => res.json({ id: (req.resource as Task).id }),
      );
      app.get(
        '/plain/:id',
        auth.require({ action: 'read', subject: 'Task', load: (req) => plain.get(Number(req.params['id'])) ?? null }),
        (_req, res) => res.json({}),
      );
    });
    for (const [name, roles] of [
      ['ada', ['member']],
      ['bob', ['member']],
      ['vic', ['viewer']],
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
    await storeGraph(orm, {
      projects: [
        {
          id: 1,
          archived: false,
          score: null,
          members: [
            { user_id: ids['ada']!, role: 'dev' },
            { user_id: ids['bob']!, role: 'guest' },
          ],
        },
        { id: 2, archived: true, score: null, members: [{ user_id: ids['ada']!, role: 'dev' }] },
        { id: 3, archived: null, score: null, members: [] },
      ],
      tasks: [
        { id: 1, done: false, project: 1 },
        { id: 2, done: false, project: 2 },
        { id: 3, done: false, project: 3 },
        { id: 4, done: false, project: null },
      ],
    });
  });
  after(async () => {
    await t.auth.close();
    await orm.close();
  });

  const get = (who: string, path: string) => request(t.app).get(path).set('Cookie', cookies[who]!);

  it('populates project.members before checking: a member reads the tasks of their projects, and no other', async () => {
    await get('ada', '/tasks/1').expect(200);
    await get('ada', '/tasks/2').expect(200);
    expect((await get('ada', '/tasks/3').expect(403)).body.code).to.equal('forbidden');
    await get('ada', '/tasks/4').expect(403);
    await get('ada', '/tasks/9').expect(404);
  });

  it('applies an inverted $elemMatch rule on the populated collection, with its reason', async () => {
    expect((await get('bob', '/tasks/1').expect(403)).body.detail).to.equal('Guests read no tasks');
  });

  it('reads a NULL to-one relation as CASL and accessibleBy do: a task without a project is not in an archived one', async () => {
    await get('vic', '/tasks/1').expect(200);
    await get('vic', '/tasks/2').expect(403);
    await get('vic', '/tasks/3').expect(200);
    await get('vic', '/tasks/4').expect(200);
    const allowed = (
      await orm.em
        .fork()
        .find(
          Task,
          t.auth.accessibleBy(
            { id: ids['vic']!, email: 'vic@example.com', is_admin: false, roles: ['viewer'] },
            'read',
            'Task',
            { em: orm.em },
          ),
        )
    ).map((task) => task.id);
    expect(allowed.sort()).to.deep.equal([1, 3, 4]);
  });

  it('loads the relations in one statement after the task, and in none when load populated them already', async () => {
    let before = statements;
    await get('ada', '/tasks/1').expect(200);
    expect(statements - before, 'the task, then its project with its members').to.equal(2);
    before = statements;
    await get('ada', '/populated/1').expect(200);
    const populated = statements - before;
    before = statements;
    await orm.em.fork().findOne(Task, 1, { populate: ['project.members'] });
    expect(populated, 'as many as the populated load alone').to.equal(statements - before);
  });

  it('on a plain object, a relation that is missing denies, and a NULL one is read as CASL reads it', async () => {
    plain.set(1, { id: 1, project: { archived: false, members: [{ user_id: ids['ada'] }] } });
    plain.set(2, { id: 2 });
    plain.set(3, { id: 3, project: null });
    plain.set(4, { id: 4, project: { archived: false } });
    await get('ada', '/plain/1').expect(200);
    await get('ada', '/plain/2').expect(403);
    await get('vic', '/plain/2').expect(403);
    await get('vic', '/plain/3').expect(200);
    await get('ada', '/plain/4').expect(403);
  });

  it('can() throws on a relation that is not loaded, naming it, rather than decide on nothing', async () => {
    const ability = t.auth.abilityFor({
      id: ids['ada']!,
      email: 'ada@example.com',
      is_admin: false,
      roles: ['member'],
    });
    const task = await orm.em.fork().findOneOrFail(Task, 1);
    expect(() => ability.can('read', subject('Task', task))).to.throw(/Task\.project is not loaded/);
    const loaded = await orm.em.fork().findOneOrFail(Task, 1, { populate: ['project'] });
    expect(() => ability.can('read', subject('Task', loaded))).to.throw(/Project\.members is not loaded/);
  });
});
