/** `/api/mfa`: the caller’s second factor (docs/mfa.md), with a session from this site. */
import type { MfaActions } from '../actions/mfa.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { noStore } from '../openapi/operations.js';
import { json, noContent } from '../openapi/responses.js';
import { accountSchemas } from '../schemas/accounts.js';
import { recoveryCodesResponse, secondFactorStateResponse, totpSetupResponse } from '../schemas/mfa-responses.js';
import { accountEndpoint, OWN, wrongPassword } from './own-account.js';

export const secondFactorState = accountEndpoint({
  method: 'get',
  path: '/api/mfa',
  operationId: 'secondFactorState',
  summary: 'The caller’s second factor',
  description:
    '`totp`: `none`, `pending` (set up but not confirmed) or `enabled`; `recovery_codes_left`: the unused recovery' +
    ' codes.',
  responses: ({ schemas }) => ({ 200: json(schemas, 'The state', secondFactorStateResponse, noStore()) }),
  refusals: ['session_required'],
});

export const beginTotp = accountEndpoint({
  method: 'post',
  path: '/api/mfa/totp',
  operationId: 'beginTotp',
  summary: 'Set up an authenticator app',
  description: [
    'A new secret, pending until `POST /api/mfa/totp/confirm` brings a code from the app: the secret (for typing',
    'in), its `otpauth://` link, and that link as a QR code (SVG). A pending one is replaced. RFC 6238: SHA-1, 6',
    'digits, 30-second steps.',
  ].join(' '),
  responses: ({ schemas }) => ({ 200: json(schemas, 'The secret, pending', totpSetupResponse, noStore()) }),
  refusals: [...OWN, 'mfa_already_enabled'],
});

export const removeTotp = accountEndpoint({
  method: 'delete',
  path: '/api/mfa/totp',
  operationId: 'removeTotp',
  summary: 'Remove the authenticator app',
  description: ({ config }) =>
    'With the password. The recovery codes go with it; logging in takes the password alone again. ' +
    wrongPassword(config),
  body: ({ config }) => ({ json: accountSchemas(config.passwords).removeTotp }),
  responses: { 204: noContent('Removed', noStore()) },
  refusals: [...OWN, 'invalid_credentials'],
});

export const confirmTotp = accountEndpoint({
  method: 'post',
  path: '/api/mfa/totp/confirm',
  operationId: 'confirmTotp',
  summary: 'Confirm the authenticator app with a code',
  description: [
    'Turns the second factor on, and answers the ten recovery codes: shown this once, stored hashed, each usable once',
    'in place of a code. A wrong code is 401 `invalid_code`; nothing pending is 404.',
  ].join(' '),
  body: ({ config }) => ({ json: accountSchemas(config.passwords).confirmTotp }),
  responses: ({ schemas }) => ({
    200: json(schemas, 'On; the recovery codes, once', recoveryCodesResponse, noStore()),
  }),
  refusals: [...OWN, 'invalid_code', 'not_found'],
});

export const MFA_ENDPOINTS = [secondFactorState, beginTotp, removeTotp, confirmTotp];

export function mfaApi(actions: MfaActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(secondFactorState, async (req, res) => {
      res.json(await actions.state(req));
    })
    .on(beginTotp, async (req, res) => {
      res.json(await actions.beginTotp(req));
    })
    .on(confirmTotp, async (req, res) => {
      res.json({ recovery_codes: await actions.confirmTotp(req) });
    })
    .on(removeTotp, async (req, res) => {
      await actions.removeTotp(req);
      res.status(204).end();
    });
}
