/**
 * The `/tokens` pages for people with browsers (the list with its creation form, and a
 * confirmation before revoking), and their forms' posts to `/api/tokens` and
 * `/api/tokens/<id>/revoke`. A post that is not a browser's form goes on to the JSON API.
 */
import type { Request, Response } from 'express';
import type { AuthConfig } from '../../config/config.js';
import { AuthError } from '../../errors.js';
import type { z } from 'zod';
import type { NewToken, TokenService } from '../../tokens/service.js';
import type { OrgActions } from '../actions/orgs.js';
import { assertSession, ownToken, ownTokens } from '../actions/tokens.js';
import { createToken, revokeToken } from '../api/tokens.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { LOGIN, tokenFailuresNote } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { pathId, queryParameter, toLoginPage } from '../openapi/operations.js';
import { page } from '../openapi/responses.js';
import { textField } from '../requests/input.js';
import { parseBody } from '../schemas/parse.js';
import { formRoute, type FormRoute } from './forms.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';
import type { DefinedScope, TokensPageLocals } from './tokens-page.js';

const AS_THE_API =
  'a token with scopes, or bound to an organization, is refused (403 `insufficient_scope`), as by the API.';

export const tokensPage = endpoint({
  method: 'get',
  path: '/tokens',
  operationId: 'tokensPage',
  summary: 'The tokens page: the caller’s tokens and a form to create one',
  description: ({ config }) =>
    'Its form posts to `POST /api/tokens`. With a bearer token, one made without scopes and without an' +
    ` organization: ${AS_THE_API}` +
    tokenFailuresNote(config),
  tags: ['pages'],
  guards: [LOGIN],
  parameters: [queryParameter('revoked', '`1`: says a token was revoked')],
  responses: ({ config }) => ({ 200: page('The page'), 303: toLoginPage(config) }),
  refusals: ['insufficient_scope'],
});

export const revokeTokenPage = endpoint({
  method: 'get',
  path: '/tokens/:id/revoke',
  operationId: 'revokeTokenPage',
  summary: 'The page confirming a token’s revocation',
  description: ({ config }) =>
    [
      'Its form posts to `POST /api/tokens/{id}/revoke`. An unknown token shows the tokens page, saying so, with',
      'status 404. A bearer token with scopes, or bound to an organization, is shown only its own (403',
      '`insufficient_scope` for another), as the API lets it revoke only itself.',
    ].join(' ') + tokenFailuresNote(config),
  tags: ['pages'],
  guards: [LOGIN],
  parameters: [pathId('The token’s public id')],
  responses: ({ config }) => ({ 200: page('The page'), 303: toLoginPage(config) }),
  refusals: ['insufficient_scope', 'not_found'],
});

export const TOKEN_PAGES = [tokensPage, revokeTokenPage];

export interface TokenPageDeps {
  config: AuthConfig;
  tokens: TokenService;
  /** The caller's organizations, to bind a new token to one (a bound token's: that one only). */
  orgs: Pick<OrgActions, 'mine'>;
  /** The creation form's fields, all text. */
  tokenForm: z.ZodType<NewToken>;
  pluggable: { readonly texts: PageTexts };
  /** The scopes the application defines, for the creation form. */
  scopes: { list(): DefinedScope[] };
}

type PageExtras = Partial<Pick<TokensPageLocals, 'created' | 'notice' | 'errors' | 'values'>>;

export function tokenPages(deps: TokenPageDeps, kit: GuardKit): EndpointRouter {
  const { config, tokens, orgs, tokenForm, pluggable, scopes } = deps;
  const prefix = config.urlPrefix;

  const show = async (req: Request, res: Response, status: number, extra: PageExtras = {}): Promise<void> => {
    await sendPage(req, res, status, 'tokens', {
      prefix,
      texts: pluggable.texts,
      email: req.user!.email,
      tokens: await ownTokens(tokens, req),
      orgs: (await orgs.mine(req)).map(({ id, slug, name }) => ({ id, slug, name })),
      created: null,
      notice: null,
      errors: null,
      values: null,
      maxExpiryDays: config.tokens.maxExpiryDays,
      defaultExpiryDays: config.tokens.defaultExpiryDays,
      scopes: scopes.list(),
      ...extra,
    });
  };

  // The forms posting here are on the tokens pages (the list, the revoke confirmation): a refusal
  // shows the list again, field problems beside their field with what was typed, others above it.
  const tokensForm: FormRoute = {
    fields: ['name', 'expires_in_days', 'scopes', 'org'],
    page: () => `${prefix}/tokens`,
    async showAgain(req, res, error, refusal) {
      if (!refusal || !req.user) return false;
      // The checkboxes of the defined scopes send one `scopes` each.
      const checked = (req.body as Record<string, unknown> | undefined)?.['scopes'];
      const scopeText = Array.isArray(checked)
        ? checked.filter((item) => typeof item === 'string').join(' ')
        : textField(req, 'scopes');
      const values = {
        name: textField(req, 'name'),
        expires_in_days: textField(req, 'expires_in_days'),
        scopes: scopeText,
        org: textField(req, 'org'),
      };
      await show(req, res, error.status, { ...refusal, values });
      return true;
    },
  };

  // The texts are read with each request: an application may replace them at any time.
  const revoked = () => ({ notice: { kind: 'info' as const, text: pluggable.texts.tokens.revoked } });
  return (
    new EndpointRouter(kit)
      .on(tokensPage, (req, res) => show(req, res, 200, req.query['revoked'] === '1' ? revoked() : {}))
      // An unknown token's confirmation shows the list, saying so (a program gets a 404 problem).
      .on(
        revokeTokenPage,
        async (req, res) => {
          const token = await ownToken(tokens, req, String(req.params['id']));
          if (!token) throw new AuthError('not_found', `No token with id ${JSON.stringify(req.params['id'])}`);
          await sendPage(req, res, 200, 'revoke', { prefix, texts: pluggable.texts, token });
        },
        { form: formRoute(tokensForm) },
      )
      .form(createToken, formRoute(tokensForm), async (req, res) => {
        assertSession(req);
        const created = await tokens.create(req.user!.id, parseBody(tokenForm, req));
        await show(req, res, 201, { created });
      })
      // A browser's form never carries a bearer token: a token's post goes on to the API's check.
      .form(revokeToken, formRoute(tokensForm), async (req, res) => {
        await tokens.revoke(String(req.params['id']), req.user!.id);
        res.redirect(303, `${prefix}/tokens?revoked=1`);
      })
  );
}
