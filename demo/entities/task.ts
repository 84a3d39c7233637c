import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { Project } from './project.js';

const p = defineEntity.properties;

/**
 * A task of a project, in the project's organization (`org_id`, kept beside `project` so that the
 * tenant condition is a column of the task itself). Rules follow `project` to its `archived` flag
 * and its `members`.
 */
export const Task = defineEntity({
  name: 'Task',
  tableName: 'demo_tasks',
  properties: {
    id: p.integer().primary().autoincrement(),
    org_id: p.integer().index(),
    project: () => p.manyToOne(Project).index(),
    title: p.string().length(200),
    assignee_id: p.integer().nullable(),
    done: p.boolean().default(false),
  },
});

export type Task = InferEntity<typeof Task>;
