/** `/api/sessions`: the caller's own sessions (a session, not a token, manages them). */
import { Router, type RequestHandler } from 'express';
import type { SessionActions } from '../actions/sessions.js';

export function sessionsApi(actions: SessionActions, loginRequired: RequestHandler): Router {
  const api = Router();
  api.get('/', loginRequired, async (req, res) => {
    res.json({ sessions: await actions.list(req) });
  });
  api.delete('/', loginRequired, async (req, res) => {
    await actions.endOthers(req);
    res.status(204).end();
  });
  api.delete('/:id', loginRequired, async (req, res) => {
    await actions.end(req, res, String(req.params['id']));
    res.status(204).end();
  });
  return api;
}
