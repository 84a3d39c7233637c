/**
 * The account endpoints (api/account.ts, and the pages' forms that post to the same paths:
 * pages/account-routes.ts): register, login, logout, me, forgot and reset, and confirming an
 * address.
 */
import { accountSchemas } from '../schemas/accounts.js';
import { messageResponse, userResponse, webauthnOptionsResponse } from '../schemas/responses.js';
import { countedHeaders, guardRefusals, limitNote, noStore, operation, PUBLIC, sessionCookieHeader, SESSION_OR_TOKEN, tokenFailuresNote, whenLimited, type DocumentContext, type Paths } from './operations.js';
import { json, jsonOrPage, noContent, redirect } from './responses.js';

const FORM = 'A browser’s form (urlencoded, preferring HTML, without Authorization) is answered with pages: ';

export function accountPaths(context: DocumentContext): Paths {
  const { config, schemas } = context;
  const bodies = accountSchemas(config.passwords);
  const rates = config.rateLimit;
  const counted = countedHeaders(config);
  const cookie = sessionCookieHeader(context, 'The new session');
  const sameSite = 'It must come from this site (Sec-Fetch-Site or Origin), with or without a cookie.';

  const confirming = config.emailConfirmation.enabled;
  return {
    '/register': {
      post: operation(context, {
        operationId: 'register',
        summary: confirming ? 'Create an account, to confirm from the mailed link' : 'Create an account and log in',
        description: [
          confirming
            ? 'SERVICE_AUTH_EMAIL_CONFIRMATION is on: the answer is the same 202 for a new address and a taken one, after the same work, and sets no session. A new address gets an unconfirmed user (with SERVICE_AUTH_DEFAULT_ROLES) and a link to `/confirm`; a taken one a notice.'
            : 'Creates the user (with SERVICE_AUTH_DEFAULT_ROLES) and starts a session.',
          sameSite,
          limitNote(config, rates.register, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_REGISTER'),
          confirming ? `${FORM}the page again (202) saying the mail is on its way, or the form again with the problem.` : `${FORM}a 303 to \`next\`, or the form again with the problem.`,
        ].filter(Boolean).join(' '),
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.register },
        responses: confirming
          ? { 202: jsonOrPage(schemas, 'Accepted, whatever the address: a mail follows', messageResponse, counted) }
          : {
              201: json(schemas, 'Registered and logged in', userResponse, { ...counted, ...cookie }),
              303: redirect('A browser’s form: registered, to `next` (a same-site path) or `/`', { ...counted, ...cookie }),
            },
        refusals: [...whenLimited(config), 'csrf_rejected', 'invalid_email', 'password_rules', ...(confirming ? [] : (['email_taken'] as const))],
      }),
    },
    '/login': {
      post: operation(context, {
        operationId: 'login',
        summary: 'Log in with email and password',
        description: [
          `Starts a new session (replacing the one the request carried). ${sameSite}`,
          'For an account with a second factor, the right password answers 401 `mfa_required` with a `ticket` instead, and no session: `POST /login/mfa` completes the login.',
          limitNote(config, rates.login, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_LOGIN'),
          config.rateLimit.enabled ? `Failed logins: ${rates.loginFailures.text} per account and client address (SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES).` : '',
          `${FORM}a 303 to \`next\`, or the form again with the problem.`,
        ].filter(Boolean).join(' '),
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.login },
        responses: {
          200: jsonOrPage(schemas, 'Logged in; for a browser’s form of an account with a second factor, the page of the second step (no session yet)', userResponse, { ...counted, ...sessionCookieHeader(context, 'The new session (none on the second step’s page)', false) }),
          303: redirect('A browser’s form: logged in, to `next` (a same-site path) or `/`', { ...counted, ...cookie }),
        },
        refusals: [...whenLimited(config), 'csrf_rejected', 'invalid_credentials', 'mfa_required', 'account_disabled', ...(confirming ? (['email_unconfirmed'] as const) : [])],
      }),
    },
    '/login/mfa': {
      post: operation(context, {
        operationId: 'loginSecondStep',
        summary: 'Complete a login with a second factor',
        description: [
          'The `ticket` of the `mfa_required` answer (single use, 5 minutes) and one of: `code`, the 6 digits of the authenticator app (each accepted once); `recovery_code`, one of the ten (each works once); `passkey`, the answer of one of the user’s passkeys to `POST /login/mfa/passkey/options`.',
          `A wrong code is 401 \`invalid_code\`; the fifth ends the ticket (401 \`invalid_ticket\`, as for an unknown or expired one). ${sameSite}`,
          config.rateLimit.enabled ? `Wrong codes count with wrong passwords: ${rates.loginFailures.text} per account and client address (SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES).` : '',
          config.rateLimit.enabled
            ? `Wrong authenticator codes also count per account from every address: past ${rates.secondFactorFailures.text} (SERVICE_AUTH_RATE_LIMIT_SECOND_FACTOR_FAILURES) a code is 429 without being checked; a recovery code or a passkey still logs in.`
            : '',
        ].filter(Boolean).join(' '),
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.loginSecondStep },
        responses: {
          200: json(schemas, 'Logged in', userResponse, { ...counted, ...cookie }),
          303: redirect('A browser’s form: logged in, to `next` (a same-site path) or `/`; or, the ticket no longer good, to `/login?mfa=expired`', { ...counted, ...sessionCookieHeader(context, 'The new session, when logged in', false) }),
        },
        refusals: [...whenLimited(config), 'csrf_rejected', 'bad_request', 'invalid_code', 'invalid_ticket', 'account_disabled', ...(confirming ? (['email_unconfirmed'] as const) : [])],
      }),
    },
    '/login/mfa/passkey/options': {
      post: operation(context, {
        operationId: 'secondStepPasskeyOptions',
        summary: 'Options for a passkey as the login’s second step',
        description: `For the \`ticket\` of the mfa_required answer: a challenge (single use, 5 minutes) that only the ticket's user's passkeys may answer, for \`startAuthentication\`; the answer goes to \`POST /login/mfa\` as \`passkey\`. ${sameSite}`,
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.secondStepOptions },
        responses: { 200: json(schemas, 'The options', webauthnOptionsResponse, counted) },
        refusals: [...whenLimited(config), 'csrf_rejected', 'bad_request', 'invalid_ticket'],
      }),
    },
    '/login/passkey/options': {
      post: operation(context, {
        operationId: 'passkeyLoginOptions',
        summary: 'Options to sign in with a passkey',
        description: `The challenge (single use, 5 minutes) for \`startAuthentication\` of @simplewebauthn/browser; any passkey of this site may answer it. ${sameSite}`,
        tags: ['account'],
        security: PUBLIC,
        responses: { 200: json(schemas, 'The options', webauthnOptionsResponse, counted) },
        refusals: [...whenLimited(config), 'csrf_rejected'],
      }),
    },
    '/login/passkey': {
      post: operation(context, {
        operationId: 'passkeyLogin',
        summary: 'Sign in with a passkey, without a password',
        description: `The browser's answer to the options; a new session, as a login (event \`user_login\`). A passkey is both factors: no second step follows. ${sameSite}`,
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.passkeyLogin },
        responses: { 200: json(schemas, 'Signed in', userResponse, { ...counted, ...cookie }) },
        refusals: [...whenLimited(config), 'csrf_rejected', 'bad_request', 'invalid_passkey', 'account_disabled', ...(confirming ? (['email_unconfirmed'] as const) : [])],
      }),
    },
    '/logout': {
      post: operation(context, {
        operationId: 'logout',
        summary: 'Log out',
        description: `Ends the request’s session, if any, and clears the cookie either way. With a session, it must come from this site. A request with a bearer token is refused (400 \`bad_request\`): a token is not logged out but revoked (\`DELETE ${context.config.urlPrefix}/api/tokens/{id}\`). ${FORM}a 303 to \`/\`.`,
        tags: ['account'],
        security: [{}, { session: [] }],
        responses: {
          204: noContent('Logged out (or there was no session)', sessionCookieHeader(context, 'Clears the cookie')),
          303: redirect('A browser’s form: logged out, to `/`', sessionCookieHeader(context, 'Clears the cookie')),
        },
        refusals: ['csrf_rejected', 'bad_request'],
      }),
    },
    '/me': {
      get: operation(context, {
        operationId: 'me',
        summary: 'The logged-in user',
        description: `The user of the session cookie or the bearer token.${tokenFailuresNote(config)}`,
        tags: ['account'],
        security: SESSION_OR_TOKEN,
        responses: { 200: json(schemas, 'The user', userResponse, noStore()) },
        refusals: guardRefusals(config, false),
      }),
    },
    '/forgot': {
      post: operation(context, {
        operationId: 'forgotPassword',
        summary: 'Ask for a password reset link',
        description: [
          'Answers at once, the same for every address: the account is looked up, and the link mailed, after the response.',
          `${sameSite} ${limitNote(config, rates.forgotPassword, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD')}`,
          `${FORM}the page again (202) saying the mail is on its way.`,
        ].filter(Boolean).join(' '),
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.forgot },
        responses: { 202: jsonOrPage(schemas, 'Accepted: a link is mailed if the address has an account (JSON, or the page for a browser’s form)', messageResponse, counted) },
        refusals: [...whenLimited(config), 'csrf_rejected', 'invalid_email'],
      }),
    },
    '/reset': {
      post: operation(context, {
        operationId: 'resetPassword',
        summary: 'Set a new password with a reset link’s token',
        description: [
          'Uses up the token and sets the password, which ends every session of the user',
          `(and their tokens, per SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET). ${sameSite}`,
          limitNote(config, rates.resetPassword, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD'),
          `${FORM}a 303 to the login page.`,
        ].filter(Boolean).join(' '),
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.reset },
        responses: {
          200: json(schemas, 'The password is changed', messageResponse, counted),
          303: redirect(`A browser’s form: changed, to \`${config.urlPrefix}/login?reset=done\``, counted),
        },
        refusals: [...whenLimited(config), 'csrf_rejected', 'invalid_reset_token', 'password_rules'],
      }),
    },
    '/confirm': {
      post: operation(context, {
        operationId: 'confirmEmail',
        summary: 'Confirm an account’s address with the mailed link’s token',
        description: [
          'Single use. No session is started: log in after.',
          `${sameSite} ${limitNote(config, rates.resetPassword, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD')}`,
          `${FORM}a page saying so.`,
        ].join(' '),
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.confirm },
        responses: { 200: jsonOrPage(schemas, 'Confirmed (JSON, or a page for a browser’s form)', userResponse, counted) },
        refusals: [...whenLimited(config), 'csrf_rejected', 'invalid_confirmation_token'],
      }),
    },
    '/confirm/resend': {
      post: operation(context, {
        operationId: 'resendConfirmation',
        summary: 'Ask for a new confirmation link',
        description: [
          'Answers at once, the same for every address: a link is mailed after the answer, only to an account awaiting confirmation.',
          `${sameSite} ${limitNote(config, rates.forgotPassword, 'per client address', 'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD')}`,
          `${FORM}a page saying the mail is on its way.`,
        ].join(' '),
        tags: ['account'],
        security: PUBLIC,
        body: { json: bodies.resend },
        responses: { 202: jsonOrPage(schemas, 'Accepted, whatever the address', messageResponse, counted) },
        refusals: [...whenLimited(config), 'csrf_rejected', 'invalid_email'],
      }),
    },
  };
}
