/** `/api/identities`: the caller's linked identity providers (docs/sso.md), with a session from this site. */
import { Router, type RequestHandler } from 'express';
import type { SsoActions } from '../actions/sso.js';

export function identitiesApi(actions: SsoActions, loginRequired: RequestHandler): Router {
  const api = Router();
  api.get('/', loginRequired, async (req, res) => {
    res.json({ identities: await actions.list(req) });
  });
  api.delete('/:id', loginRequired, async (req, res) => {
    await actions.unlink(req);
    res.status(204).end();
  });
  return api;
}
