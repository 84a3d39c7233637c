/**
 * Sign-in through identity providers (docs/sso.md): the start and the provider's way back, which
 * browsers navigate, and the caller's linked identities, as JSON and as the page's forms.
 */
import { identityListResponse } from '../schemas/responses.js';
import { guardRefusals, noStore, operation, pathId, PUBLIC, queryParameter, toLoginPage, type DocumentContext, type Paths } from './operations.js';
import { json, noContent, page, redirect } from './responses.js';

const SESSION = [{ session: [] }];
const providerParameter = { name: 'provider', in: 'path' as const, required: true, description: 'The provider’s id (SERVICE_AUTH_SSO_PROVIDERS, `auth.addIdentityProvider`)', schema: { type: 'string' as const } };

export function ssoPaths(context: DocumentContext): Paths {
  const { config } = context;
  const prefix = config.urlPrefix;
  const own = [...guardRefusals(config, false), 'session_required'] as const;
  return {
    '/sso/{provider}': {
      get: operation(context, {
        operationId: 'startSso',
        summary: 'Sign in through an identity provider',
        description: `A 303 to the provider’s authorization endpoint, with PKCE (S256), \`state\` and (OpenID Connect) \`nonce\`, kept single use for 10 minutes and bound to this browser by an HttpOnly cookie. With \`link=1\` and a session, the identity is linked to the signed-in user instead (a browser without a session is sent to the login page); a start from another site is refused (403 \`csrf_rejected\`), so that nobody can link their own identity at the provider to a visitor's account. The provider comes back to \`GET ${prefix}/sso/{provider}/callback\`.`,
        tags: ['sso'],
        security: PUBLIC,
        parameters: [
          providerParameter,
          queryParameter('next', 'Where to go after signing in: a same-site path (anything else is ignored)'),
          queryParameter('link', '`1`: link the identity to the signed-in user'),
        ],
        responses: { 303: redirect('To the provider') },
        refusals: [
          'not_found',
          'unauthenticated',
          'invalid_token',
          'session_required',
          'csrf_rejected',
          'impersonation_forbidden',
          'sso_failed',
        ],
      }),
    },
    '/sso/{provider}/callback': {
      get: operation(context, {
        operationId: 'finishSso',
        summary: 'The provider’s answer',
        description:
          'Checked by openid-client: the browser’s attempt (`state`, single use), the code exchanged with PKCE and client_secret_basic, the ID token’s signature, issuer, audience and nonce. A linked identity signs its user in (a new session, as a password login), a new one registers with SERVICE_AUTH_SSO_REGISTRATION if the provider verified the address; an address alone never joins an account. With a second factor: the login’s second step (a page; 401 `mfa_required` with the ticket for a program), unless the provider is trusted for it and its `amr` says it did one. Every refusal is 400 `sso_failed` with a `reason`, and no session.',
        tags: ['sso'],
        security: PUBLIC,
        parameters: [providerParameter, queryParameter('code', 'From the provider'), queryParameter('state', 'From the provider'), queryParameter('error', 'From the provider, instead of a code')],
        responses: { 200: page('The login’s second step'), 303: redirect(`Signed in: to \`next\` (or /); linked: to \`${prefix}/identities?linked=1\``) },
        refusals: ['not_found', 'sso_failed', 'mfa_required', 'account_disabled', 'email_unconfirmed', 'identity_in_use'],
      }),
    },
    '/identities': {
      get: operation(context, {
        operationId: 'identitiesPage',
        summary: 'The identities page: the providers linked to the caller, a button to unlink each, a link per provider to link it',
        description: `The unlink buttons post to \`POST ${prefix}/identities/{id}/remove\`; linking goes through \`GET ${prefix}/sso/{provider}?link=1\`. A bearer token is refused (403 \`session_required\`).`,
        tags: ['pages'],
        security: SESSION,
        parameters: [queryParameter('linked', '`1`: says a provider was linked'), queryParameter('unlinked', '`1`: says a provider was unlinked')],
        responses: { 200: page('The page'), 303: toLoginPage(config) },
        refusals: own,
      }),
    },
    '/identities/{id}/remove': {
      post: operation(context, {
        operationId: 'unlinkIdentityForm',
        summary: 'Unlink an identity (the identities page’s button)',
        description: `As \`DELETE /api/identities/{id}\`, which a form cannot send; answered with a 303 to \`${prefix}/identities?unlinked=1\`. It takes only a browser’s form.`,
        tags: ['pages'],
        security: SESSION,
        parameters: [pathId('The identity’s `id`')],
        responses: { 303: redirect('Unlinked: to the identities page') },
        refusals: [...guardRefusals(config, true), 'session_required', 'not_found', 'last_sign_in_method', 'impersonation_forbidden'],
      }),
    },
    '/api/identities': {
      get: operation(context, {
        operationId: 'listIdentities',
        summary: 'The caller’s linked identities',
        description: 'Oldest first: the provider’s id, the subject it names the person by, the address it gave when linked.',
        tags: ['sso'],
        security: SESSION,
        responses: { 200: jsonList(context) },
        refusals: own,
      }),
    },
    '/api/identities/{id}': {
      delete: operation(context, {
        operationId: 'unlinkIdentity',
        summary: 'Unlink an identity',
        description: 'One of the caller’s (another user’s is a 404, like an unknown id); 409 `last_sign_in_method` if it is the account’s only way in: no password, no passkey, no other identity.',
        tags: ['sso'],
        security: SESSION,
        parameters: [pathId('The identity’s `id`')],
        responses: { 204: noContent('Unlinked') },
        refusals: [...guardRefusals(config, true), 'session_required', 'not_found', 'last_sign_in_method', 'impersonation_forbidden'],
      }),
    },
  };
}

function jsonList({ schemas }: DocumentContext) {
  return json(schemas, 'The identities', identityListResponse, noStore());
}
