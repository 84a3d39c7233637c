/** `GET /security-log` for people with browsers: the caller's own audit records (security-log-page.ts). */
import type { AuditApi } from '../../audit/audit-log.js';
import type { AuthConfig } from '../../config/config.js';
import { securityLogOf } from '../actions/security-log.js';
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { LOGIN, tokenFailuresNote } from '../endpoints/guards.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { beforeParameter, toLoginPage } from '../openapi/operations.js';
import { page } from '../openapi/responses.js';
import { sendPage } from './render.js';
import type { PageTexts } from './texts.js';

export const securityLogPage = endpoint({
  method: 'get',
  path: '/security-log',
  operationId: 'securityLogPage',
  summary: 'The security log page: what happened to the caller’s account, newest first',
  description: ({ config }) =>
    [
      'The caller’s own audit records, 50 a page, as `GET /api/security-log` lists them: logins (refused ones too),',
      'password and address changes, tokens, sessions, roles; when, from which address, on which device. An “Older”',
      'link pages back. With a bearer token, one made without scopes and without an organization: a token with',
      'scopes, or bound to an organization, is refused (403 `insufficient_scope`), as by the API.',
    ].join(' ') + tokenFailuresNote(config),
  tags: ['pages'],
  guards: [LOGIN],
  parameters: [beforeParameter('A record id: the records older than it (the “Older” link’s)')],
  responses: ({ config }) => ({ 200: page('The page'), 303: toLoginPage(config) }),
  refusals: ['insufficient_scope', 'bad_request'],
});

export interface SecurityLogPageDeps {
  config: AuthConfig;
  audit: Pick<AuditApi, 'query'>;
  pluggable: { readonly texts: PageTexts };
}

export function securityLogPages({ config, audit, pluggable }: SecurityLogPageDeps, kit: GuardKit): EndpointRouter {
  return new EndpointRouter(kit).on(securityLogPage, async (req, res) => {
    const { events, next } = await securityLogOf(audit, req);
    const locals = { prefix: config.urlPrefix, texts: pluggable.texts, email: req.user!.email, events, next };
    await sendPage(req, res, 200, 'security-log', locals);
  });
}
