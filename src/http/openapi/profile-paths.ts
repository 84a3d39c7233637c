/**
 * The logged-in user's own account (api/profile.ts, api/sessions.ts, and the pages' forms that post
 * to the same paths): password, address, sessions, deletion. Each needs a session, not a token.
 */
import { accountSchemas } from '../schemas/accounts.js';
import { messageResponse, passkeyCreatedResponse, passkeyListResponse, recoveryCodesResponse, webauthnOptionsResponse, secondFactorStateResponse, securityLogResponse, sessionListResponse, totpSetupResponse, userResponse } from '../schemas/responses.js';
import { beforeParameter, guardRefusals, limitNote, noStore, operation, pathId, sessionCookieHeader, SESSION_OR_TOKEN, toLoginPage, whenLimited, type DocumentContext, type Paths } from './operations.js';
import { json, jsonOrPage, noContent, redirect } from './responses.js';

const SESSION = [{ session: [] }];
const FORM = 'A browser’s form (urlencoded, preferring HTML) is answered with pages: ';

export function profilePaths(context: DocumentContext): Paths {
  const { config, schemas } = context;
  const bodies = accountSchemas(config.passwords);
  const rates = config.rateLimit;
  // Each change to the account itself is refused while acting as its user (requests/impersonation-limits.ts).
  const own = [...guardRefusals(config, true), 'session_required', 'impersonation_forbidden'] as const;
  const password = `A wrong password is 401 \`invalid_credentials\` and counts as a failed login${
    rates.enabled ? ` (${rates.loginFailures.text} per account and client address, SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES)` : ''
  }.`;

  return {
    '/password': {
      post: operation(context, {
        operationId: 'changePassword',
        summary: 'Change the password',
        description: `With the current password. Every other session of the user ends and pending reset links stop working; API tokens stay. The request gets a new session cookie. ${password} ${FORM}a 303 to \`${config.urlPrefix}/sessions?password=changed\`, or the form again with the problem.`,
        tags: ['account'],
        security: SESSION,
        body: { json: bodies.changePassword },
        responses: {
          200: json(schemas, 'Changed; a new session', userResponse, sessionCookieHeader(context, 'The new session')),
          303: redirect('A browser’s form: changed, to the sessions page', sessionCookieHeader(context, 'The new session')),
        },
        refusals: [...own, 'password_rules', 'invalid_credentials'],
      }),
    },
    '/email': {
      post: operation(context, {
        operationId: 'changeEmail',
        summary: 'Change the email address',
        description: [
          'With the password. A link to `/confirm-email` goes to the new address and a notice, with no link, to the old one; the change happens when the link is used.',
          password,
          limitNote(config, rates.forgotPassword, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD'),
          `${FORM}the page again (202) saying the mail is on its way, or the form again with the problem.`,
        ].join(' '),
        tags: ['account'],
        security: SESSION,
        body: { json: bodies.changeEmail },
        responses: { 202: jsonOrPage(schemas, 'A confirmation link is on its way to the new address', messageResponse) },
        refusals: [...own, 'invalid_credentials', 'invalid_email', 'email_taken'],
      }),
    },
    '/confirm-email': {
      post: operation(context, {
        operationId: 'confirmEmailChange',
        summary: 'Complete an email change with the link mailed to the new address',
        description: [
          'Single use; no session needed. The address must still be free (409 `email_taken`). Pending reset and confirmation links stop working.',
          'It must come from this site (Sec-Fetch-Site or Origin).',
          limitNote(config, rates.resetPassword, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD'),
          `${FORM}a page saying so.`,
        ].join(' '),
        tags: ['account'],
        security: [],
        body: { json: bodies.confirmEmail },
        responses: { 200: jsonOrPage(schemas, 'Changed (JSON, or a page for a browser’s form)', userResponse) },
        refusals: [...whenLimited(config), 'csrf_rejected', 'invalid_confirmation_token', 'email_taken'],
      }),
    },
    '/me': {
      delete: operation(context, {
        operationId: 'deleteAccount',
        summary: 'Delete the account',
        description: `With the password. The user's memberships, sessions, tokens, links and role links go with it, in one transaction; the address may register again. The last owner of an organization with other members is 409 \`last_owner\`. ${password} The deletion page’s form posts to \`POST /delete-account\` instead, since forms cannot send DELETE.`,
        tags: ['account'],
        security: SESSION,
        body: { json: bodies.deleteAccount },
        responses: { 204: noContent('Deleted; the cookie is cleared', { ...noStore(), ...sessionCookieHeader(context, 'Clears the cookie') }) },
        refusals: [...own, 'invalid_credentials', 'last_owner'],
      }),
    },
    '/api/sessions': {
      get: operation(context, {
        operationId: 'listSessions',
        summary: 'The caller’s sessions',
        description: 'Live sessions, oldest first, each with its public id (not the cookie), when it started and was last seen (within a minute), and the User-Agent of its login.',
        tags: ['account'],
        security: SESSION,
        responses: { 200: json(schemas, 'The sessions', sessionListResponse, noStore()), 303: toLoginPage(config) },
        refusals: [...guardRefusals(config, false), 'session_required'],
      }),
      delete: operation(context, {
        operationId: 'endOtherSessions',
        summary: 'End every other session',
        description: 'Every session of the caller but this one ends: at once here, within a second on other instances.',
        tags: ['account'],
        security: SESSION,
        responses: { 204: noContent('Ended', noStore()) },
        refusals: own,
      }),
    },
    '/api/mfa': {
      get: operation(context, {
        operationId: 'secondFactorState',
        summary: 'The caller’s second factor',
        description: '`totp`: `none`, `pending` (set up but not confirmed) or `enabled`; `recovery_codes_left`: the unused recovery codes.',
        tags: ['account'],
        security: SESSION,
        responses: { 200: json(schemas, 'The state', secondFactorStateResponse, noStore()) },
        refusals: [...guardRefusals(config, false), 'session_required'],
      }),
    },
    '/api/mfa/totp': {
      post: operation(context, {
        operationId: 'beginTotp',
        summary: 'Set up an authenticator app',
        description: 'A new secret, pending until `POST /api/mfa/totp/confirm` brings a code from the app: the secret (for typing in), its `otpauth://` link, and that link as a QR code (SVG). A pending one is replaced. RFC 6238: SHA-1, 6 digits, 30-second steps.',
        tags: ['account'],
        security: SESSION,
        responses: { 200: json(schemas, 'The secret, pending', totpSetupResponse, noStore()) },
        refusals: [...own, 'mfa_already_enabled'],
      }),
      delete: operation(context, {
        operationId: 'removeTotp',
        summary: 'Remove the authenticator app',
        description: `With the password. The recovery codes go with it; logging in takes the password alone again. ${password}`,
        tags: ['account'],
        security: SESSION,
        body: { json: bodies.removeTotp },
        responses: { 204: noContent('Removed', noStore()) },
        refusals: [...own, 'invalid_credentials'],
      }),
    },
    '/api/mfa/totp/confirm': {
      post: operation(context, {
        operationId: 'confirmTotp',
        summary: 'Confirm the authenticator app with a code',
        description: 'Turns the second factor on, and answers the ten recovery codes: shown this once, stored hashed, each usable once in place of a code. A wrong code is 401 `invalid_code`; nothing pending is 404.',
        tags: ['account'],
        security: SESSION,
        body: { json: bodies.confirmTotp },
        responses: { 200: json(schemas, 'On; the recovery codes, once', recoveryCodesResponse, noStore()) },
        refusals: [...own, 'invalid_code', 'not_found'],
      }),
    },
    '/api/passkeys': {
      get: operation(context, {
        operationId: 'listPasskeys',
        summary: 'The caller’s passkeys',
        description: 'Oldest first: the credential id, the name, when it was made and last used.',
        tags: ['account'],
        security: SESSION,
        responses: { 200: json(schemas, 'The passkeys', passkeyListResponse, noStore()) },
        refusals: [...guardRefusals(config, false), 'session_required'],
      }),
      post: operation(context, {
        operationId: 'addPasskey',
        summary: 'Keep a passkey the browser made',
        description: 'The answer of `startRegistration` of @simplewebauthn/browser to `POST /api/passkeys/options`: verified against that challenge (single use, 5 minutes), this site’s origin and RP id (SERVICE_AUTH_PUBLIC_URL).',
        tags: ['account'],
        security: SESSION,
        body: { json: bodies.addPasskey },
        responses: { 201: json(schemas, 'Kept', passkeyCreatedResponse, noStore()) },
        refusals: [...own, 'bad_request', 'invalid_passkey'],
      }),
    },
    '/api/passkeys/options': {
      post: operation(context, {
        operationId: 'passkeyRegistrationOptions',
        summary: 'Options to make a passkey',
        description: `With the password, as a passkey signs in without one (a session alone, perhaps left open or stolen, cannot add one). For \`startRegistration\` of @simplewebauthn/browser: a challenge (single use, 5 minutes), this site as the relying party, the caller as the user, their passkeys excluded; the user must be verified (a PIN or fingerprint, not only a touch). ${password}`,
        tags: ['account'],
        security: SESSION,
        body: { json: bodies.passkeyOptions },
        responses: { 200: json(schemas, 'The options', webauthnOptionsResponse, noStore()) },
        refusals: [...own, 'bad_request', 'invalid_credentials'],
      }),
    },
    '/api/passkeys/{id}': {
      delete: operation(context, {
        operationId: 'removePasskey',
        summary: 'Remove a passkey',
        description: 'One of the caller’s; another user’s is a 404, like an unknown id.',
        tags: ['account'],
        security: SESSION,
        parameters: [pathId('The credential id (`id` in the list)')],
        responses: { 204: noContent('Removed', noStore()) },
        refusals: [...own, 'not_found'],
      }),
    },
    '/api/security-log': {
      get: operation(context, {
        operationId: 'securityLog',
        summary: 'The caller’s security log',
        description: 'The caller’s own audit records (docs/audit.md), 50 a page, newest first: logins (refused ones too), logouts, password and address changes, tokens, sessions, roles, each with the client address and user agent. `next` is the `before` of the next page, null on the last. Never a record’s hash, nor another user’s records. With a bearer token, one made without scopes and without an organization: a token with scopes, or bound to an organization, is 403 `insufficient_scope`.',
        tags: ['account'],
        security: SESSION_OR_TOKEN,
        parameters: [beforeParameter('A record id: only records older than it (the previous page’s `next`)')],
        responses: { 200: json(schemas, 'A page of records', securityLogResponse, noStore()) },
        refusals: [...guardRefusals(config, false), 'insufficient_scope', 'bad_request'],
      }),
    },
    '/api/sessions/{id}': {
      delete: operation(context, {
        operationId: 'endSession',
        summary: 'End one session',
        description: 'One of the caller’s sessions; another user’s is a 404, like an unknown id. Ending this request’s own session logs it out (the cookie is cleared).',
        tags: ['account'],
        security: SESSION,
        parameters: [pathId('The session’s public id (`id` in the list)')],
        responses: { 204: noContent('Ended', { ...noStore(), ...sessionCookieHeader(context, 'Clears the cookie, when it was this request’s session', false) }) },
        refusals: [...own, 'not_found'],
      }),
    },
  };
}
