/**
 * `/api/impersonation`: acting as another user (docs/impersonation.md), from a logged-in session.
 * `POST { user_id }` starts (201 `{ user, impersonator }`), `DELETE` stops (200 `{ user }`, the
 * impersonator again). What may be done meanwhile is requests/impersonation-limits.ts's to decide.
 */
import { Router, type RequestHandler } from 'express';
import type { Impersonation } from '../../impersonation/impersonation.js';
import { impersonationSchemas } from '../schemas/impersonation.js';
import { parseBody } from '../schemas/parse.js';

export function impersonationApi(impersonation: Pick<Impersonation, 'start' | 'stop'>, loginRequired: RequestHandler): Router {
  const api = Router();
  api.post('/', loginRequired, async (req, res) => {
    const { user_id } = parseBody(impersonationSchemas.start, req);
    res.status(201).json(await impersonation.start(req, res, user_id));
  });
  api.delete('/', loginRequired, async (req, res) => {
    res.json({ user: await impersonation.stop(req, res) });
  });
  return api;
}
