/**
 * The logged-in user's own account, for API clients: `POST /password`, `POST /email`,
 * `DELETE /me` (each with a session and the password again), and `POST /confirm-email` (the link
 * mailed to the new address, no session needed).
 */
import { Router, type RequestHandler } from 'express';
import type { EndpointChecks } from '../actions/checks.js';
import type { ProfileActions } from '../actions/profile.js';

export interface ProfileApiDeps {
  actions: ProfileActions;
  checks: EndpointChecks;
  loginRequired: RequestHandler;
}

export const EMAIL_CHANGE_MESSAGE = 'A link to confirm the change is on its way to the new address.';

export function profileApi({ actions, checks, loginRequired }: ProfileApiDeps): Router {
  const router = Router();

  router.post('/password', loginRequired, async (req, res) => {
    res.json({ user: await actions.changePassword(req, res) });
  });

  router.post('/email', loginRequired, ...checks.email, async (req, res) => {
    await actions.requestEmailChange(req);
    res.status(202).json({ message: EMAIL_CHANGE_MESSAGE });
  });

  router.post('/confirm-email', ...checks.confirm, async (req, res) => {
    res.json({ user: await actions.confirmEmailChange(req) });
  });

  router.delete('/me', loginRequired, async (req, res) => {
    await actions.deleteAccount(req, res);
    res.status(204).end();
  });

  return router;
}
