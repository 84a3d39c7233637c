/**
 * The links mailed to confirm an address, for people with browsers: `GET /confirm` and
 * `GET /confirm-email` (a page with a button: a GET changes nothing, since mail scanners follow
 * links), and the posts of their forms to `/confirm`, `/confirm/resend` and `/confirm-email`,
 * the JSON API's paths (a post that is not a browser's form goes on to it). An unusable link is
 * said so on the same page, with the way to a new one; other refusals (a form from another site,
 * too many attempts) get a page of their own from the error middleware.
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { EmailChanges } from '../../users/email-changes.js';
import type { Registrations } from '../../users/registrations.js';
import type { AccountActions } from '../actions/account.js';
import type { ProfileActions } from '../actions/profile.js';
import { confirmEmail, resendConfirmation } from '../api/links.js';
import { confirmEmailChange } from '../api/profile.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { queryParameter } from '../openapi/operations.js';
import { textField } from '../requests/input.js';
import type { ConfirmEmailPageLocals, ConfirmPageLocals } from './confirm-pages.js';
import { formRoute, type FormRoute } from './forms.js';
import { linkPage, publicPage } from './page-endpoints.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const confirmPage = publicPage(
  '/confirm',
  'confirmPage',
  'The page of the link that confirms a new account’s address',
  [queryParameter('token', 'The confirmation link’s token')],
  `${linkPage('/confirm')} Without a usable token, a form asking for a new link (\`POST /confirm/resend\`).`,
);
export const confirmEmailPage = publicPage(
  '/confirm-email',
  'confirmEmailPage',
  'The page of the link mailed to a new address',
  [queryParameter('token', 'The link’s token')],
  linkPage('/confirm-email'),
);

export const CONFIRM_PAGES = [confirmPage, confirmEmailPage];

export interface ConfirmPageDeps {
  config: AuthConfig;
  account: AccountActions;
  profile: ProfileActions;
  registrations: Registrations;
  emailChanges: EmailChanges;
  pluggable: { readonly texts: PageTexts };
}

type ConfirmExtras = Pick<ConfirmPageLocals, 'state'> & Partial<ConfirmPageLocals>;
type ConfirmEmailExtras = Pick<ConfirmEmailPageLocals, 'state'> & Partial<ConfirmEmailPageLocals>;

/** A link's refusals that the link's own page tells: unknown, used or expired, or without a token at all. */
const UNUSABLE_LINK = new Set(['invalid_confirmation_token', 'bad_request']);

export function confirmPages(deps: ConfirmPageDeps, kit: GuardKit): EndpointRouter {
  const { config, account, profile, registrations, emailChanges, pluggable } = deps;
  const prefix = config.urlPrefix;

  const showConfirm = (req: Request, res: Response, status: number, extra: ConfirmExtras): Promise<void> =>
    sendPage(req, res, status, 'confirm', {
      prefix,
      texts: pluggable.texts,
      token: null,
      email: null,
      errors: null,
      ...extra,
    });
  const showConfirmEmail = (req: Request, res: Response, status: number, extra: ConfirmEmailExtras): Promise<void> =>
    sendPage(req, res, status, 'confirm-email', { prefix, texts: pluggable.texts, token: null, email: null, ...extra });

  /** The link's page, with the token it carried: where a refused button goes back to. */
  const linkPage = (path: string) => (req: Request) => {
    const token = textField(req, 'token');
    return `${prefix}${path}${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  };

  const confirmForm: FormRoute = {
    fields: ['token'],
    page: linkPage('/confirm'),
    async showAgain(req, res, error) {
      if (!UNUSABLE_LINK.has(error.code)) return false;
      await showConfirm(req, res, error.status, { state: 'unusable' });
      return true;
    },
  };
  const resendForm: FormRoute = {
    fields: ['email'],
    page: () => `${prefix}/confirm`,
    async showAgain(req, res, error, refusal) {
      if (!refusal) return false;
      await showConfirm(req, res, error.status, {
        state: 'resend',
        email: textField(req, 'email'),
        errors: refusal.errors,
      });
      return true;
    },
  };
  const confirmEmailForm: FormRoute = {
    fields: ['token'],
    page: linkPage('/confirm-email'),
    async showAgain(req, res, error) {
      const state = UNUSABLE_LINK.has(error.code) ? 'unusable' : error.code === 'email_taken' ? 'taken' : undefined;
      if (!state) return false;
      await showConfirmEmail(req, res, error.status, { state });
      return true;
    },
  };

  return new EndpointRouter(kit)
    .on(confirmPage, async (req, res) => {
      const token = queryToken(req);
      if (!token) return showConfirm(req, res, 200, { state: 'resend' });
      const usable = await registrations.isUsable(token);
      await showConfirm(req, res, 200, usable ? { state: 'ask', token } : { state: 'unusable' });
    })
    .form(confirmEmail, formRoute(confirmForm), async (req, res) => {
      const user = await account.confirm(req);
      await showConfirm(req, res, 200, { state: 'confirmed', email: user.email });
    })
    .form(resendConfirmation, formRoute(resendForm), async (req, res) => {
      account.resendConfirmation(req);
      // The API's status and the same words for every address: nothing says which ones await confirmation.
      await showConfirm(req, res, 202, { state: 'sent' });
    })
    .on(confirmEmailPage, async (req, res) => {
      const token = queryToken(req);
      const usable = token !== null && (await emailChanges.isUsable(token));
      await showConfirmEmail(req, res, 200, usable ? { state: 'ask', token } : { state: 'unusable' });
    })
    .form(confirmEmailChange, formRoute(confirmEmailForm), async (req, res) => {
      const user = await profile.confirmEmailChange(req);
      await showConfirmEmail(req, res, 200, { state: 'changed', email: user.email });
    });
}

function queryToken(req: Request): string | null {
  const token = req.query['token'];
  return typeof token === 'string' && token !== '' ? token : null;
}
