/**
 * Three levels of entities of the tests' own, for rules that follow relations: a `Task` whose
 * `project` may be NULL, a `Project` with a collection of `members`, a `Member` whose `user_id`
 * and `role` may be NULL; on SQLite in memory or a PostgreSQL database, filled from a `Graph` of
 * plain data.
 */
import { defineEntity, MikroORM, type InferEntity } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { createSchema, sqliteDefaults } from './orm.js';

const p = defineEntity.properties;

export const Member = defineEntity({
  name: 'Member',
  tableName: 'relation_members',
  properties: {
    id: p.integer().primary().autoincrement(false),
    project: () => p.manyToOne(Project),
    user_id: p.integer().nullable(),
    role: p.string().nullable(),
  },
});

export const Project = defineEntity({
  name: 'Project',
  tableName: 'relation_projects',
  properties: {
    id: p.integer().primary().autoincrement(false),
    archived: p.boolean().nullable(),
    score: p.integer().nullable(),
    members: () => p.oneToMany(Member).mappedBy('project'),
  },
});

export const Task = defineEntity({
  name: 'Task',
  tableName: 'relation_tasks',
  properties: {
    id: p.integer().primary().autoincrement(false),
    done: p.boolean().nullable(),
    project: () => p.manyToOne(Project).nullable(),
    /** The tenant field, for the rules of organization roles; NULL unless a test sets it. */
    org_id: p.integer().nullable(),
  },
});
export type Task = InferEntity<typeof Task>;

export interface Graph {
  projects: {
    id: number;
    archived: boolean | null;
    score: number | null;
    members: { user_id: number | null; role: string | null }[];
  }[];
  /** `project`: a project's id, or null. */
  tasks: { id: number; done: boolean | null; project: number | null; org_id?: number | null }[];
}

/** The three tables on SQLite in memory, or on the PostgreSQL database at `url`, created empty. */
export async function openGraph(url?: string): Promise<MikroORM> {
  const entities = [Task, Project, Member];
  const orm = url
    ? await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: url, entities, debug: false })
    : await MikroORM.init({ ...sqliteDefaults(':memory:'), entities, debug: false });
  await createSchema(orm);
  return orm;
}

/** Replaces the tables' rows with the graph. */
export async function storeGraph(orm: MikroORM, { projects, tasks }: Graph): Promise<void> {
  const em = orm.em.fork();
  await em.nativeDelete(Task, {});
  await em.nativeDelete(Member, {});
  await em.nativeDelete(Project, {});
  let id = 0;
  const members = projects.flatMap((project) =>
    project.members.map((member) => ({ id: ++id, project: project.id, ...member })),
  );
  if (projects.length)
    await em.insertMany(
      Project,
      projects.map(({ id, archived, score }) => ({ id, archived, score })),
    );
  if (members.length) await em.insertMany(Member, members);
  if (tasks.length) await em.insertMany(Task, tasks);
}
