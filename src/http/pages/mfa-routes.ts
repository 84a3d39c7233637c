/**
 * `GET /mfa` and its forms for people with browsers, and the login's second step as a form. HTML
 * forms post to routes of the pages' own (`/mfa/totp`, `/mfa/totp/confirm`, `/mfa/totp/remove`)
 * and to `/login/mfa`, as the JSON API; anything but a browser's form goes on to the JSON routers.
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { SecondStepMethod } from '../../errors.js';
import type { TotpSetup } from '../../mfa/second-factor.js';
import type { AccountActions } from '../actions/account.js';
import { loginSecondStep } from '../api/login-steps.js';
import type { MfaActions } from '../actions/mfa.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { queryParameter } from '../openapi/operations.js';
import { page, redirect } from '../openapi/responses.js';
import { textField } from '../requests/input.js';
import { optionalNext, safeNext } from '../requests/negotiation.js';
import { accountSchemas } from '../schemas/accounts.js';
import { formRoute, type FormRoute } from './forms.js';
import { formOnly, ownPage, UNSAFE } from './page-endpoints.js';
import type { MfaPageLocals } from './mfa-pages.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const mfaPage = ownPage(
  '/mfa',
  'mfaPage',
  'The two-step login page',
  'Sets up an authenticator app (`POST /mfa/totp`, then `POST /mfa/totp/confirm` with a code) or removes it' +
    ' (`POST /mfa/totp/remove` with the password).',
  [queryParameter('removed', '`1`: says the app was removed')],
);

export const beginTotpForm = formOnly({
  path: '/mfa/totp',
  operationId: 'beginTotpForm',
  summary: 'Start setting up an authenticator app (the page’s button)',
  description: 'As `POST /api/mfa/totp`: the page again with the QR code, the key, and a field for the code.',
  responses: { 200: page('The page with the QR code') },
  refusals: [...UNSAFE, 'mfa_already_enabled'],
});

export const confirmTotpForm = formOnly({
  path: '/mfa/totp/confirm',
  operationId: 'confirmTotpForm',
  summary: 'Turn the authenticator app on with a code (the page’s form)',
  description:
    'As `POST /api/mfa/totp/confirm`: the page with the ten recovery codes, this once; a wrong code shows the QR' +
    ' code again with the problem.',
  formBody: ({ config, schemas }) => schemas.of(accountSchemas(config.passwords).confirmTotp, 'input'),
  responses: { 200: page('The recovery codes, once') },
  refusals: [...UNSAFE, 'invalid_code'],
});

export const removeTotpForm = formOnly({
  path: '/mfa/totp/remove',
  operationId: 'removeTotpForm',
  summary: 'Remove the authenticator app (the page’s form)',
  description: ({ config }) =>
    'As `DELETE /api/mfa/totp`, which a form cannot send: with the password. Answered with a 303 to' +
    ` \`${config.urlPrefix}/mfa?removed=1\`.`,
  formBody: ({ config, schemas }) => schemas.of(accountSchemas(config.passwords).removeTotp, 'input'),
  responses: { 303: redirect('Removed: to the two-step login page') },
  refusals: [...UNSAFE, 'invalid_credentials'],
});

export const MFA_PAGES = [mfaPage, beginTotpForm, confirmTotpForm, removeTotpForm];

export interface MfaPageDeps {
  config: AuthConfig;
  mfa: MfaActions;
  account: AccountActions;
  pluggable: { readonly texts: PageTexts };
}

export function mfaPages({ config, mfa, account, pluggable }: MfaPageDeps, kit: GuardKit): EndpointRouter {
  const prefix = config.urlPrefix;

  const show = async (
    req: Request,
    res: Response,
    status: number,
    locals: Partial<MfaPageLocals> = {},
  ): Promise<void> => {
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

  const removed = (req: Request) =>
    req.query['removed'] === '1' ? { kind: 'info' as const, text: pluggable.texts.mfa.removed } : null;
  const routes = new EndpointRouter(kit)
    .on(mfaPage, (req, res) => show(req, res, 200, { notice: removed(req) }))
    .on(
      beginTotpForm,
      async (req, res) => {
        await show(req, res, 200, { setup: view(await mfa.beginTotp(req)) });
      },
      { form: formRoute(startForm) },
    )
    .on(
      confirmTotpForm,
      async (req, res) => {
        const recoveryCodes = await mfa.confirmTotp(req);
        await show(req, res, 200, { recoveryCodes });
      },
      { form: formRoute(confirmForm) },
    )
    .on(
      removeTotpForm,
      async (req, res) => {
        await mfa.removeTotp(req);
        res.redirect(303, `${prefix}/mfa?removed=1`);
      },
      { form: formRoute(removeForm) },
    );
  // Each of the page's two forms sends one of the fields.
  const secondStep = formRoute(secondStepForm(prefix, account, pluggable));
  return routes.form(loginSecondStep, secondStep, async (req, res) => {
    await account.loginSecondStep(req, res);
    res.redirect(303, safeNext(textField(req, 'next')));
  });
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
  return sendPage(req, res, status, 'login-mfa', {
    prefix,
    texts,
    ticket: step.ticket,
    passkey: step.methods.includes('passkey'),
    next,
    errors,
    notice: null,
  });
}
