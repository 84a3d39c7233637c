/**
 * The account endpoints for API clients, in JSON: register, login, logout, me, forgot and reset,
 * and the confirmation links' (confirm, confirm/resend, confirm-email).
 */
import { Router } from 'express';
import type { CredentialResolver } from '../../authentication/credentials.js';
import { AuthError } from '../../errors.js';
import type { Passkeys } from '../../mfa/passkeys.js';
import type { AccountActions } from '../actions/account.js';
import type { EndpointChecks } from '../actions/checks.js';

export interface AccountApiDeps {
  actions: AccountActions;
  checks: EndpointChecks;
  credentials: CredentialResolver;
  passkeys: Pick<Passkeys, 'authenticationOptions'>;
}

const FORGOT_MESSAGE = 'If an account exists for that email, a link to reset its password is on its way.';
const RESET_MESSAGE = 'Your password has been changed. Log in with the new one.';
export const REGISTER_MESSAGE = 'Check your mail: a link to confirm the address is on its way.';
const RESEND_MESSAGE = 'If that address has an account awaiting confirmation, a new link is on its way.';

export function accountApi({ actions, checks, credentials, passkeys }: AccountApiDeps): Router {
  const router = Router();

  router.get('/me', async (req, res) => {
    const found = await credentials.resolve(req);
    if (!found) throw new AuthError('unauthenticated', 'Log in to see this');
    res.json({ user: found.user });
  });

  router.post('/register', ...checks.register, async (req, res) => {
    const user = await actions.register(req, res);
    // With SERVICE_AUTH_EMAIL_CONFIRMATION on, the same answer for every address.
    if (user) res.status(201).json({ user });
    else res.status(202).json({ message: REGISTER_MESSAGE });
  });

  router.post('/login', ...checks.login, async (req, res) => {
    res.json({ user: await actions.login(req, res) });
  });

  router.post('/login/mfa', ...checks.login, async (req, res) => {
    res.json({ user: await actions.loginSecondStep(req, res) });
  });

  router.post('/login/mfa/passkey/options', ...checks.login, async (req, res) => {
    res.json(await actions.secondStepPasskeyOptions(req));
  });

  router.post('/login/passkey/options', ...checks.login, async (_req, res) => {
    res.json(await passkeys.authenticationOptions());
  });

  router.post('/login/passkey', ...checks.login, async (req, res) => {
    res.json({ user: await actions.loginWithPasskey(req, res) });
  });

  router.post('/logout', async (req, res) => {
    await actions.logout(req, res);
    res.status(204).end();
  });

  router.post('/forgot', ...checks.forgot, (req, res) => {
    actions.forgot(req);
    res.status(202).json({ message: FORGOT_MESSAGE });
  });

  router.post('/reset', ...checks.reset, async (req, res) => {
    await actions.reset(req);
    res.json({ message: RESET_MESSAGE });
  });

  router.post('/confirm', ...checks.confirm, async (req, res) => {
    res.json({ user: await actions.confirm(req) });
  });

  router.post('/confirm/resend', ...checks.resend, (req, res) => {
    actions.resendConfirmation(req);
    res.status(202).json({ message: RESEND_MESSAGE });
  });

  return router;
}
