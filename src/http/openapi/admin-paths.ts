/**
 * The admin console's pages and forms (pages/admin/, docs/admin.md): HTML for a signed-in person
 * whose CASL rules open the part of the console asked for; an API token is refused (403
 * `forbidden`). Each change to a user is a form naming the one field it changes.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { guardRefusals, operation, pathId, queryParameter, toLoginPage, tokenFailuresNote, type DocumentContext, type Paths } from './operations.js';
import { page, redirect } from './responses.js';

const SESSION = [{ session: [] }];
const PAGE = queryParameter('page', 'The page, from 1 (400 `bad_request` for anything else)');

export function adminPaths(context: DocumentContext): Paths {
  const { config } = context;
  const prefix = config.urlPrefix;
  const failures = tokenFailuresNote(config);
  const reading = [...guardRefusals(config, false), 'forbidden', 'bad_request'] as const;
  const consolePage = (operationId: string, summary: string, needs: string, parameters: OpenAPIV3_1.ParameterObject[], extra: readonly ('not_found')[] = []) => ({
    get: operation(context, {
      operationId,
      summary,
      description: `Needs a session and ${needs} on every subject (a rule without conditions; \`manage all\` will do): 403 \`forbidden\` otherwise.${failures}`,
      tags: ['admin'],
      security: SESSION,
      parameters,
      responses: { 200: page('The page'), 303: toLoginPage(config) },
      refusals: [...reading, ...extra],
    }),
  });
  const userForm = (path: string, operationId: string, summary: string, field: string, values: string[], codes: readonly ('unknown_role')[] = []) => {
    const described = operation(context, {
      operationId,
      summary,
      description: `Needs \`read User\` on every user, and \`update\` on this user with the field \`${field}\`${field === 'roles' ? ', and `assign` on `Role { name }` (403 `forbidden`); a role that neither a definition names nor was created (`auth create-role`) is 422 `unknown_role`' : ''}. ${field === 'disabled' || field === 'roles' ? ' An `is_admin` account is disabled, or loses a role, only by an `is_admin` operator (403 `forbidden`).' : ''} The body is that field alone (400 \`bad_request\` otherwise). Answered with a 303 to \`${prefix}/admin/users/{id}?done=…\`; recorded with the operator as \`detail.by\`.${failures}`,
      tags: ['admin'],
      security: SESSION,
      parameters: [pathId('The user’s id (404 `not_found` for one that names nobody)')],
      responses: { 303: redirect('Done: to the user’s page') },
      refusals: [...guardRefusals(config, true), 'forbidden', 'bad_request', 'not_found', ...codes],
    });
    described.requestBody = {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: [field], additionalProperties: false, properties: { [field]: values.length ? { type: 'string', enum: values } : { type: 'string' } } } } },
    };
    return { [`/admin/users/{id}/${path}`]: { post: described } };
  };

  return {
    '/admin': consolePage('adminHome', 'The admin console: links to the parts the caller’s rules open', 'one of `read User`, `read Organization`, `read AuditRecord`, `read Policy`', []),
    '/admin/users': consolePage('adminUsers', 'The users, 25 a page, searched by part of the address', '`read User`', [PAGE, queryParameter('email', 'Part of the address, in any case')]),
    '/admin/users/{id}': consolePage('adminUser', 'A user, and the changes the caller may make to the account', '`read User`', [pathId('The user’s id'), queryParameter('done', 'Says what was just done')], ['not_found']),
    ...userForm('disabled', 'adminDisableUserForm', 'Disable (`true`) or enable (`false`) the account', 'disabled', ['true', 'false']),
    ...userForm('roles/add', 'adminAddRoleForm', 'Give the user a role that exists (defined or created)', 'roles', [], ['unknown_role']),
    ...userForm('roles/remove', 'adminRemoveRoleForm', 'Take a role away from the user', 'roles', [], ['unknown_role']),
    ...userForm('sessions', 'adminEndSessionsForm', 'End every session of the user', 'sessions', ['end']),
    ...userForm('tokens', 'adminRevokeTokensForm', 'Revoke every token of the user', 'tokens', ['revoke']),
    ...userForm('mfa', 'adminResetMfaForm', 'Remove the user’s app, recovery codes and passkeys, and end their sessions', 'mfa', ['reset']),
    '/admin/users/{id}/impersonate': {
      post: operation(context, {
        operationId: 'adminImpersonateForm',
        summary: 'Act as the user (docs/impersonation.md): a new session as them, then home',
        description: `Needs \`read User\` on every user, and \`impersonate\` on this user (never an \`is_admin\` one, nor oneself: 403 \`forbidden\`; not while acting as someone already: 403 \`impersonation_forbidden\`), as \`POST /api/impersonation\`. Answered with a 303 to \`/\` and the new session's cookie.${failures}`,
        tags: ['admin'],
        security: SESSION,
        parameters: [pathId('The user’s id (404 `not_found` for one that names nobody)')],
        responses: { 303: redirect('Acting as the user: to the application’s home') },
        refusals: [...guardRefusals(config, true), 'forbidden', 'bad_request', 'not_found', 'impersonation_forbidden'],
      }),
    },
    '/admin/orgs': consolePage('adminOrgs', 'The organizations, 25 a page, by slug', '`read Organization`', [PAGE]),
    '/admin/orgs/{org}': consolePage('adminOrg', 'An organization with its members and their roles (the members need `read Membership` on every membership)', '`read Organization`', [{ name: 'org', in: 'path', required: true, description: 'The organization’s id or slug', schema: { type: 'string' } }], ['not_found']),
    '/admin/audit': consolePage('adminAudit', 'The audit log, 50 a page, newest first, filtered', '`read AuditRecord`', [
      queryParameter('type', 'One of the audit log’s types'),
      queryParameter('email', 'The records of this person'),
      queryParameter('since', 'From this day (YYYY-MM-DD, UTC)'),
      queryParameter('until', 'To this day, included (YYYY-MM-DD, UTC)'),
      queryParameter('before', 'A record id: the records older than it (the “Older records” link’s)'),
    ]),
    '/admin/audit/verify': {
      post: operation(context, {
        operationId: 'adminVerifyAuditChain',
        summary: 'Verify the audit log’s chain: answered with the audit log page saying whether it is intact, or where it breaks',
        description: `Needs \`read AuditRecord\` on every record. Changes nothing, so it is answered with the page itself rather than a redirect.${failures}`,
        tags: ['admin'],
        security: SESSION,
        responses: { 200: page('The audit log page with the result') },
        refusals: [...guardRefusals(config, true), 'forbidden', 'bad_request'],
      }),
    },
    '/admin/policy': consolePage('adminPolicy', 'The policy explorer: what each role allows, and why a user may or may not do something', '`read Policy`', [
      queryParameter('email', 'The user to explain for'),
      queryParameter('action', 'The action'),
      queryParameter('subject', 'The subject type'),
      queryParameter('org', 'An organization (id or slug): explain in it'),
      queryParameter('fields', 'The subject’s field values, one a line: `name=text` or `name:=JSON`'),
    ]),
  };
}
