import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * A project of an organization (`org_id`, the tenant field every organization role is bound to).
 * Its `members` are the users who work on it: the org role `member` reads the projects that list
 * them (`members.user_id`), and the tasks of those projects (`project.members.user_id`).
 */
export const Project = defineEntity({
  name: 'Project',
  tableName: 'demo_projects',
  properties: {
    id: p.integer().primary().autoincrement(),
    org_id: p.integer().index(),
    name: p.string().length(100),
    archived: p.boolean().default(false),
    members: () => p.oneToMany(ProjectMember).mappedBy('project'),
  },
});

export type Project = InferEntity<typeof Project>;

/** A user working on a project: one row per (project, user), with an id of its own for MikroORM. */
export const ProjectMember = defineEntity({
  name: 'ProjectMember',
  tableName: 'demo_project_members',
  uniques: [{ properties: ['project', 'user_id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    project: () => p.manyToOne(Project),
    user_id: p.integer().index(),
  },
});

export type ProjectMember = InferEntity<typeof ProjectMember>;
