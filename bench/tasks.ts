/**
 * The routes of the figures for rules that follow relations, on data of the bench's own: tasks
 * (`bench_tasks`) of projects (`bench_projects`) with members (`bench_project_members`), in a
 * MikroORM instance of its own on the bench's database, and a role whose one rule lets a user read
 * the tasks of the projects they are a member of (`project.members.user_id`).
 *
 * - `/task-guarded/:id` is `auth.require({ action: 'read', subject: 'BenchTask', load })`, which
 *   populates `project.members` before it checks; `/task-handwritten/:id`, behind
 *   `auth.loginRequired`, does the same load, `em.populate(task, ['project.members'])` and the
 *   membership check by hand. Both answer `{ id, title }`.
 * - `/tasks-accessible` and `/tasks-handwritten`, both behind `auth.loginRequired`, list a page of
 *   the user's tasks with the same `em.find`: the filter from `auth.accessibleBy(…, { em })`, or
 *   `{ project: { members: { $some: { user_id } } } }` written by hand.
 */
import { defineEntity, MikroORM, type FindOptions, type InferEntity } from '@mikro-orm/core';
import type { Express, Request } from 'express';
import type { ServiceAuth } from '../dist/src/index.js';
import { ormOptions } from '../dist/src/storage/orm.js';

const p = defineEntity.properties;

const BenchMember = defineEntity({
  name: 'BenchMember',
  tableName: 'bench_project_members',
  properties: {
    id: p.integer().primary().autoincrement(),
    project: () => p.manyToOne(BenchProject),
    user_id: p.integer().index(),
  },
});

const BenchProject = defineEntity({
  name: 'BenchProject',
  tableName: 'bench_projects',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(100),
    members: () => p.oneToMany(BenchMember).mappedBy('project'),
  },
});

const BenchTask = defineEntity({
  name: 'BenchTask',
  tableName: 'bench_tasks',
  properties: {
    id: p.integer().primary().autoincrement(),
    project: () => p.manyToOne(BenchProject).nullable().index(),
    title: p.string().length(100),
  },
});
type BenchTask = InferEntity<typeof BenchTask>;

export const TASK_READER = 'bench_task_reader';
/** Projects, each with this many members, one in PROJECTS_PER_MEMBER of them the bench user; tasks spread over the projects. */
export const PROJECTS = 200;
const MEMBERS = 5;
const PROJECTS_PER_MEMBER = 5;
export const TASKS = 2000;
export const TASK_PAGE = 50;
const LIST: FindOptions<BenchTask> = { orderBy: { id: 'asc' }, limit: TASK_PAGE };

export interface BenchTasks {
  /** Fills the tables and returns one of the user's tasks; checks that the two list filters list the same rows. */
  seed(user: Express.User): Promise<{ taskId: number; accessibleTasks: string }>;
  close(): Promise<void>;
}

/** Defines the role, opens the bench's own ORM, creates the tables and mounts the routes (before the error handler). */
export async function benchTasks(app: Express, auth: ServiceAuth, databaseUrl: string): Promise<BenchTasks> {
  auth.defineRole(TASK_READER, [
    { action: 'read', subject: 'BenchTask', conditions: { 'project.members.user_id': '${user.id}' } },
  ]);
  const orm = await MikroORM.init({
    ...(await ormOptions(databaseUrl)),
    entities: [BenchTask, BenchProject, BenchMember],
    extensions: [],
    migrations: {},
    contextName: 'bench-tasks',
  });
  await orm.schema.createSchema();

  // The one load both task routes do: a fresh fork per request, so every request queries.
  const load = (req: Request) => orm.em.fork().findOne(BenchTask, { id: Number(req.params['id']) });
  app.get('/task-guarded/:id', auth.require({ action: 'read', subject: 'BenchTask', load }), (req, res) => {
    const task = req.resource as BenchTask;
    res.json({ id: task.id, title: task.title });
  });
  app.get('/task-handwritten/:id', auth.loginRequired, async (req, res) => {
    const em = orm.em.fork();
    const task = await em.findOne(BenchTask, { id: Number(req.params['id']) });
    if (!task) return void res.status(404).json({ title: 'No such BenchTask' });
    await em.populate(task, ['project.members']);
    if (!task.project?.members.getItems().some((member) => member.user_id === req.user!.id))
      return void res.status(403).json({ title: 'Forbidden' });
    res.json({ id: task.id, title: task.title });
  });

  const accessible = (user: Express.User) => auth.accessibleBy<BenchTask>(user, 'read', 'BenchTask', { em: orm.em });
  const handWritten = (user: Express.User) => ({ project: { members: { $some: { user_id: user.id } } } });
  app.get('/tasks-accessible', auth.loginRequired, async (req, res) => {
    res.json(await orm.em.fork().find(BenchTask, accessible(req.user!), LIST));
  });
  app.get('/tasks-handwritten', auth.loginRequired, async (req, res) => {
    res.json(await orm.em.fork().find(BenchTask, handWritten(req.user!), LIST));
  });

  return {
    async seed(user) {
      const em = orm.em.fork();
      // The other members need no account: the tables are the bench's own, without a foreign key to users.
      const projects = Array.from({ length: PROJECTS }, (_, i) => ({ id: i + 1, name: `project ${i}` }));
      await em.insertMany<InferEntity<typeof BenchProject>>(BenchProject, projects);
      const members = projects.flatMap(({ id }) =>
        Array.from({ length: MEMBERS }, (_, m) => ({
          project: id,
          user_id: m === 0 && id % PROJECTS_PER_MEMBER === 0 ? user.id : 1_000_000 + id * MEMBERS + m,
        })),
      );
      await em.insertMany(BenchMember, members);
      await em.insertMany(
        BenchTask,
        Array.from({ length: TASKS }, (_, i) => ({ project: (i % PROJECTS) + 1, title: `task ${i}` })),
      );
      const task = await em.findOneOrFail(BenchTask, { project: PROJECTS_PER_MEMBER }, { orderBy: { id: 'asc' } });
      // What the two list routes compare must be the same query result, or the figure means nothing.
      const filter = accessible(user);
      const ids = async (where: object) =>
        (await orm.em.fork().find(BenchTask, where, LIST)).map((row) => row.id).join();
      const [generated, written] = [await ids(filter), await ids(handWritten(user))];
      if (generated !== written || written.split(',').length !== TASK_PAGE) {
        throw new Error(
          `bench tasks: accessibleBy's filter ${JSON.stringify(filter)} and the hand-written one list different rows`,
        );
      }
      return { taskId: task.id, accessibleTasks: JSON.stringify(filter) };
    },
    close: () => orm.close(),
  };
}
