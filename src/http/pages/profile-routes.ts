/**
 * The logged-in person's own account, for people with browsers: `GET /password`, `/email` and
 * `/delete-account`, and the posts of their forms. `/password` and `/email` share their paths with
 * the JSON API (a post that is not a browser's form goes on to it); `/delete-account` is the
 * pages' own, since forms cannot send `DELETE /me`. Refusals are the error middleware's: the form
 * again via `formRoute`, or a page of its own (a session that ended, too many attempts).
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { AuthError } from '../../errors.js';
import type { ProfileActions } from '../actions/profile.js';
import { assertSession } from '../actions/session-only.js';
import { changeEmail, changePassword } from '../api/profile.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { redirect } from '../openapi/responses.js';
import { textField } from '../requests/input.js';
import { accountSchemas } from '../schemas/accounts.js';
import { formRoute, type FormRoute } from './forms.js';
import { clearsCookie, formOnly, ownPage, UNSAFE } from './page-endpoints.js';
import type { DeleteAccountPageLocals, EmailPageLocals, PasswordPageLocals } from './profile-pages.js';
import type { FormRefusal } from './refusals.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const passwordPage = ownPage(
  '/password',
  'passwordPage',
  'The page to change the password',
  'Its form posts to `POST /password`.',
);
export const emailPage = ownPage(
  '/email',
  'emailPage',
  'The page to change the email address',
  'Its form posts to `POST /email`.',
);
export const deleteAccountPage = ownPage(
  '/delete-account',
  'deleteAccountPage',
  'The page to delete the account',
  'Asks for the password; its form posts to `POST /delete-account`.',
);

export const deleteAccountForm = formOnly({
  path: '/delete-account',
  operationId: 'deleteAccountForm',
  summary: 'Delete the account (the deletion page’s form)',
  description:
    'As `DELETE /me`, which a form cannot send: with the password; a wrong one is 401 `invalid_credentials` and' +
    ' counts as a failed login. Answered with a 303 to `/`, the cookie cleared.',
  formBody: ({ config, schemas }) => schemas.of(accountSchemas(config.passwords).deleteAccount, 'input'),
  responses: (context) => ({ 303: redirect('Deleted: to `/`, the cookie cleared', clearsCookie(context, true)) }),
  refusals: [...UNSAFE, 'invalid_credentials', 'last_owner'],
});

export const PROFILE_PAGES = [passwordPage, emailPage, deleteAccountPage, deleteAccountForm];

export interface ProfilePageDeps {
  config: AuthConfig;
  profile: ProfileActions;
  pluggable: { readonly texts: PageTexts };
}

type Show<L> = (req: Request, res: Response, status: number, extra?: Partial<L>) => Promise<void>;

export function profilePages({ config, profile, pluggable }: ProfilePageDeps, kit: GuardKit): EndpointRouter {
  const prefix = config.urlPrefix;

  // The pages of a logged-in person: a token is refused here (403 session_required), as by the actions.
  const showPassword: Show<PasswordPageLocals> = (req, res, status, extra = {}) => {
    assertSession(req);
    const { texts } = pluggable;
    return sendPage(req, res, status, 'password', {
      prefix,
      texts,
      email: req.user!.email,
      notice: null,
      errors: null,
      passwordHint: texts.passwordHint(config.passwords),
      ...extra,
    });
  };
  const showEmail: Show<EmailPageLocals> = (req, res, status, extra = {}) => {
    assertSession(req);
    return sendPage(req, res, status, 'email', {
      prefix,
      texts: pluggable.texts,
      email: req.user!.email,
      newEmail: null,
      notice: null,
      errors: null,
      ...extra,
    });
  };
  const showDelete: Show<DeleteAccountPageLocals> = (req, res, status, extra = {}) => {
    assertSession(req);
    return sendPage(req, res, status, 'delete-account', {
      prefix,
      texts: pluggable.texts,
      email: req.user!.email,
      errors: null,
      ...extra,
    });
  };

  /**
   * A form that asks for the password again, shown again when refused: with what was typed (never a
   * password), a wrong password said to be that beside `passwordField`. Without a user (the
   * session ended) or for a refusal the form does not own, a page of its own.
   */
  const passwordAgainForm = (
    path: string,
    fields: string[],
    passwordField: string,
    show: (req: Request, res: Response, error: AuthError, refusal: FormRefusal) => Promise<void>,
  ): FormRoute => ({
    fields,
    page: () => `${prefix}${path}`,
    async showAgain(req, res, error, refusal) {
      if (!refusal || !req.user || req.authMethod !== 'session') return false;
      await show(req, res, error, inOwnWords(error, refusal, pluggable.texts, passwordField));
      return true;
    },
  });

  const passwordForm = passwordAgainForm(
    '/password',
    ['current_password', 'password'],
    'current_password',
    (req, res, error, refusal) => showPassword(req, res, error.status, refusal),
  );
  const emailForm = passwordAgainForm('/email', ['email', 'password'], 'password', (req, res, error, refusal) =>
    showEmail(req, res, error.status, { ...refusal, newEmail: textField(req, 'email') }),
  );
  const deleteForm = passwordAgainForm('/delete-account', ['password'], 'password', (req, res, error, refusal) =>
    showDelete(req, res, error.status, { errors: refusal.errors }),
  );

  return new EndpointRouter(kit)
    .on(passwordPage, (req, res) => showPassword(req, res, 200))
    .on(emailPage, (req, res) => showEmail(req, res, 200))
    .on(deleteAccountPage, (req, res) => showDelete(req, res, 200))
    .form(changePassword, formRoute(passwordForm), async (req, res) => {
      await profile.changePassword(req, res);
      // The sessions page shows what changing the password did: every other session is gone.
      res.redirect(303, `${prefix}/sessions?password=changed`);
    })
    .form(changeEmail, formRoute(emailForm), async (req, res) => {
      await profile.requestEmailChange(req);
      const sent = pluggable.texts.changeEmail.sent((textField(req, 'email') ?? '').trim());
      // The API's status: accepted, the change happens when the new address confirms it.
      await showEmail(req, res, 202, { notice: { kind: 'info', text: sent } });
    })
    .on(
      deleteAccountForm,
      async (req, res) => {
        await profile.deleteAccount(req, res);
        res.redirect(303, '/');
      },
      { form: formRoute(deleteForm) },
    );
}

/**
 * A refusal in the words of a form where a logged-in person typed their password again: "not your
 * current password" (there is no email to doubt), and another account's address as "choose another".
 */
function inOwnWords(error: AuthError, refusal: FormRefusal, texts: PageTexts, passwordField: string): FormRefusal {
  if (error.code === 'invalid_credentials')
    return { errors: { [passwordField]: { message: texts.errors.wrongPassword } }, notice: null };
  if (error.code === 'email_taken') return { errors: { email: { message: texts.changeEmail.taken } }, notice: null };
  return refusal;
}
