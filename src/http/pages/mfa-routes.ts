/**
 * `GET /mfa` and its forms for people with browsers, and the login's second step as a form. HTML
 * forms post to routes of the pages' own (`/mfa/totp`, `/mfa/totp/confirm`, `/mfa/totp/remove`)
 * and to `/login/mfa`, as the JSON API; anything but a browser's form goes on to the JSON routers.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { SecondStepMethod } from '../../errors.js';
import type { TotpSetup } from '../../mfa/second-factor.js';
import type { AccountActions } from '../actions/account.js';
import type { EndpointChecks } from '../actions/checks.js';
import type { MfaActions } from '../actions/mfa.js';
import { textField } from '../requests/input.js';
import { browserFormsOnly, optionalNext, safeNext } from '../requests/negotiation.js';
import { formRoute, type FormRoute } from './forms.js';
import type { MfaPageLocals } from './mfa-pages.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export interface MfaPageDeps {
  config: AuthConfig;
  mfa: MfaActions;
  account: AccountActions;
  checks: EndpointChecks;
  loginRequired: RequestHandler;
  pluggable: { readonly texts: PageTexts };
}

export function mfaPages({ config, mfa, account, checks, loginRequired, pluggable }: MfaPageDeps): Router {
  const prefix = config.urlPrefix;
  const router = Router();

  const show = async (req: Request, res: Response, status: number, locals: Partial<MfaPageLocals> = {}): Promise<void> => {
    const state = await mfa.state(req);
    await sendPage(req, res, status, 'mfa', {
      prefix,
      texts: pluggable.texts,
      email: req.user!.email,
      state: state.totp,
      setup: null,
      recoveryCodes: null,
      recoveryCodesLeft: state.recovery_codes_left,
      errors: null,
      notice: null,
      ...locals,
    });
  };
  const view = (setup: TotpSetup) => ({ secret: setup.secret, qrSvg: setup.qr_svg });

  /** The set-up's code refused: the same QR code again, the problem beside the field. */
  const confirmForm: FormRoute = {
    fields: ['code'],
    page: () => `${prefix}/mfa`,
    async showAgain(req, res, error, refusal) {
      if (!req.user || error.code !== 'invalid_code') return false;
      const setup = await mfa.pendingTotp(req);
      await show(req, res, error.status, { setup: setup && view(setup), errors: refusal?.errors ?? null });
      return true;
    },
  };
  const removeForm: FormRoute = {
    fields: ['password'],
    page: () => `${prefix}/mfa`,
    async showAgain(req, res, error, refusal) {
      if (!req.user || !refusal?.errors) return false;
      await show(req, res, error.status, { errors: refusal.errors });
      return true;
    },
  };
  const startForm: FormRoute = {
    fields: [],
    page: () => `${prefix}/mfa`,
    async showAgain(req, res, error) {
      if (!req.user || error.code !== 'mfa_already_enabled') return false;
      await show(req, res, error.status, { notice: { kind: 'error', text: pluggable.texts.mfa.alreadyOn } });
      return true;
    },
  };

  router.get('/mfa', loginRequired, (req, res) =>
    show(req, res, 200, { notice: req.query['removed'] === '1' ? { kind: 'info', text: pluggable.texts.mfa.removed } : null }),
  );
  router.post('/mfa/totp', browserFormsOnly, formRoute(startForm), loginRequired, async (req, res) => {
    await show(req, res, 200, { setup: view(await mfa.beginTotp(req)) });
  });
  router.post('/mfa/totp/confirm', browserFormsOnly, formRoute(confirmForm), loginRequired, async (req, res) => {
    const recoveryCodes = await mfa.confirmTotp(req);
    await show(req, res, 200, { recoveryCodes });
  });
  router.post('/mfa/totp/remove', browserFormsOnly, formRoute(removeForm), loginRequired, async (req, res) => {
    await mfa.removeTotp(req);
    res.redirect(303, `${prefix}/mfa?removed=1`);
  });

  router.post('/login/mfa', browserFormsOnly, formRoute(secondStepForm(prefix, account, pluggable)), ...checks.login, async (req, res) => {
    // Each of the page's two forms sends one of the fields.
    await account.loginSecondStep(req, res);
    res.redirect(303, safeNext(textField(req, 'next')));
  });

  return router;
}

/** A wrong code shows the step again, with the same ticket; a ticket no longer good, the login page. */
function secondStepForm(prefix: string, account: AccountActions, pluggable: { readonly texts: PageTexts }): FormRoute {
  return {
    fields: ['code', 'recovery_code'],
    page: () => `${prefix}/login`,
    async showAgain(req, res, error, refusal) {
      if (error.code === 'invalid_ticket') {
        res.redirect(303, `${prefix}/login?mfa=expired`);
        return true;
      }
      if (error.code !== 'invalid_code') return false;
      const field = textField(req, 'recovery_code') ? 'recovery_code' : 'code';
      const message = refusal?.errors?.['code']?.message ?? pluggable.texts.mfa.invalidCode;
      const step = { ticket: textField(req, 'ticket') ?? '', methods: await account.secondStepMethods(req) };
      await showSecondStep(req, res, error.status, prefix, pluggable.texts, step, { [field]: { message } });
      return true;
    },
  };
}

/** The login's second step, for the ticket the password earned, offering what this account may bring. */
export function showSecondStep(
  req: Request,
  res: Response,
  status: number,
  prefix: string,
  texts: PageTexts,
  step: { ticket: string; methods: readonly SecondStepMethod[] },
  errors: MfaPageLocals['errors'] = null,
): Promise<void> {
  const next = optionalNext(textField(req, 'next'));
  return sendPage(req, res, status, 'login-mfa', { prefix, texts, ticket: step.ticket, passkey: step.methods.includes('passkey'), next, errors, notice: null });
}
