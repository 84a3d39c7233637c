/**
 * The account endpoints for API clients, in JSON: register, login, logout and me. The login's
 * second step and passkeys: login-steps.ts; the mailed links': links.ts. The account pages' forms
 * post to the same paths (pages/account-routes.ts).
 */
import type { CredentialResolver } from '../../authentication/credentials.js';
import { AuthError } from '../../errors.js';
import type { AccountActions } from '../actions/account.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { checkedSameSite, loginRefusals, SESSION_OR_TOKEN, tokenFailuresNote } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { countedHeaders, noStore, sessionCookieHeader } from '../openapi/operations.js';
import { json, jsonOrPage, noContent, redirect, type Response } from '../openapi/responses.js';
import { accountSchemas } from '../schemas/accounts.js';
import { messageResponse, userResponse } from '../schemas/responses.js';
import { FORM, perAddress, SAME_SITE, unconfirmed } from './public-account.js';

export const REGISTER_MESSAGE = 'Check your mail: a link to confirm the address is on its way.';

export const register = endpoint({
  method: 'post',
  path: '/register',
  operationId: 'register',
  summary: ({ config }) =>
    config.emailConfirmation.enabled
      ? 'Create an account, to confirm from the mailed link'
      : 'Create an account and log in',
  description: ({ config }) => {
    const confirming = config.emailConfirmation.enabled;
    return [
      confirming
        ? 'SERVICE_AUTH_EMAIL_CONFIRMATION is on: the answer is the same 202 for a new address and a taken one, after' +
          ' the same work, and sets no session. A new address gets an unconfirmed user (with' +
          ' SERVICE_AUTH_DEFAULT_ROLES) and a link to `/confirm`; a taken one a notice.'
        : 'Creates the user (with SERVICE_AUTH_DEFAULT_ROLES) and starts a session.',
      SAME_SITE,
      perAddress(config, config.rateLimit.register, 'SERVICE_AUTH_RATE_LIMIT_REGISTER'),
      confirming
        ? `${FORM}the page again (202) saying the mail is on its way, or the form again with the problem.`
        : `${FORM}a 303 to \`next\`, or the form again with the problem.`,
    ].join(' ');
  },
  tags: ['account'],
  guards: [checkedSameSite('register')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).register }),
  responses: (context): Record<number, Response> => {
    const { config, schemas } = context;
    const counted = countedHeaders(config);
    if (config.emailConfirmation.enabled) {
      return { 202: jsonOrPage(schemas, 'Accepted, whatever the address: a mail follows', messageResponse, counted) };
    }
    const headers = { ...counted, ...sessionCookieHeader(context, 'The new session') };
    return {
      201: json(schemas, 'Registered and logged in', userResponse, headers),
      303: redirect('A browser’s form: registered, to `next` (a same-site path) or `/`', headers),
    };
  },
  refusals: ({ config }) => [
    'invalid_email',
    'password_rules',
    ...(config.emailConfirmation.enabled ? [] : (['email_taken'] as const)),
  ],
});

export const login = endpoint({
  method: 'post',
  path: '/login',
  operationId: 'login',
  summary: 'Log in with email and password',
  description: ({ config }) => {
    const rates = config.rateLimit;
    return [
      `Starts a new session (replacing the one the request carried). ${SAME_SITE}`,
      'For an account with a second factor, the right password answers 401 `mfa_required` with a `ticket` instead,',
      'and no session: `POST /login/mfa` completes the login.',
      perAddress(config, rates.login, 'SERVICE_AUTH_RATE_LIMIT_LOGIN'),
      rates.enabled
        ? `Failed logins: ${rates.loginFailures.text} per account and client address` +
          ' (SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES).'
        : '',
      `${FORM}a 303 to \`next\`, or the form again with the problem.`,
    ]
      .filter(Boolean)
      .join(' ');
  },
  tags: ['account'],
  guards: [checkedSameSite('login')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).login }),
  responses: (context) => {
    const counted = countedHeaders(context.config);
    const maybe = sessionCookieHeader(context, 'The new session (none on the second step’s page)', false);
    return {
      200: jsonOrPage(
        context.schemas,
        'Logged in; for a browser’s form of an account with a second factor, the page of the second step' +
          ' (no session yet)',
        userResponse,
        { ...counted, ...maybe },
      ),
      303: redirect('A browser’s form: logged in, to `next` (a same-site path) or `/`', {
        ...counted,
        ...sessionCookieHeader(context, 'The new session'),
      }),
    };
  },
  refusals: ({ config }) => ['invalid_credentials', 'mfa_required', 'account_disabled', ...unconfirmed(config)],
});

export const logout = endpoint({
  method: 'post',
  path: '/logout',
  operationId: 'logout',
  summary: 'Log out',
  description: ({ config }) =>
    [
      'Ends the request’s session, if any, and clears the cookie either way. With a session, it must come from this',
      'site. A request with a bearer token is refused (400 `bad_request`): a token is not logged out but revoked',
      `(\`DELETE ${config.urlPrefix}/api/tokens/{id}\`). ${FORM}a 303 to \`/\`.`,
    ].join(' '),
  tags: ['account'],
  security: [{}, { session: [] }],
  responses: (context) => ({
    204: noContent('Logged out (or there was no session)', sessionCookieHeader(context, 'Clears the cookie')),
    303: redirect('A browser’s form: logged out, to `/`', sessionCookieHeader(context, 'Clears the cookie')),
  }),
  refusals: ['csrf_rejected', 'bad_request'],
});

export const me = endpoint({
  method: 'get',
  path: '/me',
  operationId: 'me',
  summary: 'The logged-in user',
  description: ({ config }) => `The user of the session cookie or the bearer token.${tokenFailuresNote(config)}`,
  tags: ['account'],
  // No guard: the route resolves the credentials itself, and refuses as `loginRequired` would.
  security: SESSION_OR_TOKEN,
  responses: ({ schemas }) => ({ 200: json(schemas, 'The user', userResponse, noStore()) }),
  refusals: ({ config }) => loginRefusals(config, false),
});

export const ACCOUNT_ENDPOINTS = [register, login, logout, me];

export interface AccountApiDeps {
  actions: AccountActions;
  credentials: CredentialResolver;
}

export function accountApi({ actions, credentials }: AccountApiDeps, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(me, async (req, res) => {
      const found = await credentials.resolve(req);
      if (!found) throw new AuthError('unauthenticated', 'Log in to see this');
      res.json({ user: found.user });
    })
    .on(register, async (req, res) => {
      const user = await actions.register(req, res);
      // With SERVICE_AUTH_EMAIL_CONFIRMATION on, the same answer for every address.
      if (user) res.status(201).json({ user });
      else res.status(202).json({ message: REGISTER_MESSAGE });
    })
    .on(login, async (req, res) => {
      res.json({ user: await actions.login(req, res) });
    })
    .on(logout, async (req, res) => {
      await actions.logout(req, res);
      res.status(204).end();
    });
}
