import { Note } from './note.js';
import { Project, ProjectMember } from './project.js';
import { Report } from './report.js';
import { Task } from './task.js';

export { Note, Project, ProjectMember, Report, Task };

/** Every entity of the demo's own MikroORM (not the package's). */
export const ENTITIES = [Report, Note, Project, ProjectMember, Task];
