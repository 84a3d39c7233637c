/**
 * The kinds of page endpoints (pages/*-routes.ts): public pages, pages of the logged-in user's own
 * account, and the routes of the pages' own that a form posts to because it cannot send DELETE,
 * which take only a browser's form. Most forms post to the JSON API's paths instead (api/*.ts).
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ErrorCode } from '../../errors.js';
import { described, endpoint, type Described, type Endpoint, type EndpointSpec } from '../endpoints/endpoint.js';
import { LOGIN, SESSION, tokenFailuresNote } from '../endpoints/guards.js';
import { queryParameter, sessionCookieHeader, toLoginPage, type DocumentContext } from '../openapi/operations.js';
import { page, type Headers } from '../openapi/responses.js';

export const NEXT = queryParameter('next', 'Where to go after the form: a same-site path (anything else is ignored)');

const FORMS_ONLY =
  'It takes only a browser’s form (urlencoded, preferring HTML, without Authorization): anything else is the 404 of' +
  ' paths nobody serves.';

/** Every form of the pages' own changes the account itself: refused while acting as its user. */
export const UNSAFE: readonly ErrorCode[] = ['session_required', 'not_found', 'impersonation_forbidden'];

/** A page anyone may see. */
export function publicPage(
  path: string,
  operationId: string,
  summary: string,
  parameters: OpenAPIV3_1.ParameterObject[] = [],
  description?: Described<string>,
): Endpoint {
  return endpoint({
    method: 'get',
    path,
    operationId,
    summary,
    ...(description ? { description } : {}),
    tags: ['pages'],
    parameters,
    responses: { 200: page('The page') },
  });
}

/** A link's page, which changes nothing. */
export function linkPage(endpoint: string): string {
  return (
    'Opening it changes nothing (mail scanners follow links): a usable link shows a button whose form posts the' +
    ` token to \`POST ${endpoint}\`; an unusable one says so.`
  );
}

/** A page of the logged-in user's own account: a session's, not a token's. */
export function ownPage(
  path: string,
  operationId: string,
  summary: string,
  description: string,
  parameters: OpenAPIV3_1.ParameterObject[] = [],
): Endpoint {
  return endpoint({
    method: 'get',
    path,
    operationId,
    summary,
    description: ({ config }) =>
      `${description} A bearer token is refused (403 \`session_required\`).${tokenFailuresNote(config)}`,
    tags: ['pages'],
    guards: [LOGIN],
    security: SESSION,
    parameters,
    responses: ({ config }) => ({ 200: page('The page'), 303: toLoginPage(config) }),
    refusals: ['session_required'],
  });
}

/**
 * A route of the pages' own that a form posts to: a redirect, or a refusal (as a page). `guards`:
 * a session by default; the organization page's buttons pass the organization's.
 */
export function formOnly(
  spec: Omit<EndpointSpec, 'tags' | 'security' | 'guards' | 'formsOnly' | 'method'>,
  guards: EndpointSpec['guards'] = [LOGIN],
): Endpoint {
  const text = spec.description ?? '';
  return endpoint({
    ...spec,
    method: 'post',
    description: (context: DocumentContext) =>
      `${described(text, context)} ${FORMS_ONLY}${tokenFailuresNote(context.config)}`,
    tags: ['pages'],
    guards,
    security: SESSION,
    formsOnly: true,
  });
}

/** The `Set-Cookie` that clears the session cookie. */
export function clearsCookie(context: DocumentContext, required: boolean): Headers {
  return sessionCookieHeader(context, 'Clears the cookie', required);
}
