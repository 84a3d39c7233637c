/** `GET /api/security-log?before=<id>`: the caller's own audit records, with a session or a token without scopes. */
import type { AuditApi } from '../../audit/audit-log.js';
import { securityLogOf } from '../actions/security-log.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { LOGIN } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { beforeParameter, noStore } from '../openapi/operations.js';
import { json } from '../openapi/responses.js';
import { securityLogResponse } from '../schemas/responses.js';

export const securityLog = endpoint({
  method: 'get',
  path: '/api/security-log',
  operationId: 'securityLog',
  summary: 'The caller’s security log',
  description: [
    'The caller’s own audit records (docs/audit.md), 50 a page, newest first: logins (refused ones too), logouts,',
    'password and address changes, tokens, sessions, roles, each with the client address and user agent. `next` is',
    'the `before` of the next page, null on the last. Never a record’s hash, nor another user’s records. With a',
    'bearer token, one made without scopes and without an organization: a token with scopes, or bound to an',
    'organization, is 403 `insufficient_scope`.',
  ].join(' '),
  tags: ['account'],
  guards: [LOGIN],
  parameters: [beforeParameter('A record id: only records older than it (the previous page’s `next`)')],
  responses: ({ schemas }) => ({ 200: json(schemas, 'A page of records', securityLogResponse, noStore()) }),
  refusals: ['insufficient_scope', 'bad_request'],
});

export function securityLogApi(audit: Pick<AuditApi, 'query'>, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit).on(securityLog, async (req, res) => {
    res.json(await securityLogOf(audit, req));
  });
}
