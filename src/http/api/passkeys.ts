/** `/api/passkeys`: the caller's passkeys (docs/mfa.md), with a session from this site. */
import { Router, type RequestHandler } from 'express';
import type { MfaActions } from '../actions/mfa.js';

export function passkeysApi(actions: MfaActions, loginRequired: RequestHandler): Router {
  const api = Router();
  api.get('/', loginRequired, async (req, res) => {
    res.json({ passkeys: await actions.passkeys(req) });
  });
  api.post('/options', loginRequired, async (req, res) => {
    res.json(await actions.passkeyOptions(req));
  });
  api.post('/', loginRequired, async (req, res) => {
    res.status(201).json({ passkey: await actions.addPasskey(req) });
  });
  api.delete('/:id', loginRequired, async (req, res) => {
    await actions.removePasskey(req, String(req.params['id']));
    res.status(204).end();
  });
  return api;
}
