/**
 * The logged-in user's own account, for API clients: `POST /password`, `POST /email`,
 * `DELETE /me` (each with a session and the password again), and `POST /confirm-email` (the link
 * mailed to the new address, no session needed). The pages' forms post to the same paths
 * (pages/profile-routes.ts, pages/confirm-routes.ts).
 */
import type { ProfileActions } from '../actions/profile.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { checked, checkedSameSite, LOGIN, SESSION } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { limitNote, noStore, sessionCookieHeader } from '../openapi/operations.js';
import { json, jsonOrPage, noContent, redirect } from '../openapi/responses.js';
import { accountSchemas } from '../schemas/accounts.js';
import { messageResponse, userResponse } from '../schemas/responses.js';
import { accountEndpoint, FORM, OWN, wrongPassword } from './own-account.js';

export const EMAIL_CHANGE_MESSAGE = 'A link to confirm the change is on its way to the new address.';

export const changePassword = accountEndpoint({
  method: 'post',
  path: '/password',
  operationId: 'changePassword',
  summary: 'Change the password',
  description: ({ config }) =>
    [
      'With the current password. Every other session of the user ends and pending reset links stop working; API',
      `tokens stay. The request gets a new session cookie. ${wrongPassword(config)} ${FORM}a 303 to`,
      `\`${config.urlPrefix}/sessions?password=changed\`, or the form again with the problem.`,
    ].join(' '),
  body: ({ config }) => ({ json: accountSchemas(config.passwords).changePassword }),
  responses: (context) => ({
    200: json(context.schemas, 'Changed; a new session', userResponse, sessionCookieHeader(context, 'The new session')),
    303: redirect('A browser’s form: changed, to the sessions page', sessionCookieHeader(context, 'The new session')),
  }),
  refusals: [...OWN, 'password_rules', 'invalid_credentials'],
});

export const changeEmail = endpoint({
  method: 'post',
  path: '/email',
  operationId: 'changeEmail',
  summary: 'Change the email address',
  description: ({ config }) =>
    [
      'With the password. A link to `/confirm-email` goes to the new address and a notice, with no link, to the old',
      'one; the change happens when the link is used.',
      wrongPassword(config),
      limitNote(
        config,
        config.rateLimit.forgotPassword,
        'per client address',
        'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD',
      ),
      `${FORM}the page again (202) saying the mail is on its way, or the form again with the problem.`,
    ].join(' '),
  tags: ['account'],
  guards: [LOGIN, checked('email')],
  security: SESSION,
  body: ({ config }) => ({ json: accountSchemas(config.passwords).changeEmail }),
  responses: ({ schemas }) => ({
    202: jsonOrPage(schemas, 'A confirmation link is on its way to the new address', messageResponse),
  }),
  refusals: [...OWN, 'invalid_credentials', 'invalid_email', 'email_taken'],
});

export const confirmEmailChange = endpoint({
  method: 'post',
  path: '/confirm-email',
  operationId: 'confirmEmailChange',
  summary: 'Complete an email change with the link mailed to the new address',
  description: ({ config }) =>
    [
      'Single use; no session needed. The address must still be free (409 `email_taken`). Pending reset and',
      'confirmation links stop working.',
      'It must come from this site (Sec-Fetch-Site or Origin).',
      limitNote(config, config.rateLimit.resetPassword, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD'),
      `${FORM}a page saying so.`,
    ].join(' '),
  tags: ['account'],
  guards: [checkedSameSite('confirm')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).confirmEmail }),
  responses: ({ schemas }) => ({
    200: jsonOrPage(schemas, 'Changed (JSON, or a page for a browser’s form)', userResponse),
  }),
  refusals: ['invalid_confirmation_token', 'email_taken'],
});

export const deleteAccount = accountEndpoint({
  method: 'delete',
  path: '/me',
  operationId: 'deleteAccount',
  summary: 'Delete the account',
  description: ({ config }) =>
    [
      "With the password. The user's memberships, sessions, tokens, links and role links go with it, in one",
      'transaction; the address may register again. The last owner of an organization with other members is 409',
      `\`last_owner\`. ${wrongPassword(config)} The deletion page’s form posts to \`POST /delete-account\` instead,`,
      'since forms cannot send DELETE.',
    ].join(' '),
  body: ({ config }) => ({ json: accountSchemas(config.passwords).deleteAccount }),
  responses: (context) => ({
    204: noContent('Deleted; the cookie is cleared', {
      ...noStore(),
      ...sessionCookieHeader(context, 'Clears the cookie'),
    }),
  }),
  refusals: [...OWN, 'invalid_credentials', 'last_owner'],
});

export const PROFILE_ENDPOINTS = [changePassword, changeEmail, confirmEmailChange, deleteAccount];

export function profileApi(actions: ProfileActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(changePassword, async (req, res) => {
      res.json({ user: await actions.changePassword(req, res) });
    })
    .on(changeEmail, async (req, res) => {
      await actions.requestEmailChange(req);
      res.status(202).json({ message: EMAIL_CHANGE_MESSAGE });
    })
    .on(confirmEmailChange, async (req, res) => {
      res.json({ user: await actions.confirmEmailChange(req) });
    })
    .on(deleteAccount, async (req, res) => {
      await actions.deleteAccount(req, res);
      res.status(204).end();
    });
}
