/**
 * The JSON API under `/api/` (api/tokens.ts, api/abilities.ts, and the tokens page's forms that
 * post to the same paths: pages/token-routes.ts): personal access tokens and the user's rules.
 */
import { createdTokenSchema, rulesResponse, tokenListResponse } from '../schemas/responses.js';
import { tokenSchemas } from '../schemas/tokens.js';
import { countedHeaders, guardRefusals, limitNote, noStore, operation, pathId, queryParameter, SESSION_OR_TOKEN, toLoginPage, tokenFailuresNote, type DocumentContext, type Paths } from './operations.js';
import { json, jsonOrPage, noContent, redirect } from './responses.js';

export function tokenPaths(context: DocumentContext): Paths {
  const { config, schemas, scopes } = context;
  const { tokens } = config;
  const newToken = tokenSchemas(tokens.maxExpiryDays);
  const failures = tokenFailuresNote(config);
  const scoped = 'With a bearer token that has scopes or is bound to an organization, ';
  const id = pathId('The token’s public id (`id` in the list)');
  const revoke = (operationId: string, summary: string, form: boolean) =>
    operation(context, {
      operationId,
      summary,
      description: [
        `Revokes one of the caller’s own tokens; another user’s is a 404, like an unknown id. ${scoped}only that token itself.`,
        form ? `What the revoke page’s form posts to (forms cannot send DELETE); a browser’s form is answered with a 303 to \`${config.urlPrefix}/tokens?revoked=1\`.` : '',
      ]
        .filter(Boolean)
        .join(' ') + failures,
      tags: ['tokens'],
      security: SESSION_OR_TOKEN,
      parameters: [id],
      responses: form
        ? { 204: noContent('Revoked', noStore()), 303: redirect('A browser’s form: revoked, to the tokens page', noStore()) }
        : { 204: noContent('Revoked', noStore()) },
      refusals: [...guardRefusals(config, true), 'insufficient_scope', 'not_found', 'impersonation_forbidden'],
    });

  return {
    '/api/tokens': {
      post: operation(context, {
        operationId: 'createToken',
        summary: 'Create a personal access token',
        description: [
          'From a logged-in session only (a token may not mint tokens), from this site.',
          `At most ${tokens.maxPerUser} active tokens per user (SERVICE_AUTH_MAX_TOKENS_PER_USER);`,
          `\`expires_in_days\` from 1 to ${tokens.maxExpiryDays} (SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS), ${tokens.defaultExpiryDays} when left out.`,
          '`org` (an organization’s id or slug) binds the token to an organization of the user’s: refused (403 `forbidden`) in any other, and with the user’s global roles only outside every organization; one that does not exist or the user is not a member of is 400 `bad_request` on `org`, alike.',
          scopes.length > 0
            ? `\`scopes\` binds what the token may do: within the user’s rights, only what one of its scopes’ rules allows (docs/tokens.md). The scopes defined here (also under \`x-scopes\` at the document’s root): ${scopes.map(({ name, description }) => `\`${name}\` (${description})`).join(', ')}; any other is 422 \`unknown_scope\`.`
            : '`scopes` are labels for `requireScopes` until the application defines scopes (`auth.defineScope`); from then on they bind what the token may do, and an undefined one is 422 `unknown_scope`.',
          'The tokens page’s form sends the same fields as text: the days as digits, the scopes separated by spaces or commas (or one field per checked scope);',
          'it is answered with the page, showing the new token once, or the form again with the problem.',
          limitNote(config, config.rateLimit.tokenCreation, 'requests from a session to create a token, per user, wherever from', 'SERVICE_AUTH_RATE_LIMIT_TOKEN_CREATION'),
        ].filter(Boolean).join(' '),
        tags: ['tokens'],
        security: [{ session: [] }],
        body: { json: newToken.json, form: newToken.form },
        responses: { 201: jsonOrPage(schemas, 'Created: the raw token is in this answer only', createdTokenSchema(tokens.prefix), { ...noStore(), ...countedHeaders(config) }) },
        refusals: [...guardRefusals(config, true), 'session_required', 'token_limit', 'unknown_scope', 'impersonation_forbidden'],
      }),
      get: operation(context, {
        operationId: 'listTokens',
        summary: 'The caller’s tokens',
        description: `Those not revoked, oldest first; never a hash or a raw token. With a bearer token, listing needs one made without scopes and without an organization (403 \`insufficient_scope\` otherwise).${failures}`,
        tags: ['tokens'],
        security: SESSION_OR_TOKEN,
        responses: { 200: json(schemas, 'The tokens', tokenListResponse, noStore()), 303: toLoginPage(config) },
        refusals: [...guardRefusals(config, false), 'insufficient_scope'],
      }),
    },
    '/api/tokens/{id}': { delete: revoke('deleteToken', 'Revoke a token', false) },
    '/api/tokens/{id}/revoke': { post: revoke('revokeToken', 'Revoke a token (the revoke page’s form)', true) },
    '/api/abilities': {
      get: operation(context, {
        operationId: 'abilities',
        summary: 'The user’s authorization rules',
        description: `The serialisable CASL rules the request decides with, placeholders filled in, for a front end to build the same ability; policies stay on the server. Outside organizations, the user’s global roles’ rules; with \`org\`, the rules in that organization (global roles, then the membership’s organization roles, bound to it; 404 \`not_found\` for one the user is not a member of). A token bound to an organization gets the rules there (another \`org\`: 403 \`forbidden\`); a token with scopes, those rules intersected with its scopes’ rules.${failures}`,
        tags: ['authorization'],
        security: SESSION_OR_TOKEN,
        parameters: [
          queryParameter('packed', '`true`: in CASL’s `packRules` form (any other value: as they are)'),
          queryParameter('org', 'An organization’s id or slug: the rules in it, as after `orgRequired`'),
        ],
        responses: { 200: json(schemas, 'The rules', rulesResponse, noStore()), 303: toLoginPage(config) },
        refusals: [...guardRefusals(config, false), 'bad_request', 'forbidden', 'not_found', 'attributes_unavailable'],
      }),
    },
  };
}
