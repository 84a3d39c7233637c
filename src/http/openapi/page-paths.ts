/**
 * The pages for people with browsers (pages/*-routes.ts): HTML, with the statuses the API would
 * use. Most of their forms post to the API's paths (account-paths.ts, profile-paths.ts,
 * token-paths.ts); the few a form needs because it cannot send DELETE are here, and take only a
 * browser's form.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { accountSchemas } from '../schemas/accounts.js';
import {
  beforeParameter,
  guardRefusals,
  operation,
  pathId,
  PUBLIC,
  queryParameter,
  sessionCookieHeader,
  SESSION_OR_TOKEN,
  toLoginPage,
  tokenFailuresNote,
  type DocumentContext,
  type Operation,
  type OperationSpec,
  type Paths,
} from './operations.js';
import { page, redirect } from './responses.js';

const next = queryParameter('next', 'Where to go after the form: a same-site path (anything else is ignored)');
const SESSION = [{ session: [] }];
const FORMS_ONLY = 'It takes only a browser’s form (urlencoded, preferring HTML, without Authorization): anything else is the 404 of paths nobody serves.';

export function pagePaths(context: DocumentContext): Paths {
  const { config } = context;
  const prefix = config.urlPrefix;
  const publicPage = (operationId: string, summary: string, parameters: OpenAPIV3_1.ParameterObject[] = [], description?: string) =>
    operation(context, { operationId, summary, ...(description ? { description } : {}), tags: ['pages'], security: PUBLIC, parameters, responses: { 200: page('The page') }, refusals: [] });
  const linkPage = (endpoint: string) =>
    `Opening it changes nothing (mail scanners follow links): a usable link shows a button whose form posts the token to \`POST ${endpoint}\`; an unusable one says so.`;
  const failures = tokenFailuresNote(config);
  /** A page of the logged-in user's own account: a session's, not a token's. */
  const ownPage = (operationId: string, summary: string, description: string, parameters: OpenAPIV3_1.ParameterObject[] = []) =>
    operation(context, {
      operationId,
      summary,
      description: `${description} A bearer token is refused (403 \`session_required\`).${failures}`,
      tags: ['pages'],
      security: SESSION,
      parameters,
      responses: { 200: page('The page'), 303: toLoginPage(config) },
      refusals: [...guardRefusals(config, false), 'session_required'],
    });
  /** A route of the pages' own that a form posts to: a redirect, or a refusal (as a page). */
  const formOnly = (spec: Omit<OperationSpec, 'tags' | 'security'>, body?: OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject): Operation => {
    const described = operation(context, { ...spec, description: `${spec.description ?? ''} ${FORMS_ONLY}${failures}`, tags: ['pages'], security: SESSION });
    if (body) described.requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema: body } } };
    return described;
  };
  // Every form here changes the account itself: refused while acting as its user (requests/impersonation-limits.ts).
  const unsafe = [...guardRefusals(config, true), 'session_required', 'not_found', 'impersonation_forbidden'] as const;
  const clearsCookie = (required: boolean) => sessionCookieHeader(context, 'Clears the cookie', required);

  return {
    '/login': {
      get: publicPage('loginPage', 'The login page', [
        next,
        queryParameter('reset', '`done`: says the password was changed'),
        queryParameter('mfa', '`expired`: says the second step took too long or had five wrong codes'),
      ]),
    },
    '/register': { get: publicPage('registerPage', 'The registration page', [next]) },
    '/forgot': { get: publicPage('forgotPage', 'The page to ask for a reset link') },
    '/reset': { get: publicPage('resetPage', 'The page to set a new password (from the mailed link)', [queryParameter('token', 'The reset link’s token')]) },
    '/confirm': {
      get: publicPage(
        'confirmPage',
        'The page of the link that confirms a new account’s address',
        [queryParameter('token', 'The confirmation link’s token')],
        `${linkPage('/confirm')} Without a usable token, a form asking for a new link (\`POST /confirm/resend\`).`,
      ),
    },
    '/confirm-email': {
      get: publicPage('confirmEmailPage', 'The page of the link mailed to a new address', [queryParameter('token', 'The link’s token')], linkPage('/confirm-email')),
    },
    '/password': { get: ownPage('passwordPage', 'The page to change the password', 'Its form posts to `POST /password`.') },
    '/email': { get: ownPage('emailPage', 'The page to change the email address', 'Its form posts to `POST /email`.') },
    '/delete-account': {
      get: ownPage('deleteAccountPage', 'The page to delete the account', 'Asks for the password; its form posts to `POST /delete-account`.'),
      post: formOnly(
        {
          operationId: 'deleteAccountForm',
          summary: 'Delete the account (the deletion page’s form)',
          description: `As \`DELETE /me\`, which a form cannot send: with the password; a wrong one is 401 \`invalid_credentials\` and counts as a failed login. Answered with a 303 to \`/\`, the cookie cleared.`,
          responses: { 303: redirect('Deleted: to `/`, the cookie cleared', clearsCookie(true)) },
          refusals: [...unsafe, 'invalid_credentials', 'last_owner'],
        },
        context.schemas.of(accountSchemas(config.passwords).deleteAccount, 'input'),
      ),
    },
    '/mfa': {
      get: ownPage('mfaPage', 'The two-step login page', 'Sets up an authenticator app (`POST /mfa/totp`, then `POST /mfa/totp/confirm` with a code) or removes it (`POST /mfa/totp/remove` with the password).', [
        queryParameter('removed', '`1`: says the app was removed'),
      ]),
    },
    '/mfa/totp': {
      post: formOnly({
        operationId: 'beginTotpForm',
        summary: 'Start setting up an authenticator app (the page’s button)',
        description: 'As `POST /api/mfa/totp`: the page again with the QR code, the key, and a field for the code.',
        responses: { 200: page('The page with the QR code') },
        refusals: [...unsafe, 'mfa_already_enabled'],
      }),
    },
    '/mfa/totp/confirm': {
      post: formOnly(
        {
          operationId: 'confirmTotpForm',
          summary: 'Turn the authenticator app on with a code (the page’s form)',
          description: 'As `POST /api/mfa/totp/confirm`: the page with the ten recovery codes, this once; a wrong code shows the QR code again with the problem.',
          responses: { 200: page('The recovery codes, once') },
          refusals: [...unsafe, 'invalid_code'],
        },
        context.schemas.of(accountSchemas(config.passwords).confirmTotp, 'input'),
      ),
    },
    '/mfa/totp/remove': {
      post: formOnly(
        {
          operationId: 'removeTotpForm',
          summary: 'Remove the authenticator app (the page’s form)',
          description: `As \`DELETE /api/mfa/totp\`, which a form cannot send: with the password. Answered with a 303 to \`${prefix}/mfa?removed=1\`.`,
          responses: { 303: redirect('Removed: to the two-step login page') },
          refusals: [...unsafe, 'invalid_credentials'],
        },
        context.schemas.of(accountSchemas(config.passwords).removeTotp, 'input'),
      ),
    },
    '/passkeys': {
      get: ownPage('passkeysPage', 'The passkeys page: the caller’s passkeys, a button to remove each and one to add another (with JavaScript)', 'Adding goes through `POST /api/passkeys/options` and `POST /api/passkeys`; the remove buttons post to `POST /passkeys/{id}/remove`.', [
        queryParameter('added', '`1`: says a passkey was added'),
        queryParameter('removed', '`1`: says a passkey was removed'),
      ]),
    },
    '/passkeys/{id}/remove': {
      post: formOnly({
        operationId: 'removePasskeyForm',
        summary: 'Remove a passkey (the passkeys page’s button)',
        description: `As \`DELETE /api/passkeys/{id}\`, which a form cannot send; another user’s passkey is a 404, like an unknown id. Answered with a 303 to \`${prefix}/passkeys?removed=1\`.`,
        parameters: [pathId('The credential id (`id` in the list)')],
        responses: { 303: redirect('Removed: to the passkeys page') },
        refusals: unsafe,
      }),
    },
    '/sessions': {
      get: ownPage('sessionsPage', 'The sessions page: where the caller is logged in, with a button to end each session and one to end every other', 'Its buttons post to `POST /sessions/{id}/end` and `POST /sessions/end-others`.', [
        queryParameter('ended', '`one` or `others`: says which sessions were ended'),
        queryParameter('password', '`changed`: says the password was changed (and every other session ended)'),
      ]),
    },
    '/security-log': {
      get: operation(context, {
        operationId: 'securityLogPage',
        summary: 'The security log page: what happened to the caller’s account, newest first',
        description: `The caller’s own audit records, 50 a page, as \`GET /api/security-log\` lists them: logins (refused ones too), password and address changes, tokens, sessions, roles; when, from which address, on which device. An “Older” link pages back. With a bearer token, one made without scopes and without an organization: a token with scopes, or bound to an organization, is refused (403 \`insufficient_scope\`), as by the API.${failures}`,
        tags: ['pages'],
        security: SESSION_OR_TOKEN,
        parameters: [beforeParameter('A record id: the records older than it (the “Older” link’s)')],
        responses: { 200: page('The page'), 303: toLoginPage(config) },
        refusals: [...guardRefusals(config, false), 'insufficient_scope', 'bad_request'],
      }),
    },
    '/sessions/{id}/end': {
      post: formOnly({
        operationId: 'endSessionForm',
        summary: 'End one session (the sessions page’s button)',
        description: `As \`DELETE /api/sessions/{id}\`, which a form cannot send; another user’s session is a 404, like an unknown id. Answered with a 303 to \`${prefix}/sessions?ended=one\`, or, for this browser’s own session, to \`${prefix}/login\` with the cookie cleared.`,
        parameters: [pathId('The session’s public id (`id` in the list)')],
        responses: { 303: redirect('Ended: to the sessions page, or to the login page when it was this browser’s session (the cookie cleared)', clearsCookie(false)) },
        refusals: unsafe,
      }),
    },
    '/sessions/end-others': {
      post: formOnly({
        operationId: 'endOtherSessionsForm',
        summary: 'End every other session (the sessions page’s button)',
        description: `As \`DELETE /api/sessions\`, which a form cannot send. Answered with a 303 to \`${prefix}/sessions?ended=others\`.`,
        responses: { 303: redirect('Ended: to the sessions page') },
        refusals: unsafe,
      }),
    },
  };
}
