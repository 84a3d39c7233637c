/**
 * `/api/tokens` for API clients: create (a session only), list and revoke the caller's own
 * tokens. With a bearer token, scopes bind here too, as on the pages (actions/tokens.ts). The
 * tokens page's forms post to the same paths (pages/token-routes.ts).
 */
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { NewToken, TokenService } from '../../tokens/service.js';
import { assertMayRevoke, assertSession, ownTokens } from '../actions/tokens.js';
import { endpoint } from '../endpoints/endpoint.js';
import { checked, LOGIN, SESSION, tokenFailuresNote } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { countedHeaders, limitNote, noStore, pathId, toLoginPage } from '../openapi/operations.js';
import { json, jsonOrPage, noContent, redirect } from '../openapi/responses.js';
import { createdTokenSchema, tokenListResponse } from '../schemas/responses.js';
import { parseBody } from '../schemas/parse.js';
import { tokenSchemas } from '../schemas/tokens.js';

const SCOPED = 'With a bearer token that has scopes or is bound to an organization, ';
const ID = pathId('The token’s public id (`id` in the list)');

export const createToken = endpoint({
  method: 'post',
  path: '/api/tokens',
  operationId: 'createToken',
  summary: 'Create a personal access token',
  description: ({ config, scopes }) => {
    const { tokens } = config;
    const defined = scopes.map(({ name, description }) => `\`${name}\` (${description})`).join(', ');
    return [
      'From a logged-in session only (a token may not mint tokens), from this site.',
      `At most ${tokens.maxPerUser} active tokens per user (SERVICE_AUTH_MAX_TOKENS_PER_USER);`,
      `\`expires_in_days\` from 1 to ${tokens.maxExpiryDays} (SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS),`,
      `${tokens.defaultExpiryDays} when left out.`,
      '`org` (an organization’s id or slug) binds the token to an organization of the user’s: refused',
      '(403 `forbidden`) in any other, and with the user’s global roles only outside every organization; one',
      'that does not exist or the user is not a member of is 400 `bad_request` on `org`, alike.',
      scopes.length > 0
        ? '`scopes` binds what the token may do: within the user’s rights, only what one of its scopes’ rules' +
          ' allows (docs/tokens.md). The scopes defined here (also under `x-scopes` at the document’s root):' +
          ` ${defined}; any other is 422 \`unknown_scope\`.`
        : '`scopes` are labels for `requireScopes` until the application defines scopes (`auth.defineScope`);' +
          ' from then on they bind what the token may do, and an undefined one is 422 `unknown_scope`.',
      'The tokens page’s form sends the same fields as text: the days as digits, the scopes separated by',
      'spaces or commas (or one field per checked scope);',
      'it is answered with the page, showing the new token once, or the form again with the problem.',
      limitNote(
        config,
        config.rateLimit.tokenCreation,
        'requests from a session to create a token, per user, wherever from',
        'SERVICE_AUTH_RATE_LIMIT_TOKEN_CREATION',
      ),
    ].join(' ');
  },
  tags: ['tokens'],
  guards: [LOGIN, checked('createToken')],
  security: SESSION,
  body: ({ config }) => {
    const newToken = tokenSchemas(config.tokens.maxExpiryDays);
    return { json: newToken.json, form: newToken.form };
  },
  responses: ({ config, schemas }) => {
    const created = createdTokenSchema(config.tokens.prefix);
    const headers = { ...noStore(), ...countedHeaders(config) };
    return { 201: jsonOrPage(schemas, 'Created: the raw token is in this answer only', created, headers) };
  },
  refusals: ['session_required', 'token_limit', 'unknown_scope', 'impersonation_forbidden'],
});

export const listTokens = endpoint({
  method: 'get',
  path: '/api/tokens',
  operationId: 'listTokens',
  summary: 'The caller’s tokens',
  description: ({ config }) =>
    'Those not revoked, oldest first; never a hash or a raw token. With a bearer token, listing needs one made' +
    ' without scopes and without an organization (403 `insufficient_scope` otherwise).' +
    tokenFailuresNote(config),
  tags: ['tokens'],
  guards: [LOGIN],
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The tokens', tokenListResponse, noStore()),
    303: toLoginPage(config),
  }),
  refusals: ['insufficient_scope'],
});

const revoke = (operationId: string, path: string, summary: string, form: boolean) =>
  endpoint({
    method: form ? 'post' : 'delete',
    path,
    operationId,
    summary,
    description: ({ config }) =>
      [
        `Revokes one of the caller’s own tokens; another user’s is a 404, like an unknown id. ${SCOPED}only that`,
        'token itself.',
        form
          ? 'What the revoke page’s form posts to (forms cannot send DELETE); a browser’s form is answered with a 303' +
            ` to \`${config.urlPrefix}/tokens?revoked=1\`.`
          : '',
      ]
        .filter(Boolean)
        .join(' ') + tokenFailuresNote(config),
    tags: ['tokens'],
    guards: [LOGIN],
    parameters: [ID],
    responses: form
      ? {
          204: noContent('Revoked', noStore()),
          303: redirect('A browser’s form: revoked, to the tokens page', noStore()),
        }
      : { 204: noContent('Revoked', noStore()) },
    refusals: ['insufficient_scope', 'not_found', 'impersonation_forbidden'],
  });

export const deleteToken = revoke('deleteToken', '/api/tokens/:id', 'Revoke a token', false);
export const revokeToken = revoke(
  'revokeToken',
  '/api/tokens/:id/revoke',
  'Revoke a token (the revoke page’s form)',
  true,
);

export const TOKEN_ENDPOINTS = [createToken, listTokens, deleteToken, revokeToken];

export interface TokensApiDeps {
  tokens: TokenService;
  /** `POST /api/tokens`'s body as JSON. */
  newToken: z.ZodType<NewToken>;
}

export function tokensApi({ tokens, newToken }: TokensApiDeps, kit: GuardKit): EndpointRouter {
  const revoking: RequestHandler = async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params['id']);
    assertMayRevoke(req, id);
    await tokens.revoke(id, req.user!.id);
    res.status(204).end();
  };
  return (
    new EndpointRouter(kit)
      .on(createToken, async (req, res) => {
        assertSession(req);
        const created = await tokens.create(req.user!.id, parseBody(newToken, req));
        res.status(201).json(created);
      })
      .on(listTokens, async (req, res) => {
        res.json({ tokens: await ownTokens(tokens, req) });
      })
      .on(deleteToken, revoking)
      // What the revoke confirmation page's form posts to (HTML forms cannot send DELETE), for API clients too.
      .on(revokeToken, revoking)
  );
}
