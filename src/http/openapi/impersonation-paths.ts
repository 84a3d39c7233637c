/**
 * Acting as another user (api/impersonation.ts, and the banner's stop form: pages/impersonation-routes.ts),
 * docs/impersonation.md.
 */
import { impersonationSchemas } from '../schemas/impersonation.js';
import { userResponse } from '../schemas/responses.js';
import { guardRefusals, noStore, operation, sessionCookieHeader, type DocumentContext, type Paths } from './operations.js';
import { json, redirect } from './responses.js';

const SESSION = [{ session: [] }];

export function impersonationPaths(context: DocumentContext): Paths {
  const { config, schemas } = context;
  const ttl = `SERVICE_AUTH_IMPERSONATION_TTL (${config.sessions.impersonationTtlSeconds} s)`;
  const own = 'The impersonator’s own session again, under a new secret';
  return {
    '/api/impersonation': {
      post: operation(context, {
        operationId: 'startImpersonation',
        summary: 'Act as another user',
        description: [
          'From a logged-in session only (a token is 403 `session_required`), whose ability allows `impersonate` on `subject(\'User\', target)` (a global `manage all` does).',
          'A global admin (`is_admin`) is never a target (403 `forbidden`), nor oneself or a disabled account; without any `impersonate` rule on `User`, every id is 403 `forbidden`, existing or not.',
          `The answer sets the cookie of a new session as the target, marked with the impersonator, which ends after ${ttl}, on \`DELETE /api/impersonation\`, or with the impersonator's own session; the next request after the time is up is the impersonator's own again.`,
          'Meanwhile the target’s password, address, second factor, sessions and tokens, the account’s deletion and another impersonation are 403 `impersonation_forbidden`, and every audit record names the impersonator.',
        ].join(' '),
        tags: ['account'],
        security: SESSION,
        body: { json: impersonationSchemas.start },
        responses: { 201: json(schemas, 'Acting as the user', impersonationSchemas.started, { ...noStore(), ...sessionCookieHeader(context, 'The session as the target') }) },
        refusals: [...guardRefusals(config, true), 'session_required', 'forbidden', 'not_found', 'impersonation_forbidden'],
      }),
      delete: operation(context, {
        operationId: 'stopImpersonation',
        summary: 'Stop acting as another user',
        description: `Ends the request’s impersonation: the answer is the impersonator, and sets the cookie of their own session again. Not acting as anyone is 404 \`not_found\`; an impersonator whose own session has ended meanwhile is 401 (the cookie cleared).`,
        tags: ['account'],
        security: SESSION,
        responses: { 200: json(schemas, 'The impersonator again', userResponse, { ...noStore(), ...sessionCookieHeader(context, own) }) },
        refusals: [...guardRefusals(config, true), 'not_found'],
      }),
    },
    '/impersonation/stop': {
      post: operation(context, {
        operationId: 'stopImpersonationForm',
        summary: 'Stop acting as another user (the banner’s button)',
        description:
          'As `DELETE /api/impersonation`, which a form cannot send; answered with a 303 to the application’s home page, `/`. It takes only a browser’s form (urlencoded, preferring HTML, without Authorization): anything else is the 404 of paths nobody serves.',
        tags: ['pages'],
        security: SESSION,
        responses: { 303: redirect('Stopped: to the home page as the impersonator', sessionCookieHeader(context, own)) },
        refusals: [...guardRefusals(config, true), 'not_found'],
      }),
    },
  };
}
