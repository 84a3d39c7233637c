/** `/api/identities`: the caller's linked identity providers (docs/sso.md), with a session from this site. */
import type { SsoActions } from '../actions/sso.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { LOGIN, SESSION } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { noStore, pathId } from '../openapi/operations.js';
import { json, noContent } from '../openapi/responses.js';
import { identityListResponse } from '../schemas/mfa-responses.js';

export const IDENTITY_ID = pathId('The identity’s `id`');

/** Unlinking: one of the caller's, never the account's only way in, never while acting as its user. */
export const UNLINK_REFUSALS = [
  'session_required',
  'not_found',
  'last_sign_in_method',
  'impersonation_forbidden',
] as const;

export const listIdentities = endpoint({
  method: 'get',
  path: '/api/identities',
  operationId: 'listIdentities',
  summary: 'The caller’s linked identities',
  description: 'Oldest first: the provider’s id, the subject it names the person by, the address it gave when linked.',
  tags: ['sso'],
  guards: [LOGIN],
  security: SESSION,
  responses: ({ schemas }) => ({ 200: json(schemas, 'The identities', identityListResponse, noStore()) }),
  refusals: ['session_required'],
});

export const unlinkIdentity = endpoint({
  method: 'delete',
  path: '/api/identities/:id',
  operationId: 'unlinkIdentity',
  summary: 'Unlink an identity',
  description:
    'One of the caller’s (another user’s is a 404, like an unknown id); 409 `last_sign_in_method` if it is the' +
    ' account’s only way in: no password, no passkey, no other identity.',
  tags: ['sso'],
  guards: [LOGIN],
  security: SESSION,
  parameters: [IDENTITY_ID],
  responses: { 204: noContent('Unlinked') },
  refusals: UNLINK_REFUSALS,
});

export const IDENTITY_ENDPOINTS = [listIdentities, unlinkIdentity];

export function identitiesApi(actions: SsoActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(listIdentities, async (req, res) => {
      res.json({ identities: await actions.list(req) });
    })
    .on(unlinkIdentity, async (req, res) => {
      await actions.unlink(req);
      res.status(204).end();
    });
}
