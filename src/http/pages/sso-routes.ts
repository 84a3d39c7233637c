/**
 * Sign-in through identity providers for people with browsers (`GET /sso/:provider` and its
 * callback), and `GET /identities` with its unlink buttons' posts (identities-page.ts). A program
 * may follow the same redirects: a refusal is then problem details, and an account with a second
 * factor gets the 401 `mfa_required` with its ticket rather than the second step's page.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import type { SsoActions } from '../actions/sso.js';
import { IDENTITY_ID, UNLINK_REFUSALS } from '../api/identities.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { LOGIN, SESSION } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { queryParameter, toLoginPage } from '../openapi/operations.js';
import { page, redirect } from '../openapi/responses.js';
import { safeNext, wantsPage } from '../requests/negotiation.js';
import { formRoute, type FormRoute } from './forms.js';
import type { Notice } from './layout.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

const PROVIDER: OpenAPIV3_1.ParameterObject = {
  name: 'provider',
  in: 'path',
  required: true,
  description: 'The provider’s id (SERVICE_AUTH_SSO_PROVIDERS, `auth.addIdentityProvider`)',
  schema: { type: 'string' },
};

export const startSso = endpoint({
  method: 'get',
  path: '/sso/:provider',
  operationId: 'startSso',
  summary: 'Sign in through an identity provider',
  description: ({ config }) =>
    [
      'A 303 to the provider’s authorization endpoint, with PKCE (S256), `state` and (OpenID Connect) `nonce`, kept',
      'single use for 10 minutes and bound to this browser by an HttpOnly cookie. With `link=1` and a session, the',
      'identity is linked to the signed-in user instead (a browser without a session is sent to the login page); a',
      'start from another site is refused (403 `csrf_rejected`), so that nobody can link their own identity at the',
      "provider to a visitor's account. The provider comes back to",
      `\`GET ${config.urlPrefix}/sso/{provider}/callback\`.`,
    ].join(' '),
  tags: ['sso'],
  parameters: [
    PROVIDER,
    queryParameter('next', 'Where to go after signing in: a same-site path (anything else is ignored)'),
    queryParameter('link', '`1`: link the identity to the signed-in user'),
  ],
  responses: { 303: redirect('To the provider') },
  // Without a guard: linking checks the credentials itself (actions/sso.ts), as `loginRequired` would.
  refusals: [
    'not_found',
    'unauthenticated',
    'invalid_token',
    'session_required',
    'csrf_rejected',
    'impersonation_forbidden',
    'sso_failed',
  ],
});

export const finishSso = endpoint({
  method: 'get',
  path: '/sso/:provider/callback',
  operationId: 'finishSso',
  summary: 'The provider’s answer',
  description: [
    'Checked by openid-client: the browser’s attempt (`state`, single use), the code exchanged with PKCE and',
    'client_secret_basic, the ID token’s signature, issuer, audience and nonce. A linked identity signs its user in',
    '(a new session, as a password login), a new one registers with SERVICE_AUTH_SSO_REGISTRATION if the provider',
    'verified the address; an address alone never joins an account. With a second factor: the login’s second step',
    '(a page; 401 `mfa_required` with the ticket for a program), unless the provider is trusted for it and its `amr`',
    'says it did one. Every refusal is 400 `sso_failed` with a `reason`, and no session.',
  ].join(' '),
  tags: ['sso'],
  parameters: [
    PROVIDER,
    queryParameter('code', 'From the provider'),
    queryParameter('state', 'From the provider'),
    queryParameter('error', 'From the provider, instead of a code'),
  ],
  responses: ({ config }) => ({
    200: page('The login’s second step'),
    303: redirect(`Signed in: to \`next\` (or /); linked: to \`${config.urlPrefix}/identities?linked=1\``),
  }),
  refusals: ['not_found', 'sso_failed', 'mfa_required', 'account_disabled', 'email_unconfirmed', 'identity_in_use'],
});

export const identitiesPage = endpoint({
  method: 'get',
  path: '/identities',
  operationId: 'identitiesPage',
  summary:
    'The identities page: the providers linked to the caller, a button to unlink each, a link per provider to link it',
  description: ({ config }) =>
    `The unlink buttons post to \`POST ${config.urlPrefix}/identities/{id}/remove\`; linking goes through` +
    ` \`GET ${config.urlPrefix}/sso/{provider}?link=1\`. A bearer token is refused (403 \`session_required\`).`,
  tags: ['pages'],
  guards: [LOGIN],
  security: SESSION,
  parameters: [
    queryParameter('linked', '`1`: says a provider was linked'),
    queryParameter('unlinked', '`1`: says a provider was unlinked'),
  ],
  responses: ({ config }) => ({ 200: page('The page'), 303: toLoginPage(config) }),
  refusals: ['session_required'],
});

export const unlinkIdentityForm = endpoint({
  method: 'post',
  path: '/identities/:id/remove',
  operationId: 'unlinkIdentityForm',
  summary: 'Unlink an identity (the identities page’s button)',
  description: ({ config }) =>
    'As `DELETE /api/identities/{id}`, which a form cannot send; answered with a 303 to' +
    ` \`${config.urlPrefix}/identities?unlinked=1\`. It takes only a browser’s form.`,
  tags: ['pages'],
  guards: [LOGIN],
  security: SESSION,
  formsOnly: true,
  parameters: [IDENTITY_ID],
  responses: { 303: redirect('Unlinked: to the identities page') },
  refusals: UNLINK_REFUSALS,
});

export const SSO_PAGES = [startSso, finishSso, identitiesPage, unlinkIdentityForm];

export interface SsoPageDeps {
  config: AuthConfig;
  sso: SsoActions;
  providers: { list(): { id: string; name: string }[] };
  pluggable: { readonly texts: PageTexts };
}

export function ssoPages({ config, sso, providers, pluggable }: SsoPageDeps, kit: GuardKit): EndpointRouter {
  const prefix = config.urlPrefix;
  const show = async (req: Request, res: Response, status: number, notice: Notice | null): Promise<void> => {
    const identities = await sso.list(req);
    await sendPage(req, res, status, 'identities', {
      prefix,
      texts: pluggable.texts,
      email: req.user!.email,
      identities,
      providers: providers.list(),
      notice,
    });
  };
  // A refused answer's page links back to the login page, where the sign-in starts again.
  const callbackForm: FormRoute = { fields: [], page: () => `${prefix}/login`, showAgain: async () => false };
  const removeForm: FormRoute = {
    fields: [],
    page: () => `${prefix}/identities`,
    async showAgain(req, res, error) {
      if (!req.user || (error.code !== 'last_sign_in_method' && error.code !== 'not_found')) return false;
      const t = pluggable.texts.sso;
      await show(req, res, error.status, {
        kind: 'error',
        text: error.code === 'last_sign_in_method' ? t.lastMethod : pluggable.texts.problems.notFound.text,
      });
      return true;
    },
  };

  const noticeOf = (req: Request): Notice | null => {
    const t = pluggable.texts.sso;
    if (req.query['linked'] === '1') return { kind: 'info', text: t.linked };
    return req.query['unlinked'] === '1' ? { kind: 'info', text: t.unlinked } : null;
  };

  return new EndpointRouter(kit)
    .on(startSso, async (req, res) => {
      seeOther(res, await sso.start(req, res));
    })
    .on(
      finishSso,
      async (req, res) => {
        const outcome = await sso.finish(req, res);
        if (outcome.kind === 'signed_in') seeOther(res, safeNext(outcome.next));
        else if (outcome.kind === 'linked') seeOther(res, `${prefix}/identities?linked=1`);
        else if (!wantsPage(req)) throw outcome.step;
        else {
          const { ticket, methods } = outcome.step;
          const passkey = methods.includes('passkey');
          const { texts } = pluggable;
          const locals = { prefix, texts, ticket, passkey, next: outcome.next, errors: null, notice: null };
          await sendPage(req, res, 200, 'login-mfa', locals);
        }
      },
      { form: formRoute(callbackForm) },
    )
    .on(identitiesPage, (req, res) => show(req, res, 200, noticeOf(req)))
    .on(
      unlinkIdentityForm,
      async (req, res) => {
        await sso.unlink(req);
        res.redirect(303, `${prefix}/identities?unlinked=1`);
      },
      { form: formRoute(removeForm) },
    );
}

/**
 * A 303 with a line of text whatever the Accept header: browsers and programs that follow the
 * provider's redirects alike (Express's `res.redirect` writes no body for a JSON client).
 */
function seeOther(res: Response, url: string): void {
  res.status(303).location(url).type('text/plain').send(`See Other. Redirecting to ${url}`);
}
