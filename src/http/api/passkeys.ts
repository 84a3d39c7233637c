/** `/api/passkeys`: the caller's passkeys (docs/mfa.md), with a session from this site. */
import type { MfaActions } from '../actions/mfa.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { noStore, pathId } from '../openapi/operations.js';
import { json, noContent } from '../openapi/responses.js';
import { accountSchemas } from '../schemas/accounts.js';
import { passkeyCreatedResponse, passkeyListResponse, webauthnOptionsResponse } from '../schemas/mfa-responses.js';
import { accountEndpoint, OWN, wrongPassword } from './own-account.js';

export const listPasskeys = accountEndpoint({
  method: 'get',
  path: '/api/passkeys',
  operationId: 'listPasskeys',
  summary: 'The caller’s passkeys',
  description: 'Oldest first: the credential id, the name, when it was made and last used.',
  responses: ({ schemas }) => ({ 200: json(schemas, 'The passkeys', passkeyListResponse, noStore()) }),
  refusals: ['session_required'],
});

export const passkeyOptions = accountEndpoint({
  method: 'post',
  path: '/api/passkeys/options',
  operationId: 'passkeyRegistrationOptions',
  summary: 'Options to make a passkey',
  description: ({ config }) =>
    [
      'With the password, as a passkey signs in without one (a session alone, perhaps left open or stolen, cannot',
      'add one). For `startRegistration` of @simplewebauthn/browser: a challenge (single use, 5 minutes), this site',
      'as the relying party, the caller as the user, their passkeys excluded; the user must be verified (a PIN or',
      `fingerprint, not only a touch). ${wrongPassword(config)}`,
    ].join(' '),
  body: ({ config }) => ({ json: accountSchemas(config.passwords).passkeyOptions }),
  responses: ({ schemas }) => ({ 200: json(schemas, 'The options', webauthnOptionsResponse, noStore()) }),
  refusals: [...OWN, 'bad_request', 'invalid_credentials'],
});

export const addPasskey = accountEndpoint({
  method: 'post',
  path: '/api/passkeys',
  operationId: 'addPasskey',
  summary: 'Keep a passkey the browser made',
  description: [
    'The answer of `startRegistration` of @simplewebauthn/browser to `POST /api/passkeys/options`: verified against',
    'that challenge (single use, 5 minutes), this site’s origin and RP id (SERVICE_AUTH_PUBLIC_URL).',
  ].join(' '),
  body: ({ config }) => ({ json: accountSchemas(config.passwords).addPasskey }),
  responses: ({ schemas }) => ({ 201: json(schemas, 'Kept', passkeyCreatedResponse, noStore()) }),
  refusals: [...OWN, 'bad_request', 'invalid_passkey'],
});

export const removePasskey = accountEndpoint({
  method: 'delete',
  path: '/api/passkeys/:id',
  operationId: 'removePasskey',
  summary: 'Remove a passkey',
  description: 'One of the caller’s; another user’s is a 404, like an unknown id.',
  parameters: [pathId('The credential id (`id` in the list)')],
  responses: { 204: noContent('Removed', noStore()) },
  refusals: [...OWN, 'not_found'],
});

export const PASSKEY_ENDPOINTS = [listPasskeys, addPasskey, passkeyOptions, removePasskey];

export function passkeysApi(actions: MfaActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(listPasskeys, async (req, res) => {
      res.json({ passkeys: await actions.passkeys(req) });
    })
    .on(passkeyOptions, async (req, res) => {
      res.json(await actions.passkeyOptions(req));
    })
    .on(addPasskey, async (req, res) => {
      res.status(201).json({ passkey: await actions.addPasskey(req) });
    })
    .on(removePasskey, async (req, res) => {
      await actions.removePasskey(req, String(req.params['id']));
      res.status(204).end();
    });
}
