/**
 * The login's other ways, for API clients: the second step (a code, a recovery code or a passkey
 * after the password) and signing in with a passkey alone. The second step's page posts its form
 * to `/login/mfa` too (pages/mfa-routes.ts).
 */
import type { Passkeys } from '../../mfa/passkeys.js';
import type { AccountActions } from '../actions/account.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { checkedSameSite } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { countedHeaders, sessionCookieHeader } from '../openapi/operations.js';
import { json, redirect } from '../openapi/responses.js';
import { accountSchemas } from '../schemas/accounts.js';
import { webauthnOptionsResponse } from '../schemas/mfa-responses.js';
import { userResponse } from '../schemas/responses.js';
import { SAME_SITE, unconfirmed } from './public-account.js';

export const loginSecondStep = endpoint({
  method: 'post',
  path: '/login/mfa',
  operationId: 'loginSecondStep',
  summary: 'Complete a login with a second factor',
  description: ({ config }) => {
    const rates = config.rateLimit;
    return [
      'The `ticket` of the `mfa_required` answer (single use, 5 minutes) and one of: `code`, the 6 digits of the',
      'authenticator app (each accepted once); `recovery_code`, one of the ten (each works once); `passkey`, the',
      'answer of one of the user’s passkeys to `POST /login/mfa/passkey/options`.',
      'A wrong code is 401 `invalid_code`; the fifth ends the ticket (401 `invalid_ticket`, as for an unknown or',
      `expired one). ${SAME_SITE}`,
      rates.enabled
        ? `Wrong codes count with wrong passwords: ${rates.loginFailures.text} per account and client address` +
          ' (SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES).'
        : '',
      rates.enabled
        ? 'Wrong authenticator codes also count per account from every address: past' +
          ` ${rates.secondFactorFailures.text} (SERVICE_AUTH_RATE_LIMIT_SECOND_FACTOR_FAILURES) a code is 429` +
          ' without being checked; a recovery code or a passkey still logs in.'
        : '',
    ]
      .filter(Boolean)
      .join(' ');
  },
  tags: ['account'],
  guards: [checkedSameSite('login')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).loginSecondStep }),
  responses: (context) => {
    const counted = countedHeaders(context.config);
    return {
      200: json(context.schemas, 'Logged in', userResponse, {
        ...counted,
        ...sessionCookieHeader(context, 'The new session'),
      }),
      303: redirect(
        'A browser’s form: logged in, to `next` (a same-site path) or `/`; or, the ticket no longer good, to' +
          ' `/login?mfa=expired`',
        { ...counted, ...sessionCookieHeader(context, 'The new session, when logged in', false) },
      ),
    };
  },
  refusals: ({ config }) => [
    'bad_request',
    'invalid_code',
    'invalid_ticket',
    'account_disabled',
    ...unconfirmed(config),
  ],
});

export const secondStepPasskeyOptions = endpoint({
  method: 'post',
  path: '/login/mfa/passkey/options',
  operationId: 'secondStepPasskeyOptions',
  summary: 'Options for a passkey as the login’s second step',
  description:
    "For the `ticket` of the mfa_required answer: a challenge (single use, 5 minutes) that only the ticket's user's" +
    ' passkeys may answer, for `startAuthentication`; the answer goes to `POST /login/mfa` as `passkey`. ' +
    SAME_SITE,
  tags: ['account'],
  guards: [checkedSameSite('login')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).secondStepOptions }),
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The options', webauthnOptionsResponse, countedHeaders(config)),
  }),
  refusals: ['bad_request', 'invalid_ticket'],
});

export const passkeyLoginOptions = endpoint({
  method: 'post',
  path: '/login/passkey/options',
  operationId: 'passkeyLoginOptions',
  summary: 'Options to sign in with a passkey',
  description:
    'The challenge (single use, 5 minutes) for `startAuthentication` of @simplewebauthn/browser; any passkey of' +
    ` this site may answer it. ${SAME_SITE}`,
  tags: ['account'],
  guards: [checkedSameSite('login')],
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The options', webauthnOptionsResponse, countedHeaders(config)),
  }),
});

export const passkeyLogin = endpoint({
  method: 'post',
  path: '/login/passkey',
  operationId: 'passkeyLogin',
  summary: 'Sign in with a passkey, without a password',
  description:
    "The browser's answer to the options; a new session, as a login (event `user_login`). A passkey is both" +
    ` factors: no second step follows. ${SAME_SITE}`,
  tags: ['account'],
  guards: [checkedSameSite('login')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).passkeyLogin }),
  responses: (context) => {
    const headers = { ...countedHeaders(context.config), ...sessionCookieHeader(context, 'The new session') };
    return { 200: json(context.schemas, 'Signed in', userResponse, headers) };
  },
  refusals: ({ config }) => ['bad_request', 'invalid_passkey', 'account_disabled', ...unconfirmed(config)],
});

export const LOGIN_STEP_ENDPOINTS = [loginSecondStep, secondStepPasskeyOptions, passkeyLoginOptions, passkeyLogin];

export interface LoginStepsDeps {
  actions: AccountActions;
  passkeys: Pick<Passkeys, 'authenticationOptions'>;
}

export function loginStepsApi({ actions, passkeys }: LoginStepsDeps, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(loginSecondStep, async (req, res) => {
      res.json({ user: await actions.loginSecondStep(req, res) });
    })
    .on(secondStepPasskeyOptions, async (req, res) => {
      res.json(await actions.secondStepPasskeyOptions(req));
    })
    .on(passkeyLoginOptions, async (_req, res) => {
      res.json(await passkeys.authenticationOptions());
    })
    .on(passkeyLogin, async (req, res) => {
      res.json({ user: await actions.loginWithPasskey(req, res) });
    });
}
