/**
 * The mailed links' endpoints for API clients: asking for a reset link and using it, confirming an
 * account's address and asking for a new confirmation link. The pages' forms post to the same
 * paths (pages/account-routes.ts, pages/confirm-routes.ts).
 */
import type { AccountActions } from '../actions/account.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { checkedSameSite } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { countedHeaders } from '../openapi/operations.js';
import { json, jsonOrPage, redirect } from '../openapi/responses.js';
import { accountSchemas } from '../schemas/accounts.js';
import { messageResponse, userResponse } from '../schemas/responses.js';
import { FORM, perAddress, SAME_SITE } from './public-account.js';

const FORGOT_MESSAGE = 'If an account exists for that email, a link to reset its password is on its way.';
const RESET_MESSAGE = 'Your password has been changed. Log in with the new one.';
const RESEND_MESSAGE = 'If that address has an account awaiting confirmation, a new link is on its way.';

export const forgotPassword = endpoint({
  method: 'post',
  path: '/forgot',
  operationId: 'forgotPassword',
  summary: 'Ask for a password reset link',
  description: ({ config }) =>
    [
      'Answers at once, the same for every address: the account is looked up, and the link mailed, after the',
      'response.',
      `${SAME_SITE} ${perAddress(config, config.rateLimit.forgotPassword, 'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD')}`,
      `${FORM}the page again (202) saying the mail is on its way.`,
    ].join(' '),
  tags: ['account'],
  guards: [checkedSameSite('forgot')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).forgot }),
  responses: ({ config, schemas }) => ({
    202: jsonOrPage(
      schemas,
      'Accepted: a link is mailed if the address has an account (JSON, or the page for a browser’s form)',
      messageResponse,
      countedHeaders(config),
    ),
  }),
  refusals: ['invalid_email'],
});

export const resetPassword = endpoint({
  method: 'post',
  path: '/reset',
  operationId: 'resetPassword',
  summary: 'Set a new password with a reset link’s token',
  description: ({ config }) =>
    [
      'Uses up the token and sets the password, which ends every session of the user',
      `(and their tokens, per SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET). ${SAME_SITE}`,
      perAddress(config, config.rateLimit.resetPassword, 'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD'),
      `${FORM}a 303 to the login page.`,
    ].join(' '),
  tags: ['account'],
  guards: [checkedSameSite('reset')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).reset }),
  responses: ({ config, schemas }) => {
    const counted = countedHeaders(config);
    return {
      200: json(schemas, 'The password is changed', messageResponse, counted),
      303: redirect(`A browser’s form: changed, to \`${config.urlPrefix}/login?reset=done\``, counted),
    };
  },
  refusals: ['invalid_reset_token', 'password_rules'],
});

export const confirmEmail = endpoint({
  method: 'post',
  path: '/confirm',
  operationId: 'confirmEmail',
  summary: 'Confirm an account’s address with the mailed link’s token',
  description: ({ config }) =>
    [
      'Single use. No session is started: log in after.',
      `${SAME_SITE} ${perAddress(config, config.rateLimit.resetPassword, 'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD')}`,
      `${FORM}a page saying so.`,
    ].join(' '),
  tags: ['account'],
  guards: [checkedSameSite('confirm')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).confirm }),
  responses: ({ config, schemas }) => ({
    200: jsonOrPage(schemas, 'Confirmed (JSON, or a page for a browser’s form)', userResponse, countedHeaders(config)),
  }),
  refusals: ['invalid_confirmation_token'],
});

export const resendConfirmation = endpoint({
  method: 'post',
  path: '/confirm/resend',
  operationId: 'resendConfirmation',
  summary: 'Ask for a new confirmation link',
  description: ({ config }) =>
    [
      'Answers at once, the same for every address: a link is mailed after the answer, only to an account awaiting',
      'confirmation.',
      `${SAME_SITE} ${perAddress(config, config.rateLimit.forgotPassword, 'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD')}`,
      `${FORM}a page saying the mail is on its way.`,
    ].join(' '),
  tags: ['account'],
  guards: [checkedSameSite('resend')],
  body: ({ config }) => ({ json: accountSchemas(config.passwords).resend }),
  responses: ({ config, schemas }) => ({
    202: jsonOrPage(schemas, 'Accepted, whatever the address', messageResponse, countedHeaders(config)),
  }),
  refusals: ['invalid_email'],
});

export const LINK_ENDPOINTS = [forgotPassword, resetPassword, confirmEmail, resendConfirmation];

export function linksApi(actions: AccountActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(forgotPassword, (req, res) => {
      actions.forgot(req);
      res.status(202).json({ message: FORGOT_MESSAGE });
    })
    .on(resetPassword, async (req, res) => {
      await actions.reset(req);
      res.json({ message: RESET_MESSAGE });
    })
    .on(confirmEmail, async (req, res) => {
      res.json({ user: await actions.confirm(req) });
    })
    .on(resendConfirmation, (req, res) => {
      actions.resendConfirmation(req);
      res.status(202).json({ message: RESEND_MESSAGE });
    });
}
