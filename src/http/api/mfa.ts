/** `/api/mfa`: the caller’s second factor (docs/mfa.md), with a session from this site. */
import { Router, type RequestHandler } from 'express';
import type { MfaActions } from '../actions/mfa.js';

export function mfaApi(actions: MfaActions, loginRequired: RequestHandler): Router {
  const api = Router();
  api.get('/', loginRequired, async (req, res) => {
    res.json(await actions.state(req));
  });
  api.post('/totp', loginRequired, async (req, res) => {
    res.json(await actions.beginTotp(req));
  });
  api.post('/totp/confirm', loginRequired, async (req, res) => {
    res.json({ recovery_codes: await actions.confirmTotp(req) });
  });
  api.delete('/totp', loginRequired, async (req, res) => {
    await actions.removeTotp(req);
    res.status(204).end();
  });
  return api;
}
