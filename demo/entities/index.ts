import { Note } from './note.js';
import { Report } from './report.js';

export { Note, Report };

/** Every entity of the demo's own MikroORM (not the package's). */
export const ENTITIES = [Report, Note];
