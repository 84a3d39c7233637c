/**
 * The account pages for people with browsers: `GET /login`, `/register`, `/forgot` and `/reset`,
 * and the posts of their forms, which go to the same paths as the JSON API's endpoints. A post
 * that is not a browser's form goes on to the JSON API's router. Success is a redirect or a page;
 * refusals are the error middleware's (the form again, via `formRoute`).
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import { MfaRequired } from '../../errors.js';
import type { PasswordResets } from '../../users/password-resets.js';
import type { AccountActions } from '../actions/account.js';
import type { AccountEndpoint } from '../actions/checks.js';
import { login, logout, register } from '../api/account.js';
import { forgotPassword, resetPassword } from '../api/links.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { queryParameter } from '../openapi/operations.js';
import { textField } from '../requests/input.js';
import { optionalNext, safeNext } from '../requests/negotiation.js';
import type { AccountPageLocals } from './account-pages.js';
import { formRoute, type FormRoute } from './forms.js';
import { NEXT, publicPage } from './page-endpoints.js';
import { showSecondStep } from './mfa-routes.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const loginPage = publicPage('/login', 'loginPage', 'The login page', [
  NEXT,
  queryParameter('reset', '`done`: says the password was changed'),
  queryParameter('mfa', '`expired`: says the second step took too long or had five wrong codes'),
]);
export const registerPage = publicPage('/register', 'registerPage', 'The registration page', [NEXT]);
export const forgotPage = publicPage('/forgot', 'forgotPage', 'The page to ask for a reset link');
export const resetPage = publicPage('/reset', 'resetPage', 'The page to set a new password (from the mailed link)', [
  queryParameter('token', 'The reset link’s token'),
]);

export const ACCOUNT_PAGES = [loginPage, registerPage, forgotPage, resetPage];

export interface AccountPageDeps {
  config: AuthConfig;
  actions: AccountActions;
  resets: PasswordResets;
  pluggable: { readonly texts: PageTexts };
  /** The identity providers, for the login page's buttons. */
  providers: { list(): { id: string; name: string }[] };
}

export function accountPages(deps: AccountPageDeps, kit: GuardKit): EndpointRouter {
  const { config, actions, resets, pluggable, providers } = deps;
  const prefix = config.urlPrefix;

  const show = (
    req: Request,
    res: Response,
    status: number,
    name: AccountEndpoint,
    locals: Partial<AccountPageLocals> = {},
  ): Promise<void> => {
    const { texts } = pluggable;
    const base: AccountPageLocals = {
      prefix,
      texts,
      notice: null,
      errors: null,
      email: null,
      next: null,
      token: null,
      tokenUsable: false,
      passwordHint: texts.passwordHint(config.passwords),
      confirmationPending: false,
      providers: providers.list(),
    };
    return sendPage(req, res, status, name, { ...base, ...locals });
  };

  /** How each form is shown again when refused: what was typed (never a password), and `next`. */
  const form = (name: AccountEndpoint): FormRoute => ({
    fields: name === 'forgot' ? ['email'] : name === 'reset' ? ['token', 'password'] : ['email', 'password'],
    page: (req) => formPage(prefix, name, req),
    async showAgain(req, res, error, refusal) {
      // The right password of an account with a second factor: its second step, not an error.
      if (name === 'login' && error instanceof MfaRequired) {
        await showSecondStep(req, res, 200, prefix, pluggable.texts, error);
        return true;
      }
      const token = textField(req, 'token') || null;
      // A reset link found unusable shows the reset page's "ask for a new link".
      const unusableLink = name === 'reset' && (error.code === 'invalid_reset_token' || !token);
      if (!unusableLink && !refusal) return false;
      await show(req, res, error.status, name, {
        ...(unusableLink ? {} : refusal),
        email: textField(req, 'email'),
        next: optionalNext(textField(req, 'next')),
        token,
        tokenUsable: !unusableLink,
        confirmationPending: error.code === 'email_unconfirmed',
      });
      return true;
    },
  });

  return new EndpointRouter(kit)
    .on(loginPage, (req, res) =>
      show(req, res, 200, 'login', {
        next: optionalNext(req.query['next']),
        notice:
          req.query['reset'] === 'done'
            ? { kind: 'info', text: pluggable.texts.login.resetDone }
            : req.query['mfa'] === 'expired'
              ? { kind: 'error', text: pluggable.texts.secondStep.expired }
              : null,
      }),
    )
    .on(registerPage, (req, res) => show(req, res, 200, 'register', { next: optionalNext(req.query['next']) }))
    .on(forgotPage, (req, res) => show(req, res, 200, 'forgot'))
    .on(resetPage, async (req, res) => {
      const token = typeof req.query['token'] === 'string' ? req.query['token'] : null;
      await show(req, res, 200, 'reset', { token, tokenUsable: token ? await resets.isUsable(token) : false });
    })
    .form(register, formRoute(form('register')), async (req, res) => {
      if (await actions.register(req, res)) res.redirect(303, safeNext(textField(req, 'next')));
      // SERVICE_AUTH_EMAIL_CONFIRMATION: the same page for every address, as the API's 202.
      else {
        const notice = { kind: 'info' as const, text: pluggable.texts.register.checkMail };
        await show(req, res, 202, 'register', { notice });
      }
    })
    .form(login, formRoute(form('login')), async (req, res) => {
      await actions.login(req, res);
      res.redirect(303, safeNext(textField(req, 'next')));
    })
    .on(
      logout,
      async (req, res) => {
        await actions.logout(req, res);
        res.redirect(303, '/');
      },
      { browserFormsOnly: true },
    )
    .form(forgotPassword, formRoute(form('forgot')), async (req, res) => {
      actions.forgot(req);
      // The page keeps the API's status, as every page does: accepted, the mail may follow.
      await show(req, res, 202, 'forgot', { notice: { kind: 'info', text: pluggable.texts.forgot.sent } });
    })
    .form(resetPassword, formRoute(form('reset')), async (req, res) => {
      await actions.reset(req);
      res.redirect(303, `${prefix}/login?reset=done`);
    });
}

/** The account page whose form a browser sent, with what its URL carried (`next`, the reset link's token). */
function formPage(prefix: string, name: AccountEndpoint, req: Request): string {
  if (name === 'reset') {
    const token = textField(req, 'token');
    return token ? `${prefix}/reset?token=${encodeURIComponent(token)}` : '/';
  }
  const next = name === 'forgot' ? null : optionalNext(textField(req, 'next'));
  return `${prefix}/${name}${next ? `?next=${encodeURIComponent(next)}` : ''}`;
}
