/**
 * The project tracker: routes under an organization (`/orgs/:org/…`, its id or its slug), each
 * behind `auth.orgRequired()`, so that every guard after it decides with the caller's ability in
 * that organization (their global roles and their organization roles there, bound to it). They
 * read and write through `req.em` (`auth.enforce`, in app.ts), and so hold no filter and no
 * tenant check of their own:
 *
 * - a list is `req.em.find`: the rows the caller may read, of this organization;
 * - one project or task is `req.em.findOne` by the URL's id (another organization's, or one the
 *   caller may not read, is not found), then checked by a `load` guard for what the route does;
 * - `fields: 'body'` refuses a body that sets a field the caller may not update (a member's
 *   `assignee_id`), before the body's values are read; the flush checks the rows again, and
 *   stamps a new row with the organization.
 */
import express, { Router, type Request } from 'express';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { routeContext, ValidationError, type ServiceAuth } from '../src/index.js';
import { Project, ProjectMember, Task } from './entities/index.js';
import type { DemoDatabase } from './orm.js';

/** The largest id an integer column holds (PostgreSQL's `integer`): beyond it no row can be. */
const ID_MAX = 2 ** 31 - 1;

export function projectRoutes(auth: ServiceAuth, database: DemoDatabase): Router {
  const router = Router();
  const json = express.json();
  const inOrg = auth.orgRequired();
  /** `req.em`, once the demo's database is open (on the first request that needs it). */
  const emOf = async (req: Request): Promise<EntityManager> => {
    await database.ready;
    return req.em;
  };

  // One row by the URL's id: anything but a canonical positive integer is no row, found without a query.
  const idOf = (req: Request): number | null => {
    const { id } = routeContext(req.params);
    return typeof id === 'number' && id >= 1 && id <= ID_MAX ? id : null;
  };
  const loadProject = async (req: Request) => {
    const id = idOf(req);
    return id === null ? null : (await emOf(req)).findOne(Project, id);
  };
  // With the relations the rules follow (`project.archived`, `project.members`), in the same one
  // statement: a task the caller may not see then costs what a missing one does (conceal).
  const loadTask = async (req: Request) => {
    const id = idOf(req);
    return id === null
      ? null
      : (await emOf(req)).findOne(Task, id, { populate: ['project.members'], strategy: 'joined' });
  };

  router.post(
    '/orgs/:org/projects',
    inOrg,
    json,
    auth.require({ action: 'create', subject: 'Project' }),
    async (req, res) => {
      const { name, archived } = parse(projectInput.required({ name: true }), req.body);
      const em = await emOf(req);
      // The organization's id is the flush's to set (req.em stamps a new row with it); the type asks for one.
      const project = em.create(Project, { org_id: req.org!.id, name: name!, archived: archived ?? false });
      await em.flush();
      res.status(201).json({ project: projectJson(project) });
    },
  );

  router.patch(
    '/orgs/:org/projects/:id',
    inOrg,
    json,
    auth.require({ action: 'update', subject: 'Project', load: loadProject, fields: 'body', conceal: 'read' }),
    async (req, res) => {
      const project = auth.resource<Project>(req);
      const { name, archived } = parse(projectInput, req.body);
      if (name !== undefined) project.name = name;
      if (archived !== undefined) project.archived = archived;
      await (await emOf(req)).flush();
      res.json({ project: projectJson(project) });
    },
  );

  router.get('/orgs/:org/projects', inOrg, async (req, res) => {
    const projects = await (await emOf(req)).find(Project, {}, { orderBy: { id: 'asc' } });
    res.json({ projects: projects.map(projectJson) });
  });

  // Adding someone to a project is updating the project; they must be a member of the organization.
  router.post(
    '/orgs/:org/projects/:id/members',
    inOrg,
    json,
    auth.require({ action: 'update', subject: 'Project', load: loadProject, conceal: 'read' }),
    async (req, res) => {
      const { user_id } = parse(memberInput, req.body);
      if (!(await auth.orgs.membership(req.org!.id, user_id)))
        throw new ValidationError([{ field: 'user_id', message: 'is not a member of this organization' }]);
      const em = await emOf(req);
      const project = auth.resource<Project>(req);
      if (!(await em.count(ProjectMember, { project, user_id }))) {
        em.create(ProjectMember, { project, user_id });
        // Two requests adding the same member at once: the second finds the row the first made.
        await em.flush().catch((error: unknown) => {
          if (!(error instanceof UniqueConstraintViolationException)) throw error;
        });
      }
      res.status(204).end();
    },
  );

  router.post(
    '/orgs/:org/tasks',
    inOrg,
    json,
    auth.require({ action: 'create', subject: 'Task' }),
    async (req, res) => {
      const { project_id, title, assignee_id } = parse(taskInput.required({ project_id: true, title: true }), req.body);
      const em = await emOf(req);
      // A task goes into a project the caller may read (req.em finds no other), in this organization.
      const project = await em.findOne(Project, project_id!);
      if (!project)
        throw new ValidationError([
          { field: 'project_id', message: 'is not a project of this organization that you can read' },
        ]);
      await checkAssignee(em, project, assignee_id);
      const task = em.create(Task, {
        org_id: req.org!.id,
        project,
        title: title!,
        assignee_id: assignee_id ?? null,
        done: false,
      });
      await em.flush();
      res.status(201).json({ task: taskJson(task) });
    },
  );

  router.get('/orgs/:org/tasks', inOrg, async (req, res) => {
    const tasks = await (await emOf(req)).find(Task, {}, { orderBy: { id: 'asc' } });
    res.json({ tasks: tasks.map(taskJson) });
  });

  // A task the caller may not read answers as a missing one: task ids cannot be probed.
  router.get(
    '/orgs/:org/tasks/:id',
    inOrg,
    auth.require({ action: 'read', subject: 'Task', load: loadTask, conceal: true }),
    (req, res) => {
      res.json({ task: taskJson(auth.resource<Task>(req)) });
    },
  );

  router.patch(
    '/orgs/:org/tasks/:id',
    inOrg,
    json,
    auth.require({ action: 'update', subject: 'Task', load: loadTask, fields: 'body', conceal: 'read' }),
    async (req, res) => {
      const task = auth.resource<Task>(req);
      const { title, done, assignee_id } = parse(taskInput.omit({ project_id: true }), req.body);
      const em = await emOf(req);
      if (assignee_id !== undefined) await checkAssignee(em, task.project, assignee_id);
      if (title !== undefined) task.title = title;
      if (done !== undefined) task.done = done;
      if (assignee_id !== undefined) task.assignee_id = assignee_id;
      await em.flush();
      res.json({ task: taskJson(task) });
    },
  );

  return router;
}

/** A task is assigned to a member of its project, or to nobody (null). */
async function checkAssignee(em: EntityManager, project: Project, assignee: number | null | undefined): Promise<void> {
  if (assignee === undefined || assignee === null) return;
  if (!(await em.count(ProjectMember, { project, user_id: assignee })))
    throw new ValidationError([{ field: 'assignee_id', message: 'is not a member of the project' }]);
}

function projectJson({ id, org_id, name, archived }: Project): {
  id: number;
  org_id: number;
  name: string;
  archived: boolean;
} {
  return { id, org_id, name, archived };
}

function taskJson({ id, org_id, project, title, assignee_id, done }: Task) {
  return { id, org_id, project_id: project.id, title, assignee_id: assignee_id ?? null, done };
}

/** Text of 1 to `max` characters, not blank, without NUL characters or lone surrogates. */
const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .refine((value) => value.trim() !== '', 'must not be blank')
    .refine(
      (value) => value.isWellFormed() && !value.includes('\u0000'),
      'must be text without NUL characters or lone surrogates',
    )
    .refine((value) => [...value].length <= max, `must be at most ${max} characters`);
const id = z
  .number({ error: 'must be an id (a positive integer)' })
  .int('must be an id (a positive integer)')
  .min(1, 'must be an id (a positive integer)')
  .max(ID_MAX, 'is no id');
/** Any key beyond a schema's own is refused, each named as a field of its own (parse below). */
const noOtherKey = z.never();
const OTHER_KEY = 'is not a field you can set here';

const projectInput = z
  .object({ name: text(100).optional(), archived: z.boolean({ error: 'must be true or false' }).optional() })
  .catchall(noOtherKey);
const memberInput = z.object({ user_id: id }).catchall(noOtherKey);
const taskInput = z
  .object({
    project_id: id.optional(),
    title: text(200).optional(),
    done: z.boolean({ error: 'must be true or false' }).optional(),
    assignee_id: id.nullable().optional(),
  })
  .catchall(noOtherKey);

/** The body by its schema, or a 400 `bad_request` naming every field's problem. A body that is not a JSON object is `{}`. */
function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {});
  if (!parsed.success) {
    // zod reports the keys a schema does not know as one problem of the whole body: one each here.
    const issues = parsed.error.issues.flatMap((issue): { path: readonly PropertyKey[]; message: string }[] =>
      issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ path: [key], message: OTHER_KEY })) : [issue],
    );
    throw ValidationError.fromIssues(issues);
  }
  return parsed.data;
}
