/**
 * `/api/impersonation`: acting as another user (docs/impersonation.md), from a logged-in session.
 * `POST { user_id }` starts (201 `{ user, impersonator }`), `DELETE` stops (200 `{ user }`, the
 * impersonator again). What may be done meanwhile is requests/impersonation-limits.ts's to decide.
 * The banner's stop button posts to pages/impersonation-routes.ts.
 */
import type { Impersonation } from '../../impersonation/impersonation.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { LOGIN, SESSION } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { noStore, sessionCookieHeader } from '../openapi/operations.js';
import { json } from '../openapi/responses.js';
import { impersonationSchemas } from '../schemas/impersonation.js';
import { parseBody } from '../schemas/parse.js';
import { userResponse } from '../schemas/responses.js';

/** The `Set-Cookie` of the impersonator's own session, again. */
export const OWN_SESSION = 'The impersonator’s own session again, under a new secret';

export const startImpersonation = endpoint({
  method: 'post',
  path: '/api/impersonation',
  operationId: 'startImpersonation',
  summary: 'Act as another user',
  description: ({ config }) =>
    [
      'From a logged-in session only (a token is 403 `session_required`), whose ability allows `impersonate` on',
      "`subject('User', target)` (a global `manage all` does).",
      'A global admin (`is_admin`) is never a target (403 `forbidden`), nor oneself or a disabled account; without',
      'any `impersonate` rule on `User`, every id is 403 `forbidden`, existing or not.',
      'The answer sets the cookie of a new session as the target, marked with the impersonator, which ends after',
      `SERVICE_AUTH_IMPERSONATION_TTL (${config.sessions.impersonationTtlSeconds} s),`,
      'on `DELETE /api/impersonation`,',
      "or with the impersonator's own session; the next request after the time is up is the impersonator's own",
      'again.',
      'Meanwhile the target’s password, address, second factor, sessions and tokens, the account’s deletion and',
      'another impersonation are 403 `impersonation_forbidden`, and every audit record names the impersonator.',
    ].join(' '),
  tags: ['account'],
  guards: [LOGIN],
  security: SESSION,
  body: { json: impersonationSchemas.start },
  responses: (context) => {
    const headers = { ...noStore(), ...sessionCookieHeader(context, 'The session as the target') };
    return { 201: json(context.schemas, 'Acting as the user', impersonationSchemas.started, headers) };
  },
  refusals: ['session_required', 'forbidden', 'not_found', 'impersonation_forbidden'],
});

export const stopImpersonation = endpoint({
  method: 'delete',
  path: '/api/impersonation',
  operationId: 'stopImpersonation',
  summary: 'Stop acting as another user',
  description:
    'Ends the request’s impersonation: the answer is the impersonator, and sets the cookie of their own session' +
    ' again. Not acting as anyone is 404 `not_found`; an impersonator whose own session has ended meanwhile is 401' +
    ' (the cookie cleared).',
  tags: ['account'],
  guards: [LOGIN],
  security: SESSION,
  responses: (context) => {
    const headers = { ...noStore(), ...sessionCookieHeader(context, OWN_SESSION) };
    return { 200: json(context.schemas, 'The impersonator again', userResponse, headers) };
  },
  refusals: ['not_found'],
});

export const IMPERSONATION_ENDPOINTS = [startImpersonation, stopImpersonation];

export function impersonationApi(impersonation: Pick<Impersonation, 'start' | 'stop'>, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(startImpersonation, async (req, res) => {
      const { user_id } = parseBody(impersonationSchemas.start, req);
      res.status(201).json(await impersonation.start(req, res, user_id));
    })
    .on(stopImpersonation, async (req, res) => {
      res.json({ user: await impersonation.stop(req, res) });
    });
}
