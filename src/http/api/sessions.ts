/** `/api/sessions`: the caller's own sessions (a session, not a token, manages them). */
import type { SessionActions } from '../actions/sessions.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { noStore, pathId, sessionCookieHeader, toLoginPage } from '../openapi/operations.js';
import { json, noContent } from '../openapi/responses.js';
import { sessionListResponse } from '../schemas/responses.js';
import { accountEndpoint, OWN } from './own-account.js';

export const listSessions = accountEndpoint({
  method: 'get',
  path: '/api/sessions',
  operationId: 'listSessions',
  summary: 'The caller’s sessions',
  description:
    'Live sessions, oldest first, each with its public id (not the cookie), when it started and was last seen' +
    ' (within a minute), and the User-Agent of its login.',
  responses: ({ config, schemas }) => ({
    200: json(schemas, 'The sessions', sessionListResponse, noStore()),
    303: toLoginPage(config),
  }),
  refusals: ['session_required'],
});

export const endOtherSessions = accountEndpoint({
  method: 'delete',
  path: '/api/sessions',
  operationId: 'endOtherSessions',
  summary: 'End every other session',
  description: 'Every session of the caller but this one ends: at once here, within a second on other instances.',
  responses: { 204: noContent('Ended', noStore()) },
  refusals: OWN,
});

export const endSession = accountEndpoint({
  method: 'delete',
  path: '/api/sessions/:id',
  operationId: 'endSession',
  summary: 'End one session',
  description:
    'One of the caller’s sessions; another user’s is a 404, like an unknown id. Ending this request’s own session' +
    ' logs it out (the cookie is cleared).',
  parameters: [pathId('The session’s public id (`id` in the list)')],
  responses: (context) => {
    const clears = sessionCookieHeader(context, 'Clears the cookie, when it was this request’s session', false);
    return { 204: noContent('Ended', { ...noStore(), ...clears }) };
  },
  refusals: [...OWN, 'not_found'],
});

export const SESSION_ENDPOINTS = [listSessions, endOtherSessions, endSession];

export function sessionsApi(actions: SessionActions, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit)
    .on(listSessions, async (req, res) => {
      res.json({ sessions: await actions.list(req) });
    })
    .on(endOtherSessions, async (req, res) => {
      await actions.endOthers(req);
      res.status(204).end();
    })
    .on(endSession, async (req, res) => {
      await actions.end(req, res, String(req.params['id']));
      res.status(204).end();
    });
}
