/**
 * The demo's routes on its own entities, where authorization sees the resource: the reports a
 * request may read (`accessibleBy` as a query), and notes guarded on the note itself
 * (`require({ load })`) and on the fields a request sets (`fields: 'body'`). Every route decides
 * with the request's ability, so a token's scopes (policies/scopes.json) bind them all.
 */
import express, { Router, type Request } from 'express';
import { routeContext, ValidationError, type ServiceAuth } from '../src/index.js';
import { Note, Report } from './entities/index.js';
import type { DemoDatabase } from './orm.js';

const TITLE_MAX = 200;
const BODY_MAX = 10_000;
/** The largest id an integer column holds (PostgreSQL's `integer`): beyond it no note can be. */
const ID_MAX = 2 ** 31 - 1;

export function resourceRoutes(auth: ServiceAuth, database: DemoDatabase): Router {
  const router = Router();
  const json = express.json();

  router.get('/reports', auth.loginRequired, async (req, res) => {
    const em = await database.em(req);
    // By the request, not its user: a token decides within its scopes (a token without `reports:read` sees none).
    const reports = await em.find(Report, auth.accessibleBy<Report>(req, 'read', 'Report'), { orderBy: { id: 'asc' } });
    res.json({ reports: reports.map(({ id, team, title }) => ({ id, team, title })) });
  });

  router.post('/notes', auth.require({ action: 'create', subject: 'Note' }), json, async (req, res) => {
    const { title, body } = noteInput(req.body, { required: true });
    const em = await database.em(req);
    const note = em.create(Note, { owner_id: req.user!.id, title: title!, body: body! });
    await em.flush();
    res.status(201).location(`/notes/${note.id}`).json(noteJson(note));
  });

  // A note id is a canonical positive integer: anything else is no note, found without a query.
  const load = async (req: Request) => {
    const { id } = routeContext(req.params);
    return typeof id === 'number' && id >= 1 && id <= ID_MAX ? (await database.em(req)).findOne(Note, { id }) : null;
  };

  router.get('/notes/:id', auth.require({ action: 'read', subject: 'Note', load }), (req, res) => {
    res.json(noteJson(req.resource as Note));
  });

  router.patch(
    '/notes/:id',
    json,
    auth.require({ action: 'update', subject: 'Note', load, fields: 'body' }),
    async (req, res) => {
      const note = req.resource as Note;
      const { title, body } = noteInput(req.body, { required: false });
      if (title !== undefined) note.title = title;
      if (body !== undefined) note.body = body;
      await (await database.em(req)).flush();
      res.json(noteJson(note));
    },
  );

  return router;
}

function noteJson({ id, owner_id, title, body }: Note): { id: number; owner_id: number; title: string; body: string } {
  return { id, owner_id, title, body };
}

/**
 * A note's `title` (1 to 200 characters, not blank) and `body` (up to 10,000), both required to
 * create one; any other key is refused. A body that is not a JSON object sets nothing.
 */
function noteInput(input: unknown, { required }: { required: boolean }): { title?: string; body?: string } {
  const fields: Record<string, unknown> =
    input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const errors: { field: string; message: string }[] = [];
  const text = (field: 'title' | 'body', min: number, max: number): string | undefined => {
    const value = fields[field];
    if (value === undefined) {
      if (required) errors.push({ field, message: 'is required' });
      return undefined;
    }
    const problem =
      typeof value !== 'string'
        ? 'must be a string'
        : !value.isWellFormed() || value.includes('\u0000')
          ? 'must be text without NUL characters or lone surrogates'
          : [...value].length > max
            ? `must be at most ${max.toLocaleString('en')} characters`
            : min > 0 && value.trim() === ''
              ? 'must not be blank'
              : undefined;
    if (problem) errors.push({ field, message: problem });
    return value as string;
  };
  const title = text('title', 1, TITLE_MAX);
  const body = text('body', 0, BODY_MAX);
  for (const field of Object.keys(fields)) {
    if (field !== 'title' && field !== 'body') errors.push({ field, message: 'is not a field of a note you can set' });
  }
  if (errors.length) throw new ValidationError(errors);
  return { title, body };
}
